#include "remat/io/partition_summary.h"

#include <algorithm>

#include "remat/support/json_reader.h"
#include "remat/support/json_writer.h"

namespace remat {
namespace {

using json::JsonPath;
using json::JsonReader;
using json::dom::element;
using json::dom::object;

bool read_strategy(JsonReader& r, object obj, const JsonPath& path, StrategySummary& s) {
  for (auto [key, value] : obj) {
    JsonPath p = path.field(key);
    bool ok = true;
    if (key == "saved_values") {
      ok = r.get_string_list(value, p, s.saved_values);
    } else if (key == "bw_placeholders") {
      ok = r.get_string_list(value, p, s.bw_placeholders);
    } else if (key == "recomputed_in_bw") {
      ok = r.get_string_list(value, p, s.recomputed_in_bw);
    } else if (key == "saved_bytes_total" || key == "fw_num_nodes" || key == "bw_num_nodes") {
      int64_t v = 0;
      ok = r.get_int(value, p, v);
      (key == "saved_bytes_total" ? s.saved_bytes_total
       : key == "fw_num_nodes"    ? s.fw_num_nodes
                                  : s.bw_num_nodes) = v;
    } else if (key == "saved_values_bytes") {
      object bytes;
      ok = r.get_object(value, p, bytes);
      if (ok) {
        for (auto [name, b] : bytes) {
          int64_t v = 0;
          if (!r.get_int(b, p.field(name), v)) return false;
          s.saved_values_bytes.emplace_back(std::string(name), v);
        }
      }
    } else {
      s.extras.push_back({std::string(key), JsonReader::raw(value)});
    }
    if (!ok) return false;
  }
  int64_t total = 0;
  const JsonPath bytes_path = path.field("saved_values_bytes");
  for (const auto& [name, bytes] : s.saved_values_bytes) {
    if (std::find(s.saved_values.begin(), s.saved_values.end(), name) == s.saved_values.end())
      return r.fail(bytes_path.field(name), "'" + name + "' is not a saved value");
    total += bytes;
  }
  if (s.saved_bytes_total && !s.saved_values_bytes.empty() && *s.saved_bytes_total != total)
    return r.fail(path.field("saved_bytes_total"), std::to_string(*s.saved_bytes_total) +
                                                       " but the saved values add up to " +
                                                       std::to_string(total));
  return true;
}

}  // namespace

Expected<PartitionSummary> read_partition_json(std::string_view text, const std::string& file) {
  JsonReader r(file);
  std::optional<element> root = r.parse(text);
  if (!root) return r.error();
  JsonPath top;
  object obj;
  if (!r.get_object(*root, top, obj) || !r.check_schema(obj, kPartitionSchema)) return r.error();
  PartitionSummary summary;
  for (auto [key, value] : obj) {
    JsonPath p = top.field(key);
    if (key == "schema") continue;
    if (key == "model") {
      std::string_view s;
      if (!r.get_string(value, p, s)) return r.error();
      summary.model = s;
      continue;
    }
    element saved;
    if (value.is_object() && !object(value)["saved_values"].get(saved)) {
      StrategySummary s;
      s.strategy = key;
      if (!read_strategy(r, object(value), p, s)) return r.error();
      summary.strategies.push_back(std::move(s));
      continue;
    }
    summary.extras.push_back({std::string(key), JsonReader::raw(value)});
  }
  return summary;
}

std::string write_partition_json(const PartitionSummary& summary) {
  std::string out;
  json::JsonWriter w(out, 1);
  w.begin_object(json::Layout::Block).field("schema", kPartitionSchema);
  if (!summary.model.empty()) w.field("model", summary.model);
  for (const RawJsonField& f : summary.extras) w.key(f.key).raw(f.json);
  for (const StrategySummary& s : summary.strategies) {
    w.key(s.strategy).begin_object(json::Layout::Block).key("saved_values").array(s.saved_values);
    w.key("saved_values_bytes").begin_object();
    for (const auto& [name, bytes] : s.saved_values_bytes) w.field(name, bytes);
    w.end_object();
    if (s.saved_bytes_total) w.field("saved_bytes_total", *s.saved_bytes_total);
    w.key("bw_placeholders").array(s.bw_placeholders);
    if (s.fw_num_nodes) w.field("fw_num_nodes", *s.fw_num_nodes);
    if (s.bw_num_nodes) w.field("bw_num_nodes", *s.bw_num_nodes);
    w.key("recomputed_in_bw").array(s.recomputed_in_bw);
    for (const RawJsonField& f : s.extras) w.key(f.key).raw(f.json);
    w.end_object();
  }
  w.end_object();
  out += '\n';
  return out;
}

}  // namespace remat
