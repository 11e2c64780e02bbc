#include "remat/io/fxgraph_file.h"

#include "remat/io/detail/json_reading.h"
#include "remat/support/file_io.h"

namespace remat {
namespace {

template <class T>
Expected<FxgraphDocument> wrap(Expected<T> r) {
  if (!r) return std::move(r).take_errors();
  return FxgraphDocument(std::move(r).value());
}

}  // namespace

Expected<FxgraphDocument> read_fxgraph(std::string_view text, const std::string& file) {
  Expected<std::string> schema = io::detail::read_schema_tag(text, file);
  if (!schema) return std::move(schema).take_errors();
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
  if (!text) return std::move(text).take_errors();
  return read_fxgraph(*text, display_name(path));
}

std::string write_fxgraph(const FxgraphDocument& document) {
  if (const auto* g = std::get_if<GraphModule>(&document)) return write_graph_json(*g);
  if (const auto* f = std::get_if<FlowNetwork>(&document)) return write_flow_json(*f);
  return write_partition_json(std::get<PartitionSummary>(document));
}

}  // namespace remat
