// OpInfo: what remat knows about one ATen operator overload (schema, categories, inference, FLOPs).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "remat/ir/tensor_meta.h"
#include "remat/ops/bound_call.h"
#include "remat/ops/schema.h"
#include "remat/support/expected.h"

namespace remat {

/// Operator categories, as the partitioners use them (docs/spec/partitioning.md §6.5). Flags
/// combine.
enum class OpCategory : uint16_t {
  None = 0,
  Pointwise = 1 << 0,         ///< elementwise: ATen's `pointwise` tag
  View = 1 << 1,              ///< the partitioner's view_ops (not transpose, detach or reshape)
  Reduction = 1 << 2,         ///< reduces dimensions (sum, mean, amax, ...)
  Random = 1 << 3,            ///< nondeterministic_seeded (native_dropout, ...)
  ComputeIntensive = 1 << 4,  ///< matmuls and convolutions: never recomputed by default
  Recomputable = 1 << 5,      ///< in the partitioner's default recomputable_ops list
  Factory = 1 << 6,           ///< creates a tensor from sizes alone (full, zeros, ...)
  Backward = 1 << 7,          ///< a backward formula op (`*_backward`)
};
constexpr OpCategory operator|(OpCategory a, OpCategory b) {
  return static_cast<OpCategory>(static_cast<uint16_t>(a) | static_cast<uint16_t>(b));
}
constexpr bool has(OpCategory set, OpCategory flag) {
  return (static_cast<uint16_t>(set) & static_cast<uint16_t>(flag)) != 0;
}
/// `pointwise|view`: the names of the flags set, joined by `|` (`none` when empty).
std::string category_names(OpCategory c);

/// What an op returns, as metadata: one entry per schema return (a list return such as split's
/// `Tensor(a)[]` expands to one entry per element). nullopt entries are undefined tensors
/// (e.g. native_layer_norm_backward with an output_mask entry false).
struct InferredOutputs {
  std::vector<std::optional<TensorMeta>> values;
  bool is_tuple = false;  ///< the node's value is a tuple, read with getitem
};

using InferFn = Expected<InferredOutputs> (*)(const BoundCall& call);
/// Floating-point operations of one call, counted as PyTorch's FlopCounter does for matmuls and
/// convolutions (2 per multiply-add) and as one per output element for everything else.
using FlopFn = int64_t (*)(const BoundCall& call, const InferredOutputs& out);

struct OpInfo {
  std::string_view schema_text;  ///< exactly as ATen declares it
  OpCategory categories = OpCategory::None;
  InferFn infer = nullptr;
  FlopFn flops = nullptr;  ///< null: one FLOP per output element
  /// The first PyTorch release that has the op, when newer than the libtorch remat tests with.
  std::string_view since;

  OpSchema schema;     ///< parsed from schema_text at registration
  std::string target;  ///< `aten.mm.default`

  [[nodiscard]] bool is(OpCategory c) const { return has(categories, c); }
};

}  // namespace remat
