#include "remat/fxtext/checkpoint_policy.h"

#include "remat/support/enum_names.h"

namespace remat {
namespace {

constexpr EnumNames<CheckpointPolicy, 6> kPolicies({"MUST_SAVE", "PREFER_SAVE", "MUST_RECOMPUTE",
                                                    "PREFER_RECOMPUTE", "MUST_CPU_OFFLOAD",
                                                    "PREFER_CPU_OFFLOAD"});

constexpr EnumNames<PartitionerTag, 4> kTags({"is_forward", "is_backward", "must_be_in_forward",
                                              "must_be_in_backward"});

}  // namespace

std::string_view policy_name(CheckpointPolicy p) {
  return kPolicies.name(p);
}

std::optional<CheckpointPolicy> parse_policy(std::string_view name) {
  constexpr std::string_view kPrefix = "CheckpointPolicy.";
  if (name.starts_with(kPrefix)) name.remove_prefix(kPrefix.size());
  return kPolicies.parse(name);
}

std::string_view partitioner_tag_name(PartitionerTag t) {
  return kTags.name(t);
}

std::optional<PartitionerTag> parse_partitioner_tag(std::string_view name) {
  return kTags.parse(name);
}

}  // namespace remat
