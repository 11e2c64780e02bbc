#include "remat/autodiff/backward_context.h"

#include "remat/ops/op_registry.h"
#include "remat/ops/shape_rules.h"
#include "remat/support/assert.h"

namespace remat::autodiff {

BackwardContext::BackwardContext(Graph& graph, Node* forward, const BoundCall& call,
                                 std::vector<InputSlot> slots, std::vector<Node*> outputs,
                                 std::vector<Node*> grads, std::vector<Node*> saved)
    : graph_(graph),
      forward_(forward),
      call_(call),
      slots_(std::move(slots)),
      outputs_(std::move(outputs)),
      grads_(std::move(grads)),
      saved_(std::move(saved)),
      slot_grads_(slots_.size(), nullptr) {}

int BackwardContext::slot_index(size_t arg, size_t element) const {
  for (size_t i = 0; i < slots_.size(); ++i) {
    if (slots_[i].arg == arg && slots_[i].element == element) return static_cast<int>(i);
  }
  return -1;
}

Node* BackwardContext::input(size_t i, size_t element) const {
  int s = slot_index(i, element);
  REMAT_ASSERT(s >= 0) << forward_->target().view() << ": argument " << i << " is not a tensor";
  return slots_[s].value;
}

bool BackwardContext::needs_grad(size_t i, size_t element) const {
  int s = slot_index(i, element);
  return s >= 0 && slots_[s].requires_grad;
}

void BackwardContext::set_grad(size_t i, Node* grad, size_t element) {
  int s = slot_index(i, element);
  if (s < 0 || !slots_[s].requires_grad) return;
  slot_grads_[s] = grad;
}

AppendedOp BackwardContext::emit_tuple(std::string_view target, std::vector<Argument> args,
                                       std::vector<Kwarg> kwargs) {
  const OpInfo* op = find_op(target);
  REMAT_ASSERT(op != nullptr) << "a derivative rule emits an op the registry lacks: " << target;
  auto appended = append_op(graph_, *op, std::move(args), std::move(kwargs));
  REMAT_ASSERT(appended.ok()) << "backward of " << forward_->name() << ": "
                              << format_all(appended.errors());
  emitted_.insert(emitted_.end(), appended->nodes.begin(), appended->nodes.end());
  return std::move(*appended);
}

Node* BackwardContext::emit(std::string_view target, std::vector<Argument> args,
                            std::vector<Kwarg> kwargs) {
  AppendedOp op = emit_tuple(target, std::move(args), std::move(kwargs));
  REMAT_ASSERT(op.outputs.size() == 1) << target << " has a tuple result";
  return op.outputs[0];
}

Argument int_list(const std::vector<int64_t>& v) {
  std::vector<Argument> out;
  for (int64_t x : v) out.push_back(Argument::integer(x));
  return Argument::list(std::move(out));
}

std::vector<int64_t> sizes_of(const Node* n) {
  REMAT_ASSERT(n->meta.tensor()) << n->name() << " has no tensor metadata";
  return shape_rules::concrete(*n->meta.tensor()).sizes;
}

}  // namespace remat::autodiff
