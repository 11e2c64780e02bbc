#include "remat/io/fxgraph_file.h"

#include <optional>

#include "remat/support/file_io.h"
#include "remat/support/json_reader.h"

namespace remat {
namespace {

template <class T>
Expected<FxgraphDocument> wrap(Expected<T> r) {
  REMAT_TRY(r);
  return FxgraphDocument(std::move(r).value());
}

// `{"schema": "..."` at the very start, as every file remat writes begins: the tag without
// parsing the document (a 150 MB graph would be parsed once more just for it). nullopt when the
// text starts otherwise (another key first, an escape in the tag): the caller parses.
std::optional<std::string_view> leading_schema_tag(std::string_view text) {
  size_t i = 0;
  auto skip_space = [&] {
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
      ++i;
  };
  auto expect = [&](std::string_view token) {
    skip_space();
    if (text.substr(i, token.size()) != token) return false;
    i += token.size();
    return true;
  };
  if (!expect("{") || !expect("\"schema\"") || !expect(":") || !expect("\"")) return std::nullopt;
  size_t end = text.find_first_of("\"\\", i);
  if (end == std::string_view::npos || text[end] != '"') return std::nullopt;
  std::string_view tag = text.substr(i, end - i);
  for (char c : tag) {
    if (static_cast<unsigned char>(c) < 0x20)
      return std::nullopt;  // invalid JSON: let the parser say so
  }
  return tag;
}

}  // namespace

Expected<std::string> read_json_schema(std::string_view text, const std::string& file) {
  if (std::optional<std::string_view> tag = leading_schema_tag(text)) return std::string(*tag);
  json::JsonReader reader(file);
  std::optional<json::dom::element> root = reader.parse(text);
  if (!root) return reader.error();
  json::JsonPath top;
  json::dom::object obj;
  if (!reader.get_object(*root, top, obj)) return reader.error();
  json::dom::element tag;
  if (obj["schema"].get(tag)) return std::string();
  std::string_view s;
  if (!reader.get_string(tag, top.field("schema"), s)) return reader.error();
  return std::string(s);
}

Expected<FxgraphDocument> read_fxgraph(std::string_view text, const std::string& file) {
  Expected<std::string> schema = read_json_schema(text, file);
  REMAT_TRY(schema);
  if (*schema == kGraphSchema) return wrap(read_graph_json(text, file));
  if (*schema == kFlowSchema) return wrap(read_flow_json(text, file));
  if (*schema == kPartitionSchema) return wrap(read_partition_json(text, file));
  Diagnostic d;
  d.file = file;
  d.path = "schema";
  d.message = schema->empty() ? "missing \"schema\" (expected \"fxgraph-json/1\", "
                                "\"fxgraph-json/1#flow\" or \"fxgraph-json/1#partition\")"
                              : "unknown schema \"" + *schema + "\"";
  return d;
}

Expected<FxgraphDocument> load_fxgraph(const std::string& path) {
  Expected<std::string> text = read_file(path);
  REMAT_TRY(text);
  return read_fxgraph(*text, display_name(path));
}

std::string write_fxgraph(const FxgraphDocument& document) {
  if (const auto* g = std::get_if<GraphModule>(&document)) return write_graph_json(*g);
  if (const auto* f = std::get_if<FlowNetwork>(&document)) return write_flow_json(*f);
  return write_partition_json(std::get<PartitionSummary>(document));
}

}  // namespace remat
