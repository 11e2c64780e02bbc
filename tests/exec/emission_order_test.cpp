// The order of backward ops, rule by rule, against what libtorch's autograd calls: a RecordFunction
// observer records the ATen ops each backward function runs (docs/spec/partitioning.md §4:
// measured, not guessed).
#include <ATen/record_function.h>
#include <gtest/gtest.h>
#include <torch/csrc/autograd/autograd.h>

#include <map>
#include <mutex>
#include <random>

#include "ops/aten_samples.h"
#include "remat/autodiff/derivative_rules.h"
#include "remat/autodiff/joint_graph.h"
#include "remat/exec/interpreter.h"
#include "remat/ops/op_builder.h"
#include "remat/ops/op_registry.h"

namespace remat {
namespace {

struct Recorded {
  std::string name;
  int depth;
  bool backward_function;
};
std::mutex recorded_mutex;
std::vector<Recorded> recorded;
thread_local int depth = 0;

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  std::lock_guard lock(recorded_mutex);
  recorded.push_back({fn.name(), depth++, fn.scope() == at::RecordScope::BACKWARD_FUNCTION});
  return nullptr;
}
void on_end(const at::RecordFunction&, at::ObserverContext*) {
  --depth;
}

// The ATen ops (as `mm`, `t`, ...) the first non-AccumulateGrad backward function ran directly.
std::vector<std::string> formula_ops() {
  std::vector<std::string> out;
  int fn_depth = -1;
  for (const Recorded& r : recorded) {
    if (r.backward_function) {
      if (fn_depth >= 0) break;
      if (r.name.find("AccumulateGrad") == std::string::npos) fn_depth = r.depth;
      continue;
    }
    if (fn_depth >= 0 && r.depth == fn_depth + 1 && r.name.starts_with("aten::"))
      out.push_back(r.name.substr(6));
  }
  return out;
}

// Our backward: the joint's backward ops without the unpacking detaches, getitems and the engine's
// reductions and accumulation (the rules' own emission).
std::vector<std::string> rule_ops(const GraphModule& joint) {
  std::vector<std::string> out;
  for (const Node* n : joint.graph().nodes()) {
    if (n->op() != OpKind::CallFunction || n->meta.partitioner_tag != PartitionerTag::IsBackward)
      continue;
    std::string_view t = n->target().view();
    if (t == "aten.detach.default" || t == "operator.getitem") continue;
    std::string name(t.substr(5, t.rfind('.') - 5));
    out.push_back(name);
  }
  return out;
}

TEST(EmissionOrder, RulesEmitWhatLibtorchsAutogradRuns) {
  auto gens = testing::aten_generators();
  std::mt19937 rng(17);
  auto handle = at::addGlobalCallback(
      at::RecordFunctionCallback(on_start, on_end)
          .scopes({at::RecordScope::FUNCTION, at::RecordScope::BACKWARD_FUNCTION}));
  std::vector<std::string> mismatches;
  for (const autodiff::DerivativeRule& rule : autodiff::all_rules()) {
    const OpInfo* op = find_op(rule.target);
    testing::Sample s(rng);
    gens.at(std::string(rule.target))(s);
    for (Node* p : s.graph.placeholders()) {
      TensorMeta t = *p->meta.tensor();
      t.requires_grad = t.dtype == DType::Float32;
      p->meta.set_tensor(t);
    }
    auto appended = append_op(s.graph, *op, s.args, s.kwargs);
    if (!appended) continue;
    std::vector<Argument> outputs;
    for (Node* out : appended->outputs)
      outputs.push_back(out ? Argument::node(out) : Argument::none());
    s.graph.output(Argument::list(std::move(outputs)));
    auto joint = autodiff::build_joint_graph(s.module);
    ASSERT_TRUE(joint.ok()) << rule.target;
    // libtorch: the same call on leaves that require grad, then autograd.grad.
    // Leaves: the primals the joint graph differentiates (batch norm's running stats are not).
    std::vector<Argument> joint_out = joint->outputs();
    size_t num_fwd = static_cast<size_t>(*joint->num_fwd_outputs);
    std::vector<c10::IValue> inputs;
    std::vector<at::Tensor> leaves;
    size_t k = 0;
    for (Node* p : s.graph.placeholders()) {
      at::Tensor v = s.values.at(p).detach().clone();
      if (!joint_out[num_fwd + k++].is_none()) {
        v.requires_grad_(true);
        leaves.push_back(v);
      }
      inputs.emplace_back(v);
    }
    if (leaves.empty()) continue;
    auto outs = exec::run_graph(s.module, inputs, {.grad_mode = true});
    ASSERT_TRUE(outs.ok()) << rule.target << format_all(outs.errors());
    std::vector<at::Tensor> roots, grads_out;
    for (const c10::IValue& v : *outs) {
      if (v.isTensor() && v.toTensor().requires_grad()) {
        roots.push_back(v.toTensor());
        grads_out.push_back(at::ones_like(v.toTensor()));
      }
    }
    if (roots.empty()) continue;
    {
      std::lock_guard lock(recorded_mutex);
      recorded.clear();
    }
    torch::autograd::grad(roots, leaves, grads_out, false, false, /*allow_unused=*/true);
    std::vector<std::string> want, got = rule_ops(*joint);
    // Composites appear as what they trace to; lift_fresh wraps a Python number.
    static const std::map<std::string, std::string> kTracesAs = {
        {"reshape", "view"},
        {"narrow", "slice"},
        {"to", "_to_copy"},
        {"embedding_backward", "embedding_dense_backward"}};
    for (std::string w : formula_ops()) {
      if (w == "lift_fresh") continue;
      // where's formula calls where(cond, grad, 0): a composite that traces as scalar_tensor +
      // where.self.
      if (rule.target == "aten.where.self" && w == "where") want.push_back("scalar_tensor");
      auto it = kTracesAs.find(w);
      want.push_back(it == kTracesAs.end() ? w : it->second);
    }
    // Known: libtorch 1.13's addmm formula fills a buffer in place (functionalized away in graphs);
    // SplitBackward0 calls no op directly in 1.13 (its cat runs inside a composite); CatBackward0
    // narrows inputs that need no gradient too, which the joint graph's dead-code elimination
    // drops.
    if (rule.target == "aten.addmm.default" && !want.empty() && want.back() == "fill_")
      want.pop_back();
    if (rule.target == "aten.split.Tensor" && want.empty()) continue;
    if (rule.target == "aten.cat.default") {
      std::erase(want, std::string("slice"));
      std::erase(got, std::string("slice"));
    }
    // The engine's sum_to (broadcast inputs) runs outside the backward function in libtorch; in
    // the joint graph it follows the formulas as sum (+ view).
    while (got.size() > want.size() && (got.back() == "sum" || got.back() == "view"))
      got.pop_back();
    if (want != got) {
      std::string line = std::string(rule.target) + ": libtorch";
      for (const auto& w : want) line += " " + w;
      line += " | remat";
      for (const auto& g : got) line += " " + g;
      mismatches.push_back(line);
    }
  }
  at::removeCallback(handle);
  for (const auto& m : mismatches) std::printf("%s\n", m.c_str());
  EXPECT_TRUE(mismatches.empty()) << mismatches.size() << " rules differ";
}

}  // namespace
}  // namespace remat
