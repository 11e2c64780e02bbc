// BackwardContext: what one derivative rule sees while the joint-graph builder runs the backward
// of one forward op, and how it emits backward ops.
#pragma once

#include <string_view>
#include <vector>

#include "remat/ir/graph.h"
#include "remat/ops/bound_call.h"
#include "remat/ops/op_builder.h"

namespace remat::autodiff {

/// A tensor input of the forward op: argument `arg` of its schema, element `element` of a list
/// argument (0 otherwise). Autograd's edges, in schema order.
struct InputSlot {
  size_t arg = 0;
  size_t element = 0;
  Node* value = nullptr;  ///< the joint-graph node the forward op read
  bool requires_grad = false;
};

class BackwardContext {
 public:
  BackwardContext(Graph& graph, Node* forward, const BoundCall& call, std::vector<InputSlot> slots,
                  std::vector<Node*> outputs, std::vector<Node*> grads, std::vector<Node*> saved);

  /// The forward op (its joint-graph node) and its arguments, schema-aligned with defaults.
  [[nodiscard]] const Node& forward() const { return *forward_; }
  [[nodiscard]] const Argument& arg(size_t i) const { return call_[i]; }
  [[nodiscard]] const BoundCall& call() const { return call_; }
  /// The tensor node of argument `i` (element `element` of a list).
  [[nodiscard]] Node* input(size_t i, size_t element = 0) const;
  [[nodiscard]] bool needs_grad(size_t i, size_t element = 0) const;
  /// The forward value of output k (the op node, or its k-th getitem).
  [[nodiscard]] Node* result(size_t k = 0) const { return outputs_.at(k); }
  /// How many forward outputs the op has.
  [[nodiscard]] size_t num_results() const { return outputs_.size(); }
  /// The incoming gradient of output k; nullptr when that output got none.
  [[nodiscard]] Node* grad(size_t k = 0) const { return k < grads_.size() ? grads_[k] : nullptr; }
  /// A saved differentiable output, unpacked for the backward (`detach(detach(out))`).
  [[nodiscard]] Node* saved(size_t k = 0) const { return saved_.at(k); }

  /// Emits a single-result op; its metadata comes from the registry.
  Node* emit(std::string_view target, std::vector<Argument> args, std::vector<Kwarg> kwargs = {});
  /// Emits an op with a tuple result (getitems included).
  AppendedOp emit_tuple(std::string_view target, std::vector<Argument> args,
                        std::vector<Kwarg> kwargs = {});

  /// The gradient for argument `i` (element `element`); ignored when it needs none.
  void set_grad(size_t i, Node* grad, size_t element = 0);
  [[nodiscard]] const std::vector<InputSlot>& slots() const { return slots_; }
  [[nodiscard]] const std::vector<Node*>& slot_grads() const { return slot_grads_; }
  /// Every node emitted so far (for metadata).
  [[nodiscard]] const std::vector<Node*>& emitted() const { return emitted_; }

 private:
  [[nodiscard]] int slot_index(size_t arg, size_t element) const;

  Graph& graph_;
  Node* forward_;
  const BoundCall& call_;
  std::vector<InputSlot> slots_;
  std::vector<Node*> outputs_, grads_, saved_;
  std::vector<Node*> slot_grads_;
  std::vector<Node*> emitted_;
};

/// Shorthands for rule bodies.
inline Argument node_arg(Node* n) {
  return Argument::node(n);
}
Argument int_list(const std::vector<int64_t>& v);
std::vector<int64_t> sizes_of(const Node* n);

}  // namespace remat::autodiff
