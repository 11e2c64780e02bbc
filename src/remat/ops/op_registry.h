// The op registry: every ATen operator remat knows, looked up by FX target (`aten.mm.default`).
#pragma once

#include <span>
#include <string_view>

#include "remat/ir/node.h"
#include "remat/ops/op_info.h"

namespace remat {

/// The op for an FX target such as `aten.mm.default` (also `torch.ops.aten.mm.default`), or
/// nullptr when the registry does not know it.
const OpInfo* find_op(std::string_view target);
/// find_op for an interned target (a node's), remembered per target: after the first lookup
/// it costs a pointer hash, not a string hash and compare.
const OpInfo* find_op(InternedString target);
/// The op of a call_function node, or nullptr.
inline const OpInfo* node_op(const Node& node) {
  return node.op() == OpKind::CallFunction ? find_op(node.target()) : nullptr;
}
/// Every registered op, in registration order.
std::span<const OpInfo> all_ops();

/// Binds the arguments and infers the outputs' metadata; errors name the op and say what ATen
/// would have said (shape mismatch, bad dim, view impossible).
Expected<InferredOutputs> infer_outputs(const OpInfo& op, std::span<const Argument> args,
                                        std::span<const Kwarg> kwargs = {});
/// A call_function node whose op the registry knows and files under `category`.
bool node_is(const Node& node, OpCategory category);

/// FLOPs of a call whose outputs are known.
int64_t count_flops(const OpInfo& op, const BoundCall& call, const InferredOutputs& out);
/// FLOPs of a call_function node from its args and value metadata; 0 for unknown ops or
/// nodes without metadata.
int64_t node_flops(const Node& node);
/// FLOPs as PyTorch's FlopCounterMode counts them: compute-intensive ops (matrix multiplies,
/// convolutions) and the fused attention kernels it has a formula for, every other op 0. The memory
/// budget's runtime estimate (docs/spec/partitioning.md §7.2) and PyTorch's memory-budget tests
/// measure this.
int64_t flop_counter_flops(const Node& node);

}  // namespace remat
