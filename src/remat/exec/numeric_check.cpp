#include "remat/exec/numeric_check.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/autograd.h>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "remat/exec/interpreter.h"
#include "remat/fxtext/traceback.h"
#include "remat/ir/graph.h"
#include "remat/passes/dead_code.h"
#include "remat/support/json_writer.h"

namespace remat::exec {
namespace {

Comparison compare(std::string what, const c10::IValue& expected, const c10::IValue& actual,
                   const CheckOptions& o) {
  Comparison c;
  c.what = std::move(what);
  bool e_none = expected.isNone() || (expected.isTensor() && !expected.toTensor().defined());
  bool a_none = actual.isNone() || (actual.isTensor() && !actual.toTensor().defined());
  if (e_none || a_none) {
    c.absent = e_none && a_none;
    // An absent gradient equals a zero one.
    const c10::IValue& other = e_none ? actual : expected;
    if (!(e_none && a_none) &&
        !(other.isTensor() && other.toTensor().abs().max().item<double>() == 0)) {
      c.ok = false;
      c.problem = e_none ? "expected None, got a value" : "expected a value, got None";
    }
    return c;
  }
  if (!expected.isTensor() || !actual.isTensor()) {
    c.ok = expected == actual;
    if (!c.ok) c.problem = "values differ";
    return c;
  }
  at::Tensor e = expected.toTensor().detach(), a = actual.toTensor().detach();
  if (e.sizes() != a.sizes()) {
    c.ok = false;
    c.problem = fmt::format("sizes differ: expected {}, got {}", fmt::join(e.sizes(), ","),
                            fmt::join(a.sizes(), ","));
    return c;
  }
  if (e.scalar_type() != a.scalar_type()) {
    c.ok = false;
    c.problem = std::string("dtypes differ: expected ") + c10::toString(e.scalar_type()) +
                ", got " + c10::toString(a.scalar_type());
    return c;
  }
  if (e.numel() == 0) return c;
  if (!at::isFloatingType(e.scalar_type())) {
    c.ok = at::equal(e, a);
    if (!c.ok) c.problem = "integer values differ";
    return c;
  }
  at::Tensor ed = e.to(at::kDouble), ad = a.to(at::kDouble);
  // Equal values, infinities included, and NaN in both (sqrt of a negative input, 0/0) agree.
  at::Tensor same = (ad == ed).logical_or(at::isnan(ed).logical_and(at::isnan(ad)));
  at::Tensor diff = (ad - ed).abs().masked_fill(same, 0);
  c.max_abs = diff.max().item<double>();
  c.max_rel = (diff / ed.abs().clamp_min(1e-12)).masked_fill(same, 0).max().item<double>();
  c.ok = (diff <= o.atol + o.rtol * ed.abs().masked_fill(same, 0)).all().item<bool>();
  if (!c.ok && c.problem.empty()) c.problem = "beyond tolerance";
  return c;
}

std::string describe_output(const GraphModule& m, size_t i, const Argument& value) {
  const Node* out = m.graph().output_node();
  std::string name = value.is_node() ? value.as_node()->name() : "None";
  const Argument& desc = out ? out->meta.desc() : Argument::none();
  if (desc.is(ArgKind::List) && i < desc.elements().size() &&
      desc.elements()[i].is(ArgKind::String)) {
    return name + " (" + std::string(desc.elements()[i].as_text()) + ")";
  }
  return name;
}

Expected<std::vector<c10::IValue>> run_seeded(const GraphModule& m,
                                              const std::vector<c10::IValue>& inputs,
                                              const CheckOptions& o, RunOptions run) {
  at::manual_seed(o.seed + 1);  // the same random-op draws in every run compared
  if (o.progress) {
    std::string what = m.graph_name.empty() ? "graph" : m.graph_name;
    run.progress = [&o, what](size_t done, size_t total) { o.progress(what, done, total); };
  }
  return run_graph(m, inputs, run);
}

/// Whether the model's code made detach node `n` (`x.detach()`, `detach_()`): its traceback's
/// innermost line says so.
bool models_own_detach(const Node& n) {
  std::optional<fxtext::TracebackFrame> line = fxtext::innermost_frame(n.meta.stack_trace.view());
  return !line || line->code.find("detach") != std::string_view::npos;
}

/// The joint's forward part: outputs[:k] and what they need (the tangents stay as unused
/// inputs), which the reference differentiates with libtorch's autograd.
GraphModule forward_part(const GraphModule& joint, size_t num_fwd) {
  GraphModule f = joint.clone();
  std::vector<Argument> outputs = f.outputs();
  outputs.resize(num_fwd);
  Graph& g = f.graph();
  Node* old = g.output_node();
  g.set_insert_point(old);
  Node* out = g.output(Argument::list(std::move(outputs)));
  g.erase(old);
  g.set_insert_point(nullptr);
  (void)out;
  passes::eliminate_dead_code(g);
  // Functionalization detaches tensors it changed in place (`out` after `out[i] = v`, read by
  // `out + h.cos()`), where autograd carried the gradient on: through those the reference keeps
  // it (an alias). A model's own `.detach()`, as its traceback shows, stops it.
  for (Node* n : g.nodes())
    if (n->target().view() == "aten.detach.default" && !n->meta.stack_trace.is_null() &&
        !models_own_detach(*n))
      n->set_target(InternedString("aten.alias.default"));
  return f;
}

}  // namespace

bool CheckReport::ok() const {
  for (const Comparison& c : comparisons) {
    if (!c.ok) return false;
  }
  return true;
}

size_t CheckReport::values_compared() const {
  return static_cast<size_t>(
      std::ranges::count_if(comparisons, [](const Comparison& c) { return !c.absent; }));
}

std::vector<MeasuredStep>::const_iterator CheckReport::measured_peak() const {
  return std::max_element(
      memory.begin(), memory.end(),
      [](const MeasuredStep& a, const MeasuredStep& b) { return a.live < b.live; });
}

std::string CheckReport::text() const {
  std::string out;
  size_t bad = 0;
  for (const Comparison& c : comparisons) {
    bad += !c.ok;
    if (c.absent) {
      out += fmt::format("ok   {}: None on both sides (no gradient)\n", c.what);
      continue;
    }
    out += fmt::format("{} {}: max abs {:.3g}, max rel {:.3g}{}\n", c.ok ? "ok  " : "FAIL", c.what,
                       c.max_abs, c.max_rel, c.problem.empty() ? "" : " (" + c.problem + ")");
  }
  size_t absent = comparisons.size() - values_compared();
  out += fmt::format("check: {} values compared, {} beyond tolerance{}\n", values_compared(), bad,
                     absent ? fmt::format(" ({} None on both sides)", absent) : "");
  return out;
}

std::string CheckReport::json() const {
  size_t bad = 0;
  double max_abs = 0, max_rel = 0;
  for (const Comparison& c : comparisons) {
    bad += !c.ok;
    // NaN wins: a value that is not a number is the worst error there is.
    max_abs = std::isnan(c.max_abs) || c.max_abs > max_abs ? c.max_abs : max_abs;
    max_rel = std::isnan(c.max_rel) || c.max_rel > max_rel ? c.max_rel : max_rel;
    if (std::isnan(max_abs) && std::isnan(max_rel)) break;
  }
  std::string out;
  json::JsonWriter w(out);
  w.begin_object()
      .field("values", static_cast<int64_t>(values_compared()))
      .field("beyond_tolerance", static_cast<int64_t>(bad));
  for (auto [name, v] : {std::pair{"max_abs_error", max_abs}, {"max_rel_error", max_rel}}) {
    if (std::isfinite(v))
      w.field(name, v);
    else
      w.field(name, std::isnan(v) ? "nan" : "inf");  // JSON has no spelling for them
  }
  if (auto peak = measured_peak(); peak != memory.end()) {
    w.field("measured_peak_bytes", peak->live)
        .field("measured_peak_node", peak->node)
        .field("measured_peak_in", peak->backward ? "backward" : "forward");
    w.key("memory").begin_array();
    for (const MeasuredStep& m : memory) {
      w.begin_object()
          .field("node", m.node)
          .field("backward", m.backward)
          .field("live", m.live)
          .end_object();
    }
    w.end_array();
  }
  w.end_object();
  return out + "\n";
}

Expected<CheckReport> check_joint(const GraphModule& joint, const CheckOptions& o) {
  if (Status shape = check_joint_shape(joint, /*needs_tangents=*/false); !shape)
    return shape.errors();
  auto inputs = random_inputs(joint, o.seed);
  REMAT_TRY(inputs);
  auto joint_out = run_seeded(joint, *inputs, o, {.grad_mode = false, .check_metadata = true});
  REMAT_TRY(joint_out);
  size_t num_fwd = num_forward_outputs(joint);
  std::vector<Argument> outputs = joint.outputs();
  std::vector<Node*> placeholders = joint.graph().placeholders();
  std::vector<size_t> primal_index, tangent_index;
  for (size_t i = 0; i < placeholders.size(); ++i)
    (is_tangent(*placeholders[i]) ? tangent_index : primal_index).push_back(i);
  // The reference: autograd through the forward part, on the same primals and tangents.
  std::vector<c10::IValue> ref_inputs = *inputs;
  std::vector<at::Tensor> wrt;
  std::vector<size_t> wrt_primal;
  for (size_t k = 0; k < primal_index.size(); ++k) {
    c10::IValue& v = ref_inputs[primal_index[k]];
    if (!outputs[num_fwd + k].is_node() || !v.isTensor() ||
        !at::isFloatingType(v.toTensor().scalar_type()))
      continue;
    at::Tensor leaf = v.toTensor().detach().clone().requires_grad_(true);
    v = leaf;
    wrt.push_back(leaf);
    wrt_primal.push_back(k);
  }
  GraphModule fwd = forward_part(joint, num_fwd);
  auto fwd_out = run_seeded(fwd, ref_inputs, o, {.grad_mode = true, .check_metadata = false});
  REMAT_TRY(fwd_out);
  CheckReport report;
  for (size_t i = 0; i < num_fwd; ++i) {
    report.comparisons.push_back(compare("forward output " + describe_output(joint, i, outputs[i]),
                                         (*fwd_out)[i], (*joint_out)[i], o));
  }
  // Tangents pair with the forward outputs that require grad, in order.
  std::vector<at::Tensor> roots, tangents;
  size_t t = 0;
  for (size_t i = 0; i < num_fwd && t < tangent_index.size(); ++i) {
    const c10::IValue& v = (*fwd_out)[i];
    if (!v.isTensor() || !v.toTensor().requires_grad()) continue;
    roots.push_back(v.toTensor());
    tangents.push_back((*inputs)[tangent_index[t++]].toTensor());
  }
  std::vector<at::Tensor> grads;
  if (!roots.empty() && !wrt.empty()) {
    try {
      grads = torch::autograd::grad(roots, wrt, tangents, /*retain_graph=*/false,
                                    /*create_graph=*/false, /*allow_unused=*/true);
    } catch (const c10::Error& e) {
      return error_message(std::string("libtorch autograd failed: ") + e.what_without_backtrace());
    }
  }
  for (size_t k = 0; k < primal_index.size(); ++k) {
    const c10::IValue& actual = (*joint_out)[num_fwd + k];
    c10::IValue expected;
    auto it = std::find(wrt_primal.begin(), wrt_primal.end(), k);
    if (it != wrt_primal.end() && !grads.empty()) expected = grads[it - wrt_primal.begin()];
    report.comparisons.push_back(
        compare("gradient " + describe_output(joint, num_fwd + k, outputs[num_fwd + k]), expected,
                actual, o));
  }
  return report;
}

Expected<CheckReport> check_partition(const GraphModule& joint, const GraphModule& forward,
                                      const GraphModule& backward, const CheckOptions& o) {
  auto inputs = random_inputs(joint, o.seed);
  REMAT_TRY(inputs);
  auto joint_out = run_seeded(joint, *inputs, o, {});
  REMAT_TRY(joint_out);
  std::vector<Node*> placeholders = joint.graph().placeholders();
  std::vector<c10::IValue> primals, tangents;
  for (size_t i = 0; i < placeholders.size(); ++i)
    (is_tangent(*placeholders[i]) ? tangents : primals).push_back((*inputs)[i]);
  if (forward.graph().placeholders().size() != primals.size()) {
    return error_message(
        "the forward graph takes " + std::to_string(forward.graph().placeholders().size()) +
        " inputs; the joint graph has " + std::to_string(primals.size()) + " primals");
  }
  CheckReport report;
  auto measure = [&](bool in_backward) {
    RunOptions run;
    if (!o.measure_memory) return run;
    run.held = primals;  // the step's inputs live throughout
    run.on_step = [&report, in_backward](const Node& n, int64_t live) {
      report.memory.push_back({in_backward, n.name(), live});
    };
    return run;
  };
  auto fw_out = run_seeded(forward, primals, o, measure(false));
  REMAT_TRY(fw_out);
  // The backward's inputs: the saved values (the forward's outputs after its real ones), then
  // tangents.
  std::vector<Node*> bw_placeholders = backward.graph().placeholders();
  size_t saved = 0;
  for (const Node* p : bw_placeholders) saved += !is_tangent(*p);
  if (saved > fw_out->size())
    return error_message(
        "the backward graph reads more saved values than the forward graph returns");
  size_t num_real = fw_out->size() - saved;
  // Saved values pair by name (the backward's placeholder is named after the forward value);
  // otherwise by position after the forward's real outputs.
  std::vector<Argument> fw_values = forward.outputs();
  absl::flat_hash_map<std::string, size_t> by_name;
  for (size_t i = num_real; i < fw_values.size(); ++i) {
    if (fw_values[i].is_node()) by_name.emplace(fw_values[i].as_node()->name(), i);
  }
  std::vector<c10::IValue> bw_inputs;
  size_t next_saved = num_real, next_tangent = 0;
  for (const Node* p : bw_placeholders) {
    if (is_tangent(*p)) {
      if (next_tangent >= tangents.size())
        return error_message("the backward graph takes more tangents than the joint graph has");
      bw_inputs.push_back(tangents[next_tangent++]);
    } else {
      auto it = by_name.find(p->name());
      bw_inputs.push_back((*fw_out)[it != by_name.end() ? it->second : next_saved]);
      ++next_saved;
    }
  }
  // The forward's real outputs stay with the caller; its saved values go to the backward.
  RunOptions bw_run = measure(true);
  if (o.measure_memory)
    bw_run.held.insert(bw_run.held.end(), fw_out->begin(),
                       fw_out->begin() + static_cast<std::ptrdiff_t>(num_real));
  auto bw_out = run_seeded(backward, bw_inputs, o, bw_run);
  REMAT_TRY(bw_out);
  size_t num_fwd = num_forward_outputs(joint);
  std::vector<Argument> outputs = joint.outputs();
  if (num_real != num_fwd || bw_out->size() + num_fwd != joint_out->size()) {
    return error_message("the partition does not match the joint graph: forward returns " +
                         std::to_string(num_real) + " outputs (joint: " + std::to_string(num_fwd) +
                         "), backward " + std::to_string(bw_out->size()) +
                         " gradients (joint: " + std::to_string(joint_out->size() - num_fwd) + ")");
  }
  for (size_t i = 0; i < num_fwd; ++i) {
    report.comparisons.push_back(compare("forward output " + describe_output(joint, i, outputs[i]),
                                         (*joint_out)[i], (*fw_out)[i], o));
  }
  for (size_t k = 0; k < bw_out->size(); ++k) {
    report.comparisons.push_back(
        compare("gradient " + describe_output(joint, num_fwd + k, outputs[num_fwd + k]),
                (*joint_out)[num_fwd + k], (*bw_out)[k], o));
  }
  return report;
}

}  // namespace remat::exec
