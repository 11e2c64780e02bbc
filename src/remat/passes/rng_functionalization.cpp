#include "remat/passes/rng_functionalization.h"

#include "remat/ir/graph.h"
#include "remat/ops/aten_overloads.h"
#include "remat/ops/op_registry.h"
#include "remat/passes/recompute_tag_cleanup.h"
#include "remat/support/assert.h"

namespace remat::passes {

bool replays_rng_state(const Node& n) {
  if (n.op() != OpKind::CallFunction) return false;
  if (node_is(n, OpCategory::Random)) return true;
  // PyTorch replays a seeded op outside remat's registry (CPU attention, with its dropout_p)
  // only where a checkpoint tag makes it recompute the op.
  return must_recompute(n) && torch_seeded_overload(n.target().view());
}

std::vector<std::string> functionalize_recomputed_rng(ForwardBackward& graphs) {
  Graph& fw = graphs.forward.graph();
  Graph& bw = graphs.backward.graph();
  std::vector<Node*> recomputed;
  // In forward (joint) order, as PyTorch numbers the states.
  for (const Node* f : fw.nodes()) {
    Node* n = bw.find(f->name());
    if (n != nullptr && replays_rng_state(*n)) recomputed.push_back(n);
  }
  std::vector<std::string> changed;
  Node* first_tangent = nullptr;
  for (Node* p : bw.placeholders()) {
    if (is_tangent(*p)) {
      first_tangent = p;
      break;
    }
  }
  std::vector<Argument> states;
  for (size_t k = 0; k < recomputed.size(); ++k) {
    Node* b = recomputed[k];
    std::string name = b->name();
    std::string state_name = "rng_state_output_" + std::to_string(k);
    // Forward: (state, value) = run_and_save_rng_state(op, *args); users read the value.
    Node* f = fw.find(name);
    std::vector<Argument> args = {Argument::op(f->target().view())};
    args.insert(args.end(), f->args().begin(), f->args().end());
    std::vector<Kwarg> kwargs(f->kwargs().begin(), f->kwargs().end());
    fw.set_insert_point(f);
    Node* saved = fw.create_node(OpKind::CallFunction, "higher_order.run_and_save_rng_state",
                                 std::move(args), std::move(kwargs));
    Node* state = fw.create_node_exact(OpKind::CallFunction, InternedString("operator.getitem"),
                                       state_name, {Argument::node(saved), Argument::integer(0)});
    REMAT_ASSERT(state != nullptr) << state_name << " is taken";
    fw.set_insert_point(nullptr);
    saved->meta.stack_trace = f->meta.stack_trace;
    // The op's node becomes the value getitem: its name, metadata and users stay.
    f->set_target(InternedString("operator.getitem"));
    f->set_args({Argument::node(saved), Argument::integer(1)});
    f->set_kwargs({});
    states.push_back(Argument::node(state));
    // Backward: the state comes in before the tangents; the op runs with it.
    bw.set_insert_point(first_tangent);
    Node* input = bw.create_node_exact(OpKind::Placeholder, InternedString(state_name), state_name);
    bw.set_insert_point(nullptr);
    REMAT_ASSERT(input != nullptr) << state_name << " is taken";
    std::vector<Argument> wrapped = {Argument::node(input), Argument::op(b->target().view())};
    wrapped.insert(wrapped.end(), b->args().begin(), b->args().end());
    b->set_target(InternedString("higher_order.run_with_rng_state"));
    b->set_args(std::move(wrapped));
    changed.push_back(name);
  }
  if (!states.empty()) {
    // Forward outputs: real outputs, saved tensors, RNG states, then saved symints.
    Node* out = fw.output_node();
    std::vector<Argument> outputs(out->args()[0].elements().begin(),
                                  out->args()[0].elements().end());
    size_t at = outputs.size() - graphs.saved_symints.size();
    outputs.insert(outputs.begin() + static_cast<long>(at), states.begin(), states.end());
    out->set_arg(0, Argument::list(std::move(outputs)));
  }
  return changed;
}

PassInfo rng_functionalization_pass() {
  PassInfo p;
  p.name = "rng-functionalization";
  p.summary =
      "random ops both graphs run: the forward saves its RNG state for them, the backward "
      "replays it (run_and_save_rng_state / run_with_rng_state)";
  p.on_pair = [](ForwardBackward& graphs) -> Expected<PassResult> {
    PassResult r;
    for (std::string& name : functionalize_recomputed_rng(graphs))
      r.remarks.push_back({std::move(name), "replays the forward's RNG state in the backward", ""});
    r.changed = !r.remarks.empty();
    r.statistics.emplace_back("replayed", static_cast<int64_t>(r.remarks.size()));
    return r;
  };
  return p;
}

}  // namespace remat::passes
