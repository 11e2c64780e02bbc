// CheckpointPolicy and PartitionerTag: the activation-checkpointing tags carried in node meta.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace remat {

/// torch.utils.checkpoint.CheckpointPolicy, with PyTorch's integer values.
enum class CheckpointPolicy : uint8_t {
  MustSave = 0,
  PreferSave = 1,
  MustRecompute = 2,
  PreferRecompute = 3,
  MustCpuOffload = 4,
  PreferCpuOffload = 5,
};

/// The member name, e.g. `PREFER_RECOMPUTE` (what `policy.name` gives in Python).
std::string_view policy_name(CheckpointPolicy p);
/// Parses a member name; also accepts the qualified `CheckpointPolicy.X` spelling.
std::optional<CheckpointPolicy> parse_policy(std::string_view name);
/// MUST_RECOMPUTE or PREFER_RECOMPUTE: the partitioners treat both as "recompute".
inline bool is_recompute(CheckpointPolicy p) {
  return p == CheckpointPolicy::MustRecompute || p == CheckpointPolicy::PreferRecompute;
}

/// node.meta["partitioner_tag"] in AOTAutograd joint graphs.
enum class PartitionerTag : uint8_t {
  IsForward,
  IsBackward,
  MustBeInForward,
  MustBeInBackward,
};

/// `is_forward`, `is_backward`, `must_be_in_forward`, `must_be_in_backward`.
std::string_view partitioner_tag_name(PartitionerTag t);
std::optional<PartitionerTag> parse_partitioner_tag(std::string_view name);

}  // namespace remat
