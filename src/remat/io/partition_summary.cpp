#include "remat/io/partition_summary.h"

#include <algorithm>

#include "remat/io/detail/json_reading.h"
#include "remat/support/json_text.h"

namespace remat {
namespace {

using io::detail::JsonPath;
using io::detail::JsonReader;
using io::detail::dom::element;
using io::detail::dom::object;

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

void append_strings(std::string& out, const std::vector<std::string>& v) {
  out += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    json::append_string(out, v[i]);
  }
  out += ']';
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
  std::string out = "{\n \"schema\": ";
  json::append_string(out, kPartitionSchema);
  auto key = [&](std::string_view k, int indent) {
    out += ",\n";
    out.append(static_cast<size_t>(indent), ' ');
    json::append_string(out, k);
    out += ": ";
  };
  if (!summary.model.empty()) {
    key("model", 1);
    json::append_string(out, summary.model);
  }
  for (const RawJsonField& f : summary.extras) {
    key(f.key, 1);
    out += f.json;
  }
  for (const StrategySummary& s : summary.strategies) {
    key(s.strategy, 1);
    out += "{\n  \"saved_values\": ";
    append_strings(out, s.saved_values);
    key("saved_values_bytes", 2);
    out += '{';
    for (size_t i = 0; i < s.saved_values_bytes.size(); ++i) {
      if (i) out += ", ";
      json::append_string(out, s.saved_values_bytes[i].first);
      out += ": ";
      json::append_int(out, s.saved_values_bytes[i].second);
    }
    out += '}';
    auto count = [&](std::string_view k, const std::optional<int64_t>& v) {
      if (!v) return;
      key(k, 2);
      json::append_int(out, *v);
    };
    count("saved_bytes_total", s.saved_bytes_total);
    key("bw_placeholders", 2);
    append_strings(out, s.bw_placeholders);
    count("fw_num_nodes", s.fw_num_nodes);
    count("bw_num_nodes", s.bw_num_nodes);
    key("recomputed_in_bw", 2);
    append_strings(out, s.recomputed_in_bw);
    for (const RawJsonField& f : s.extras) {
      key(f.key, 2);
      out += f.json;
    }
    out += "\n }";
  }
  out += "\n}\n";
  return out;
}

}  // namespace remat
