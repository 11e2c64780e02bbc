#include "remat/io/flow_network.h"

#include <cmath>
#include <limits>
#include <unordered_set>

#include "remat/support/json_reader.h"
#include "remat/support/json_writer.h"

namespace remat {
namespace {

using json::JsonPath;
using json::JsonReader;
using json::dom::array;
using json::dom::element;
using json::dom::object;

bool read_capacity(JsonReader& r, element e, const JsonPath& p, double& out) {
  if (!r.get_number(e, p, out)) return false;
  if (std::isnan(out) || out < 0)
    return r.fail(p, "capacity must be a non-negative number or \"inf\"");
  return true;
}

void write_capacity(json::JsonWriter& w, double c) {
  if (std::isinf(c))
    w.value("inf");
  else if (c == std::floor(c) && std::fabs(c) < 9.0e15)
    w.value(static_cast<int64_t>(c));
  else
    w.value(c);
}

}  // namespace

Expected<FlowNetwork> read_flow_json(std::string_view text, const std::string& file) {
  JsonReader r(file);
  std::optional<element> root = r.parse(text);
  if (!root) return r.error();
  JsonPath top;
  object obj;
  if (!r.get_object(*root, top, obj) || !r.check_schema(obj, kFlowSchema)) return r.error();
  FlowNetwork net;
  std::optional<int64_t> num_nodes, num_edges;
  bool has_nodes = false;
  for (auto [key, value] : obj) {
    JsonPath p = top.field(key);
    bool ok = true;
    std::string_view s;
    if (key == "schema") continue;
    if (key == "graph_name" || key == "source" || key == "sink") {
      ok = r.get_string(value, p, s);
      (key == "graph_name" ? net.graph_name : key == "source" ? net.source : net.sink) = s;
    } else if (key == "num_nodes" || key == "num_edges") {
      int64_t v = 0;
      ok = r.get_int(value, p, v);
      (key == "num_nodes" ? num_nodes : num_edges) = v;
    } else if (key == "cut_value") {
      double v = 0;
      ok = read_capacity(r, value, p, v);
      net.cut_value = v;
    } else if (key == "nodes") {
      ok = r.get_string_list(value, p, net.nodes);
      has_nodes = true;
    } else if (key == "source_side") {
      std::vector<std::string> side;
      ok = r.get_string_list(value, p, side);
      net.source_side = std::move(side);
    } else if (key == "edges" || key == "cut_edges") {
      array arr;
      if (!r.get_array(value, p, arr)) return r.error();
      size_t i = 0;
      for (element item : arr) {
        JsonPath ep = p.at(i++);
        array parts;
        if (!r.get_array(item, ep, parts)) return r.error();
        size_t want = key == "edges" ? 3 : 2;
        if (parts.size() != want)
          return r.error_at(
              ep, key == "edges" ? "an edge is [from, to, capacity]" : "a cut edge is [from, to]");
        std::string_view from, to;
        if (!r.get_string(parts.at(0).value_unsafe(), ep.at(0), from) ||
            !r.get_string(parts.at(1).value_unsafe(), ep.at(1), to))
          return r.error();
        if (key == "edges") {
          double c = 0;
          if (!read_capacity(r, parts.at(2).value_unsafe(), ep.at(2), c)) return r.error();
          net.edges.push_back({std::string(from), std::string(to), c});
        } else {
          net.cut_edges.emplace_back(from, to);
        }
      }
    } else {
      net.extras.push_back({std::string(key), JsonReader::raw(value)});
    }
    if (!ok) return r.error();
  }
  if (!has_nodes) return r.error_at(top, "flow network without \"nodes\"");

  const JsonPath nodes_path = top.field("nodes"), edges_path = top.field("edges"),
                 cut_path = top.field("cut_edges"), side_path = top.field("source_side");
  std::unordered_set<std::string_view> vertices;
  for (size_t i = 0; i < net.nodes.size(); ++i)
    if (!vertices.insert(net.nodes[i]).second)
      return r.error_at(nodes_path.at(i), "duplicate vertex '" + net.nodes[i] + "'");
  auto known = [&](const std::string& v, const JsonPath& p) {
    return vertices.count(v) != 0 || r.fail(p, "names no vertex of the network: '" + v + "'");
  };
  if (!known(net.source, top.field("source")) || !known(net.sink, top.field("sink")))
    return r.error();
  for (size_t i = 0; i < net.edges.size(); ++i) {
    JsonPath p = edges_path.at(i);
    if (!known(net.edges[i].from, p.at(0)) || !known(net.edges[i].to, p.at(1))) return r.error();
  }
  for (size_t i = 0; i < net.cut_edges.size(); ++i) {
    JsonPath p = cut_path.at(i);
    if (!known(net.cut_edges[i].first, p.at(0)) || !known(net.cut_edges[i].second, p.at(1)))
      return r.error();
  }
  if (net.source_side)
    for (size_t i = 0; i < net.source_side->size(); ++i)
      if (!known((*net.source_side)[i], side_path.at(i))) return r.error();
  if (num_nodes && *num_nodes != static_cast<int64_t>(net.nodes.size()))
    return r.error_at(top.field("num_nodes"), "says " + std::to_string(*num_nodes) +
                                                  " but \"nodes\" has " +
                                                  std::to_string(net.nodes.size()));
  if (num_edges && *num_edges != static_cast<int64_t>(net.edges.size()))
    return r.error_at(top.field("num_edges"), "says " + std::to_string(*num_edges) +
                                                  " but \"edges\" has " +
                                                  std::to_string(net.edges.size()));
  return net;
}

std::string write_flow_json(const FlowNetwork& net) {
  std::string out;
  json::JsonWriter w(out, 1);
  w.begin_object(json::Layout::Block).field("schema", kFlowSchema);
  if (!net.graph_name.empty()) w.field("graph_name", net.graph_name);
  w.field("source", net.source)
      .field("sink", net.sink)
      .field("num_nodes", static_cast<int64_t>(net.nodes.size()))
      .field("num_edges", static_cast<int64_t>(net.edges.size()));
  if (net.cut_value) {
    w.key("cut_value");
    write_capacity(w, *net.cut_value);
  }
  for (const RawJsonField& f : net.extras) w.key(f.key).raw(f.json);
  w.key("cut_edges").begin_array();
  for (const auto& [from, to] : net.cut_edges) w.begin_array().value(from).value(to).end_array();
  w.end_array();
  if (net.source_side) w.key("source_side").array(*net.source_side);
  w.key("nodes").array(net.nodes).key("edges").begin_array(json::Layout::Block);
  for (const FlowEdge& e : net.edges) {
    w.begin_array().value(e.from).value(e.to);
    write_capacity(w, e.capacity);
    w.end_array();
  }
  w.end_array().end_object();
  out += '\n';
  return out;
}

}  // namespace remat
