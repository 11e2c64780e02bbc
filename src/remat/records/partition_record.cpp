#include "remat/records/partition_record.h"

#include <algorithm>

#include <fmt/format.h>

#include <cmath>

#include "remat/support/json_reader.h"
#include "remat/support/json_writer.h"

namespace remat::records {
namespace {

// ---- writing ----

void write_curve(json::JsonWriter& w, const TimelineCurve& c) {
  w.begin_object(json::Layout::Block)
      .field("label", c.label)
      .field("steps", static_cast<uint64_t>(c.steps))
      .field("forward_steps", static_cast<uint64_t>(c.forward_steps))
      .field("peak_bytes", c.peak_bytes)
      .field("peak_step", static_cast<uint64_t>(c.peak_step))
      .field("peak_node", c.peak_node)
      .key("samples")
      .begin_array(json::Layout::Block);
  for (const TimelineSample& s : c.samples) {
    w.begin_object()
        .field("step", static_cast<uint64_t>(s.step))
        .field("live", s.live)
        .field("node", s.node)
        .field("bytes", s.bytes);
    if (!s.largest.empty()) {
      w.field("alive", static_cast<uint64_t>(s.alive)).key("largest").begin_array();
      for (const auto& [name, bytes] : s.largest)
        w.begin_array().value(name).value(bytes).end_array();
      w.end_array();
    }
    w.end_object();
  }
  w.end_array().end_object();
}

/// `first, last, "first name", "last name"`, inside an array.
void write_span(json::JsonWriter& w, const NodeSpan& s) {
  w.value(static_cast<uint64_t>(s.first))
      .value(static_cast<uint64_t>(s.last))
      .value(s.first_name)
      .value(s.last_name);
}

void write_charts(json::JsonWriter& w, const PartitionCharts& c) {
  w.key("charts").begin_object(json::Layout::Block).key("memory").begin_array(json::Layout::Block);
  for (const TimelineCurve& curve : c.memory) write_curve(w, curve);
  auto points = [&](std::string_view key, const std::vector<BudgetPoint>& list) {
    w.end_array().key(key).begin_array(json::Layout::Block);
    for (const BudgetPoint& p : list) {
      w.begin_object().field("budget", p.budget).field("saved_bytes", p.saved_bytes);
      if (p.activation_bytes) w.field("activation_bytes", *p.activation_bytes);
      w.field("recompute_flops", p.recompute_flops)
          .field("saved_values", static_cast<uint64_t>(p.saved_values))
          .field("stage", p.stage)
          .end_object();
    }
  };
  points("budget", c.budget);
  if (!c.optimum.empty()) points("optimum", c.optimum);
  w.end_array();
  if (c.chosen) w.field("chosen", static_cast<uint64_t>(*c.chosen));
  if (c.knee) w.field("knee", static_cast<uint64_t>(*c.knee));
  const RegionMap& m = c.regions;
  if (m.nodes > 0) {
    w.key("regions")
        .begin_object(json::Layout::Block)
        .field("nodes", static_cast<uint64_t>(m.nodes));
    w.key("regions").begin_array();
    for (const RegionSpan& r : m.regions) {
      w.begin_array().value(r.id);
      write_span(w, r.span);
      w.end_array();
    }
    w.end_array().key("saved").begin_array();
    for (const auto& [index, name] : m.saved)
      w.begin_array().value(static_cast<uint64_t>(index)).value(name).end_array();
    w.end_array().key("recomputed").begin_array();
    for (const NodeSpan& s : m.recomputed) {
      w.begin_array();
      write_span(w, s);
      w.end_array();
    }
    w.end_array().end_object();
  }
  if (!c.notes.empty()) w.key("notes").array(c.notes);
  w.end_object();
}

// ---- reading ----

using json::JsonPath;
using json::JsonReader;
using json::dom::array;
using json::dom::element;
using json::dom::object;

/// Reads a JSON object member by member: `on(key, value, path)` for each; unknown keys are
/// skipped (a newer remat may add some), wrong types fail with the member's path.
template <class OnMember>
bool read_object(JsonReader& r, element e, const JsonPath& path, OnMember&& on) {
  object obj;
  if (!r.get_object(e, path, obj)) return false;
  for (auto [key, value] : obj) {
    JsonPath p = path.field(key);
    if (!on(key, value, p)) return false;
  }
  return true;
}

/// Reads an array: `on(item, path)` for each item.
template <class OnItem>
bool read_array(JsonReader& r, element e, const JsonPath& path, OnItem&& on) {
  array items;
  if (!r.get_array(e, path, items)) return false;
  size_t i = 0;
  for (element item : items) {
    JsonPath p = path.at(i++);
    if (!on(item, p)) return false;
  }
  return true;
}

bool get(JsonReader& r, element e, const JsonPath& p, std::string& out) {
  std::string_view s;
  if (!r.get_string(e, p, s)) return false;
  out = s;
  return true;
}
bool get(JsonReader& r, element e, const JsonPath& p, int64_t& out) {
  return r.get_int(e, p, out);
}
bool get(JsonReader& r, element e, const JsonPath& p, size_t& out) {
  int64_t v = 0;
  if (!r.get_int(e, p, v)) return false;
  if (v < 0) return r.fail(p, "expected a count, got " + std::to_string(v));
  out = static_cast<size_t>(v);
  return true;
}
bool get(JsonReader& r, element e, const JsonPath& p, double& out) {
  if (!r.get_number(e, p, out)) return false;
  if (!std::isfinite(out)) return r.fail(p, "expected a finite number");  // none is written
  return true;
}
bool get(JsonReader& r, element e, const JsonPath& p, bool& out) {
  return r.get_bool(e, p, out);
}
template <class T>
bool get(JsonReader& r, element e, const JsonPath& p, std::optional<T>& out) {
  T v{};
  if (!get(r, e, p, v)) return false;
  out = std::move(v);
  return true;
}

/// A span `[first, last, "first name", "last name"]` (`with_id`: the region id first).
bool get_span(JsonReader& r, element e, const JsonPath& p, NodeSpan& s, int64_t* id) {
  array parts;
  if (!r.get_array(e, p, parts)) return false;
  size_t want = id ? 5 : 4;
  if (parts.size() != want)
    return r.fail(p, fmt::format("expected {} items, got {}", want, parts.size()));
  size_t i = 0;
  for (element part : parts) {
    JsonPath q = p.at(i);
    size_t at = id ? i : i + 1;  // 0: id, 1: first, 2: last, 3, 4: names
    bool ok = at == 0   ? get(r, part, q, *id)
              : at == 1 ? get(r, part, q, s.first)
              : at == 2 ? get(r, part, q, s.last)
              : at == 3 ? get(r, part, q, s.first_name)
                        : get(r, part, q, s.last_name);
    if (!ok) return false;
    ++i;
  }
  return true;
}

bool read_sample(JsonReader& r, element e, const JsonPath& path, TimelineSample& s) {
  return read_object(r, e, path, [&](std::string_view key, element v, const JsonPath& p) {
    if (key == "step") return get(r, v, p, s.step);
    if (key == "live") return get(r, v, p, s.live);
    if (key == "node") return get(r, v, p, s.node);
    if (key == "bytes") return get(r, v, p, s.bytes);
    if (key == "alive") return get(r, v, p, s.alive);
    if (key == "largest") {
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        array pair;
        if (!r.get_array(item, q, pair)) return false;
        if (pair.size() != 2)
          return r.fail(q, fmt::format("expected [name, bytes], got {} items", pair.size()));
        std::pair<std::string, int64_t> value;
        JsonPath name_path = q.at(0), bytes_path = q.at(1);
        if (!get(r, pair.at(0).value_unsafe(), name_path, value.first) ||
            !get(r, pair.at(1).value_unsafe(), bytes_path, value.second))
          return false;
        s.largest.push_back(std::move(value));
        return true;
      });
    }
    return true;
  });
}

bool read_curve(JsonReader& r, element e, const JsonPath& path, TimelineCurve& c) {
  return read_object(r, e, path, [&](std::string_view key, element v, const JsonPath& p) {
    if (key == "label") return get(r, v, p, c.label);
    if (key == "steps") return get(r, v, p, c.steps);
    if (key == "forward_steps") return get(r, v, p, c.forward_steps);
    if (key == "peak_bytes") return get(r, v, p, c.peak_bytes);
    if (key == "peak_step") return get(r, v, p, c.peak_step);
    if (key == "peak_node") return get(r, v, p, c.peak_node);
    if (key == "samples") {
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        return read_sample(r, item, q, c.samples.emplace_back());
      });
    }
    return true;
  });
}

bool read_budget_point(JsonReader& r, element e, const JsonPath& path, BudgetPoint& b) {
  return read_object(r, e, path, [&](std::string_view key, element v, const JsonPath& p) {
    if (key == "budget") return get(r, v, p, b.budget);
    if (key == "saved_bytes") return get(r, v, p, b.saved_bytes);
    if (key == "activation_bytes") return get(r, v, p, b.activation_bytes);
    if (key == "recompute_flops") return get(r, v, p, b.recompute_flops);
    if (key == "saved_values") return get(r, v, p, b.saved_values);
    if (key == "stage") return get(r, v, p, b.stage);
    return true;
  });
}

bool read_region_map(JsonReader& r, element e, const JsonPath& path, RegionMap& m) {
  return read_object(r, e, path, [&](std::string_view key, element v, const JsonPath& p) {
    if (key == "nodes") return get(r, v, p, m.nodes);
    if (key == "regions") {
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        RegionSpan& s = m.regions.emplace_back();
        return get_span(r, item, q, s.span, &s.id);
      });
    }
    if (key == "recomputed") {
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        return get_span(r, item, q, m.recomputed.emplace_back(), nullptr);
      });
    }
    if (key == "saved") {
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        array pair;
        if (!r.get_array(item, q, pair)) return false;
        if (pair.size() != 2)
          return r.fail(q, fmt::format("expected [index, name], got {} items", pair.size()));
        auto& [index, name] = m.saved.emplace_back();
        JsonPath index_path = q.at(0), name_path = q.at(1);
        return get(r, pair.at(0).value_unsafe(), index_path, index) &&
               get(r, pair.at(1).value_unsafe(), name_path, name);
      });
    }
    return true;
  });
}

bool read_charts(JsonReader& r, element e, const JsonPath& path, PartitionCharts& c) {
  return read_object(r, e, path, [&](std::string_view key, element v, const JsonPath& p) {
    if (key == "memory") {
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        return read_curve(r, item, q, c.memory.emplace_back());
      });
    }
    if (key == "budget" || key == "optimum") {
      std::vector<BudgetPoint>& list = key == "budget" ? c.budget : c.optimum;
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        return read_budget_point(r, item, q, list.emplace_back());
      });
    }
    if (key == "chosen") return get(r, v, p, c.chosen);
    if (key == "knee") return get(r, v, p, c.knee);
    if (key == "regions") return read_region_map(r, v, p, c.regions);
    if (key == "notes") return r.get_string_list(v, p, c.notes);
    return true;
  });
}

bool read_record(JsonReader& r, element e, const JsonPath& path, PartitionRecord& rec) {
  bool any_input_key = false;
  bool ok = read_object(r, e, path, [&](std::string_view key, element v, const JsonPath& p) {
    if (key == "strategy") return get(r, v, p, rec.strategy);
    if (key == "stage") return get(r, v, p, rec.stage);
    if (key == "saved_values") {
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        SavedValue& s = rec.saved_values.emplace_back();
        return read_object(r, item, q, [&](std::string_view k, element x, const JsonPath& xp) {
          if (k == "name") return get(r, x, xp, s.name);
          if (k == "bytes") return get(r, x, xp, s.bytes);
          if (k == "reason") return get(r, x, xp, s.reason);
          if (k == "shape") return get(r, x, xp, s.shape);
          if (k == "region") return get(r, x, xp, s.region);
          if (k == "input") {
            any_input_key = true;
            return get(r, x, xp, s.input);
          }
          if (k == "offloaded") return get(r, x, xp, s.offloaded);
          return true;
        });
      });
    }
    if (key == "saved_symints") return r.get_string_list(v, p, rec.saved_symints);
    if (key == "recomputed") {
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        RecomputedNode& n = rec.recomputed.emplace_back();
        return read_object(r, item, q, [&](std::string_view k, element x, const JsonPath& xp) {
          if (k == "name") return get(r, x, xp, n.name);
          if (k == "target") return get(r, x, xp, n.target);
          if (k == "reason") return get(r, x, xp, n.reason);
          if (k == "flops") return get(r, x, xp, n.flops);
          return true;
        });
      });
    }
    if (key == "banned") {
      return read_array(r, v, p, [&](element item, const JsonPath& q) {
        BannedNode& b = rec.banned.emplace_back();
        return read_object(r, item, q, [&](std::string_view k, element x, const JsonPath& xp) {
          if (k == "name") return get(r, x, xp, b.name);
          if (k == "reason") return get(r, x, xp, b.reason);
          return true;
        });
      });
    }
    if (key == "cut_value") return get(r, v, p, rec.cut_value);
    if (key == "saved_bytes_total") return get(r, v, p, rec.saved_bytes_total);
    if (key == "activation_bytes") return get(r, v, p, rec.activation_bytes);
    if (key == "recompute_flops") return get(r, v, p, rec.recompute_flops);
    if (key == "peak_memory_bytes") return get(r, v, p, rec.peak_memory_bytes);
    if (key == "notes") return r.get_string_list(v, p, rec.notes);
    if (key == "charts") return read_charts(r, v, p, rec.charts.emplace());
    return true;
  });
  rec.inputs_marked = any_input_key || rec.saved_values.empty();
  return ok;
}

}  // namespace

SavedSplit PartitionRecord::split_saved() const {
  SavedSplit s;
  for (const SavedValue& v : saved_values) {
    auto& list = v.input ? s.inputs : v.offloaded ? s.offloaded : s.activations;
    auto& bytes = v.input ? s.input_bytes : v.offloaded ? s.offloaded_bytes : s.activation_bytes;
    list.push_back(&v);
    bytes += v.bytes > 0 ? static_cast<uint64_t>(v.bytes) : 0;
  }
  for (auto* list : {&s.activations, &s.inputs, &s.offloaded}) {
    std::stable_sort(list->begin(), list->end(),
                     [](const SavedValue* a, const SavedValue* b) { return a->bytes > b->bytes; });
  }
  return s;
}

std::string PartitionRecord::text() const {
  SavedSplit split = split_saved();
  std::string out =
      fmt::format("partition ({}): {} saved values, {} bytes; {} recomputed nodes", strategy,
                  saved_values.size(), saved_bytes_total, recomputed.size());
  if (recompute_flops) out += fmt::format(", {} FLOPs", *recompute_flops);
  if (!split.offloaded.empty())
    out += fmt::format("; {} offloaded to host memory", split.offloaded.size());
  out += '\n';
  auto list = [&out](const std::vector<const SavedValue*>& values) {
    for (const SavedValue* v : values)
      out += fmt::format("  {:<24} {:>12} bytes  {}\n", v->name, v->bytes, v->reason);
  };
  // A record from before inputs were marked cannot tell them apart: all its values are listed.
  out += inputs_marked ? fmt::format("saved activations ({}, {} bytes, the largest first):\n",
                                     split.activations.size(), split.activation_bytes)
                       : "saved (the largest first):\n";
  list(split.activations);
  for (const std::string& s : saved_symints)
    out += fmt::format("  {:<24} {:>12}        symbolic size\n", s, "");
  if (!split.offloaded.empty()) {
    out += fmt::format("offloaded to host memory ({}, {} bytes):\n", split.offloaded.size(),
                       split.offloaded_bytes);
    list(split.offloaded);
  }
  if (!split.inputs.empty())
    out += fmt::format(
        "and {} input{} the backward reads anyway ({} bytes of parameters and primals: no "
        "activation memory)\n",
        split.inputs.size(), split.inputs.size() == 1 ? "" : "s", split.input_bytes);
  out += "recomputed in the backward:\n";
  for (const RecomputedNode& n : recomputed)
    out += fmt::format("  {:<24} {:<32} {}\n", n.name, n.target, n.reason);
  size_t primal_bans = 0;
  std::string bans;
  for (const BannedNode& b : banned) {
    if (b.reason == kPrimalInputBan)
      ++primal_bans;
    else
      bans += fmt::format("  {:<24} {}\n", b.name, b.reason);
  }
  if (!bans.empty()) out += "banned from recomputation:\n" + bans;
  if (primal_bans > 0)
    out += fmt::format("({} primal input{} never recomputed)\n", primal_bans,
                       primal_bans == 1 ? " is" : "s are");
  if (strategy != "default" && !stage.empty()) out += fmt::format("chosen by: {}\n", stage);
  if (cut_value) out += fmt::format("cut value: {}\n", *cut_value);
  if (activation_bytes) {
    out += fmt::format(
        "activation memory (storage kept for the backward beyond the inputs): {} bytes\n",
        *activation_bytes);
  }
  out +=
      fmt::format("peak memory estimate (forward, then backward): {} bytes\n", peak_memory_bytes);
  for (const std::string& n : notes) out += "note: " + n + "\n";
  return out;
}

void PartitionRecord::write_json(json::JsonWriter& w) const {
  w.begin_object(json::Layout::Block)
      .field("schema", kPartitionRecordSchema)
      .field("strategy", strategy)
      .field("stage", stage)
      .key("saved_values")
      .begin_array(json::Layout::Block);
  for (const SavedValue& v : saved_values) {
    w.begin_object().field("name", v.name).field("bytes", v.bytes).field("reason", v.reason);
    if (!v.shape.empty()) w.field("shape", v.shape);
    if (v.region) w.field("region", *v.region);
    if (v.input) w.field("input", true);
    if (v.offloaded) w.field("offloaded", true);
    w.end_object();
  }
  w.end_array()
      .key("saved_symints")
      .array(saved_symints)
      .field("saved_bytes_total", saved_bytes_total);
  if (activation_bytes) w.field("activation_bytes", *activation_bytes);
  w.key("recomputed").begin_array(json::Layout::Block);
  for (const RecomputedNode& n : recomputed) {
    w.begin_object().field("name", n.name).field("target", n.target);
    if (n.flops) w.field("flops", *n.flops);
    w.field("reason", n.reason).end_object();
  }
  w.end_array().key("banned").begin_array(json::Layout::Block);
  for (const BannedNode& b : banned)
    w.begin_object().field("name", b.name).field("reason", b.reason).end_object();
  w.end_array();
  if (cut_value) w.field("cut_value", *cut_value);
  if (recompute_flops) w.field("recompute_flops", *recompute_flops);
  w.field("peak_memory_bytes", peak_memory_bytes).key("notes").array(notes);
  if (charts) write_charts(w, *charts);
  w.end_object();
}

std::string PartitionRecord::json() const {
  std::string out;
  json::JsonWriter w(out);
  write_json(w);
  out += '\n';
  return out;
}

Expected<PartitionRecord> read_partition_record(std::string_view text, const std::string& file) {
  JsonReader r(file);
  std::optional<element> root = r.parse(text);
  if (!root) return r.error();
  object obj;
  if (!r.get_object(*root, JsonPath{}, obj) || !r.check_schema(obj, kPartitionRecordSchema))
    return r.error();
  PartitionRecord record;
  if (!read_record(r, *root, JsonPath{}, record)) return r.error();
  return record;
}

}  // namespace remat::records
