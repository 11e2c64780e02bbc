#include "remat/report/derived_partition.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "remat/fxtext/statement_call.h"
#include "remat/fxtext/text_scan.h"
#include "remat/records/live_storage.h"
#include "remat/support/saturating_math.h"

namespace remat::report {
namespace {

/// Names of one graph's values whose storage is another's: a view -> the value it views.
using StorageOwners = std::unordered_map<std::string_view, std::string_view>;

/// Live bytes over one graph, counted as remat counts its own (records::LiveStorage): `held`
/// names the step's inputs, alive throughout, and `outside` is what those this graph does not
/// read weigh; `saved_views` are inputs the forward saved as views of another value. Each
/// statement's value is born when it runs and dies on the line that frees it. Returns which of
/// the graph's values are views of which.
StorageOwners walk(LoggedGraph g, const std::set<std::string_view>& held, int64_t outside,
                   const StorageOwners& saved_views, std::vector<records::CurveStep>& steps) {
  const std::vector<GraphLine>& nodes = *g.nodes;
  std::vector<std::string_view> lines = fxtext::split_lines(g.text);
  std::unordered_map<std::string_view, size_t> index;
  for (size_t i = 0; i < nodes.size(); ++i) index.try_emplace(nodes[i].name, i);
  auto index_of = [&](std::string_view name) {
    auto at = index.find(name);
    return at == index.end() ? std::optional<size_t>() : std::optional<size_t>(at->second);
  };
  records::LiveStorage storage(nodes.size());
  storage.add_outside(outside);
  auto bytes_of = [](const GraphLine& n) { return static_cast<int64_t>(n.bytes.value_or(0)); };
  std::vector<size_t> views;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GraphLine& n = nodes[i];
    if (!n.input) continue;
    if (saved_views.contains(n.name))
      views.push_back(i);  // once the storage it views is placed
    else if (held.contains(n.name))
      storage.hold(i, bytes_of(n));
    else
      storage.allocate(i, bytes_of(n));
  }
  for (size_t i : views) {
    std::string_view base = saved_views.at(nodes[i].name);
    std::optional<size_t> at = index_of(base);
    if (at && !nodes[*at].input) at.reset();
    storage.saved_view(i, at, held.contains(base), bytes_of(nodes[i]));
  }
  steps.push_back({"", 0, storage.live()});
  std::vector<std::string_view> freed;  // reused: a statement per line
  for (size_t i = 0; i < nodes.size(); ++i) {
    const GraphLine& n = nodes[i];
    if (n.input) continue;
    std::string_view line = n.line < lines.size() ? lines[n.line] : std::string_view();
    fxtext::StatementCall call = fxtext::statement_call(line);
    std::optional<size_t> first = index_of(call.first);
    if (first && fxtext::shares_input_storage(call.target))
      storage.alias(i, *first);
    else if (first && call.target == "operator.getitem")
      storage.take_from(i, *first, bytes_of(n));
    else
      storage.allocate(i, bytes_of(n));
    steps.push_back({n.name, bytes_of(n), storage.live()});
    freed_names(line, freed);
    for (std::string_view name : freed)
      if (std::optional<size_t> at = index_of(name)) storage.release(*at);
  }
  StorageOwners owners;
  for (size_t i = 0; i < nodes.size(); ++i)
    if (storage.owner(i) != i) owners.emplace(nodes[i].name, nodes[storage.owner(i)].name);
  return owners;
}

records::RegionMap region_map(const std::vector<GraphLine>& joint, const PartitionMarks& marks) {
  records::RegionMapBuilder map;
  for (const GraphLine& n : joint)
    map.add(n.name, n.ac_graph_id, marks.saved.contains(n.name) && !marks.inputs.contains(n.name),
            marks.recomputed.contains(n.name));
  map.add("output", std::nullopt, false, false);  // the joint's output node, as in remat's maps
  return std::move(map).finish();
}

}  // namespace

void freed_names(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  // The last statement of the line, after its last top-level `;  `. When what follows the last
  // `;  ` holds nothing but names, ` = ` and spaces (`;  a = b = None`), that `;  ` is at the top
  // level (no quote or bracket after it could close one it were in), and the line need not be
  // scanned from its start.
  size_t last_semi = line.rfind(";  ");
  auto plain = [](char c) { return fxtext::is_identifier_char(c) || c == ' ' || c == '='; };
  if (last_semi == std::string_view::npos) return;
  if (!std::all_of(line.begin() + static_cast<std::ptrdiff_t>(last_semi) + 3, line.end(), plain)) {
    last_semi = std::string_view::npos;
    fxtext::find_outside_quotes(line, 0, [&](char c, size_t i, int depth) {
      if (depth == 0 && c == ';' && line.substr(i + 1, 2) == "  ") last_semi = i;
      return false;
    });
  }
  if (last_semi == std::string_view::npos) return;
  std::string_view last = fxtext::trim(line.substr(last_semi + 3));
  constexpr std::string_view kNone = " = None";
  if (!last.ends_with(kNone)) return;
  last.remove_suffix(kNone.size());
  fxtext::for_each_top_level(last, " = ", [&](std::string_view name) {
    name = fxtext::trim(name);
    if (!name.empty() && std::all_of(name.begin(), name.end(), fxtext::is_identifier_char))
      out.push_back(name);
    return true;
  });
}

std::vector<std::string_view> freed_names(std::string_view line) {
  std::vector<std::string_view> out;
  freed_names(line, out);
  return out;
}

void credit_random_recomputation(PartitionMarks& marks, LoggedGraph forward, LoggedGraph backward,
                                 LoggedGraph joint) {
  if (forward.nodes) {
    // The forward names the state and the result tuple of each run_and_save_rng_state (the n-th
    // is `run_and_save_rng_state_n`) itself: those names may be the joint's names of other nodes,
    // even of another random op's getitems, which drop_name_collisions cannot tell apart.
    constexpr std::string_view kSave = "torch.ops.higher_order.run_and_save_rng_state(";
    std::vector<std::string_view> fw_lines = fxtext::split_lines(forward.text);
    std::set<std::string_view> saving;
    for (const GraphLine& n : *forward.nodes) {
      if (n.input || n.line >= fw_lines.size()) continue;
      std::string_view rhs = fxtext::statement_right_hand_side(fw_lines[n.line]);
      if (rhs.starts_with(kSave)) {
        saving.insert(n.name);
        continue;
      }
      size_t bracket = rhs.find('[');
      if (bracket == std::string_view::npos || !saving.contains(rhs.substr(0, bracket))) continue;
      if (marks.recomputed.erase(n.name) > 0) marks.why.erase(n.name);
    }
  }
  constexpr std::string_view kState = "rng_state_output_";
  for (auto it = marks.saved.begin(); it != marks.saved.end();) {
    if (!std::string_view(it->first).starts_with(kState)) {
      ++it;
      continue;
    }
    marks.inputs.erase(it->first);
    marks.why.erase(it->first);
    it = marks.saved.erase(it);
  }
  if (!backward.nodes || !joint.nodes) return;
  constexpr std::string_view kRun = "torch.ops.higher_order.run_with_rng_state(";
  std::vector<std::string_view> bw_lines = fxtext::split_lines(backward.text);
  std::set<std::string> calls;  // "OP(ARGS)", as the joint writes the call
  for (const GraphLine& n : *backward.nodes) {
    if (n.input || n.line >= bw_lines.size()) continue;
    std::string_view rhs = fxtext::statement_right_hand_side(bw_lines[n.line]);
    if (!rhs.starts_with(kRun) || !rhs.ends_with(")")) continue;
    std::vector<std::string_view> args =
        fxtext::split_top_level(rhs.substr(kRun.size(), rhs.size() - kRun.size() - 1), ", ");
    if (args.size() < 2) continue;
    std::string call = std::string(args[1]) + "(";
    for (size_t i = 2; i < args.size(); ++i) call += (i > 2 ? ", " : "") + std::string(args[i]);
    calls.insert(call + ")");
  }
  if (calls.empty()) return;
  std::vector<std::string_view> joint_lines = fxtext::split_lines(joint.text);
  for (const GraphLine& n : *joint.nodes) {
    if (n.input || n.line >= joint_lines.size()) continue;
    if (!calls.contains(std::string(fxtext::statement_right_hand_side(joint_lines[n.line]))))
      continue;
    marks.recomputed.insert(n.name);
    marks.why[n.name] =
        "random: the backward runs it again with the random state the forward saved "
        "(run_with_rng_state)";
  }
}

namespace {

/// The op that makes `name` in one graph, looking through getitems to the call they take from
/// (`getitem_1 = native_dropout[1]` -> aten.native_dropout.default); empty when unknown. The
/// random state's getitem and the random result's are both the random op's: a collision between
/// the two is left to credit_random_recomputation.
std::string_view making_op(std::string_view name,
                           const std::unordered_map<std::string_view, std::string_view>& lines) {
  for (int depth = 0; depth < 4; ++depth) {  // getitems nest (a tuple of tuples), not deeply
    auto line = lines.find(name);
    if (line == lines.end()) return {};
    fxtext::StatementCall call = fxtext::statement_call(line->second);
    // A random op the backward recomputes runs in the forward as run_and_save_rng_state(OP, ...)
    // and in the backward as run_with_rng_state(STATE, OP, ...): one op.
    if (call.target == "higher_order.run_and_save_rng_state")
      return "higher_order.run_with_rng_state";
    if (call.target != "operator.getitem") return call.target;
    name = call.first;
  }
  return {};
}

std::unordered_map<std::string_view, std::string_view> statement_lines(LoggedGraph g) {
  std::unordered_map<std::string_view, std::string_view> out;
  std::vector<std::string_view> lines = fxtext::split_lines(g.text);
  for (const GraphLine& n : *g.nodes)
    if (!n.input && n.line < lines.size()) out.try_emplace(n.name, lines[n.line]);
  return out;
}

}  // namespace

void drop_name_collisions(PartitionMarks& marks, LoggedGraph forward, LoggedGraph backward) {
  if (!forward.nodes || !backward.nodes || marks.recomputed.empty()) return;
  auto fw = statement_lines(forward), bw = statement_lines(backward);
  for (auto it = marks.recomputed.begin(); it != marks.recomputed.end();) {
    std::string_view a = making_op(*it, fw), b = making_op(*it, bw);
    if (a.empty() || b.empty() || a == b) {
      ++it;
      continue;
    }
    marks.why.erase(*it);
    it = marks.recomputed.erase(it);
  }
}

void drop_constant_reads(PartitionMarks& marks, LoggedGraph backward) {
  if (!backward.nodes) return;
  std::vector<std::string_view> lines = fxtext::split_lines(backward.text);
  for (const GraphLine& n : *backward.nodes) {
    if (n.input || n.line >= lines.size() || !marks.recomputed.contains(n.name)) continue;
    if (!fxtext::statement_right_hand_side(lines[n.line]).starts_with("self.")) continue;
    marks.recomputed.erase(n.name);
    marks.why.erase(n.name);
  }
}

PartitionMarks marks_read_off_graphs(LoggedGraph forward, LoggedGraph backward, LoggedGraph joint) {
  PartitionMarks marks = marks_from_graphs(*forward.nodes, *backward.nodes);
  drop_name_collisions(marks, forward, backward);
  credit_random_recomputation(marks, forward, backward, joint);
  drop_constant_reads(marks, backward);
  return marks;
}

records::PartitionRecord derived_record(const PartitionMarks& marks, LoggedGraph forward,
                                        LoggedGraph backward, const std::vector<GraphLine>* joint) {
  records::PartitionRecord record;
  record.strategy = "PyTorch's partition";
  record.stage = marks.source;
  // A saved value the forward graph takes as an input (a parameter, a primal) costs no
  // activation memory: the backward reads it anyway.
  std::set<std::string_view> forward_inputs;
  if (forward.nodes)
    for (const GraphLine& g : *forward.nodes)
      if (g.input) forward_inputs.insert(g.name);
  for (const auto& [name, bytes] : marks.saved) {
    auto why = marks.why.find(name);
    records::SavedValue& v = record.saved_values.emplace_back();
    v.name = name;
    v.bytes = static_cast<int64_t>(bytes);
    v.reason = why == marks.why.end() ? "" : why->second;
    v.input = forward_inputs.contains(name);
    record.saved_bytes_total += v.bytes;
  }
  for (const std::string& name : marks.recomputed) {
    auto why = marks.why.find(name);
    record.recomputed.push_back({name, "", why == marks.why.end() ? "" : why->second, {}});
  }
  // The step's inputs: the forward's, alive throughout (the backward reads some of them again).
  std::vector<records::CurveStep> steps;
  std::set<std::string_view> backward_inputs;
  if (backward.nodes)
    for (const GraphLine& g : *backward.nodes)
      if (g.input) backward_inputs.insert(g.name);
  int64_t unread = 0;
  if (forward.nodes)
    for (const GraphLine& g : *forward.nodes)
      if (g.input && !backward_inputs.contains(g.name))
        unread += static_cast<int64_t>(g.bytes.value_or(0));
  StorageOwners views;
  if (forward.nodes) views = walk(forward, forward_inputs, 0, {}, steps);
  // A saved view of an input (`view_1 = view(primals_2)`) keeps the input's storage, no more:
  // an input too, as remat's own records count it (its storage root is a placeholder).
  // Activation memory counts each saved storage once, at its root's size (a saved view of a
  // saved value adds nothing), as remat's records do (partition::activation_bytes).
  std::unordered_map<std::string_view, uint64_t> forward_bytes;
  if (forward.nodes)
    for (const GraphLine& g : *forward.nodes)
      forward_bytes.try_emplace(g.name, g.bytes.value_or(0));
  std::set<std::string_view> roots;
  int64_t activation_bytes = 0;
  for (records::SavedValue& v : record.saved_values) {
    auto owner = views.find(v.name);
    std::string_view root = owner == views.end() ? std::string_view(v.name) : owner->second;
    if (forward_inputs.contains(root)) v.input = true;
    if (v.input || !roots.insert(root).second) continue;
    auto bytes = forward_bytes.find(root);
    activation_bytes =
        sat_add(activation_bytes,
                bytes == forward_bytes.end() ? v.bytes : static_cast<int64_t>(bytes->second));
  }
  record.activation_bytes = activation_bytes;
  size_t forward_steps = steps.size();
  std::erase_if(views, [&](const auto& v) { return !backward_inputs.contains(v.first); });
  if (backward.nodes) walk(backward, forward_inputs, unread, views, steps);
  records::PartitionCharts& charts = record.charts.emplace();
  charts.memory.push_back(
      records::memory_curve("PyTorch's partition (read off its graphs)", steps, forward_steps));
  record.peak_memory_bytes = charts.memory.front().peak_bytes;
  record.notes.push_back(
      "read off the forward and backward graphs PyTorch logged: bytes from their annotations, "
      "lifetimes from their `= None` deletions; no budget sweep (that takes remat's "
      "partitioner: `remat report` on the joint graph file runs it)");
  if (joint) charts.regions = region_map(*joint, marks);
  return record;
}

}  // namespace remat::report
