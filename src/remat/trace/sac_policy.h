// Selective activation checkpointing: the policy that decides, per recorded op inside a
// checkpoint region, whether its outputs are saved or recomputed (docs/spec/partitioning.md §1).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "remat/fxtext/checkpoint_policy.h"
#include "remat/ops/op_info.h"

namespace remat::trace {

class Tensor;

/// What a policy sees for one op call (torch's SelectiveCheckpointContext plus the op).
struct SacContext {
  std::string_view target;     ///< `aten.mm.default`
  const OpInfo* op = nullptr;  ///< the registry entry
  int64_t call_index = 0;      ///< this is the k-th call of `target` in the region (from 0)
  int64_t region_id = 0;       ///< the region's ac_graph_id
  bool is_recompute = false;  ///< always false while tracing: the joint graph reuses forward values
  std::span<const Tensor> outputs;              ///< the op's outputs (policies run after the op)
  std::optional<std::string_view> tensor_name;  ///< set when checkpoint_name() names an output
};

/// A policy: `(context) -> CheckpointPolicy`. Copies share the callable.
class SacPolicy {
 public:
  using Fn = std::function<CheckpointPolicy(const SacContext&)>;

  /// Vanilla checkpointing: everything PREFER_RECOMPUTE.
  static SacPolicy recompute_all();
  static SacPolicy from_fn(Fn fn, std::string description = "custom policy");
  /// A bool policy: true means MUST_SAVE, false PREFER_RECOMPUTE (as torch converts them).
  static SacPolicy from_bool(std::function<bool(const SacContext&)> fn,
                             std::string description = "custom bool policy");
  /// Listed ops MUST_SAVE, the rest PREFER_RECOMPUTE. Each entry must be an overload
  /// (`aten.mm.default`); a packet (`aten.mm`) or an unknown op throws std::invalid_argument.
  static SacPolicy save_ops(const std::vector<std::string>& targets);
  /// JAX's save_only_these_names: outputs named by checkpoint_name() with one of `names` are
  /// MUST_SAVE; everything else PREFER_RECOMPUTE.
  static SacPolicy save_only_these_names(std::vector<std::string> names);
  /// JAX's save_anything_except_these_names: outputs named with one of `names` are
  /// PREFER_RECOMPUTE; everything else MUST_SAVE.
  static SacPolicy save_all_but_these_names(std::vector<std::string> names);

  CheckpointPolicy operator()(const SacContext& ctx) const { return fn_(ctx); }
  [[nodiscard]] const std::string& description() const { return description_; }

 private:
  SacPolicy(Fn fn, std::string description)
      : fn_(std::move(fn)), description_(std::move(description)) {}
  Fn fn_;
  std::string description_;
};

/// Ops that bypass the policy (torch's SAC_IGNORED_OPS): always run, never cached; while
/// compiling they are tagged PREFER_RECOMPUTE so the recompute chain is not broken.
bool is_sac_ignored(std::string_view target);

}  // namespace remat::trace
