#include "remat/ir/checkpoint_policy.h"

#include <array>

namespace remat {
namespace {

constexpr std::array<std::string_view, 6> kPolicies{"MUST_SAVE",        "PREFER_SAVE",
                                                    "MUST_RECOMPUTE",   "PREFER_RECOMPUTE",
                                                    "MUST_CPU_OFFLOAD", "PREFER_CPU_OFFLOAD"};

constexpr std::array<std::string_view, 4> kTags{"is_forward", "is_backward", "must_be_in_forward",
                                                "must_be_in_backward"};

}  // namespace

std::string_view policy_name(CheckpointPolicy p) {
  return kPolicies[static_cast<size_t>(p)];
}

std::optional<CheckpointPolicy> parse_policy(std::string_view name) {
  constexpr std::string_view kPrefix = "CheckpointPolicy.";
  if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
  for (size_t i = 0; i < kPolicies.size(); ++i)
    if (kPolicies[i] == name) return static_cast<CheckpointPolicy>(i);
  return std::nullopt;
}

std::string_view partitioner_tag_name(PartitionerTag t) {
  return kTags[static_cast<size_t>(t)];
}

std::optional<PartitionerTag> parse_partitioner_tag(std::string_view name) {
  for (size_t i = 0; i < kTags.size(); ++i)
    if (kTags[i] == name) return static_cast<PartitionerTag>(i);
  return std::nullopt;
}

}  // namespace remat
