#include "remat/fxtext/dtype.h"
#include "remat/fxtext/checkpoint_policy.h"

#include <gtest/gtest.h>

namespace remat {
namespace {

TEST(DType, NamesAbbreviationsAndSizesRoundTrip) {
  for (int i = 1; i <= static_cast<int>(DType::QUInt2x4); ++i) {
    auto d = static_cast<DType>(i);
    ASSERT_EQ(parse_dtype(dtype_name(d)), d) << dtype_name(d);
    if (!dtype_abbr(d).empty()) {
      EXPECT_EQ(parse_dtype_abbr(dtype_abbr(d)), d);
    }
    EXPECT_GT(dtype_itemsize(d), 0);
  }
  EXPECT_EQ(dtype_abbr(DType::BFloat16), "bf16");
  EXPECT_EQ(dtype_abbr(DType::Bool), "b8");
  EXPECT_EQ(dtype_abbr(DType::Float4_e2m1fn_x2), "f4e2m1fnx2");
  EXPECT_EQ(dtype_itemsize(DType::Complex128), 16);
  EXPECT_FALSE(parse_dtype("float32"));  // only the canonical torch.float32 spelling
}

TEST(CheckpointPolicy, NamesRoundTrip) {
  for (int i = 0; i < 6; ++i) {
    auto p = static_cast<CheckpointPolicy>(i);
    EXPECT_EQ(parse_policy(policy_name(p)), p);
  }
  EXPECT_EQ(policy_name(CheckpointPolicy::PreferRecompute), "PREFER_RECOMPUTE");
  EXPECT_EQ(parse_policy("CheckpointPolicy.MUST_SAVE"), CheckpointPolicy::MustSave);
  EXPECT_TRUE(is_recompute(CheckpointPolicy::MustRecompute));
  EXPECT_FALSE(is_recompute(CheckpointPolicy::PreferSave));
  EXPECT_EQ(parse_partitioner_tag("must_be_in_backward"), PartitionerTag::MustBeInBackward);
}

}  // namespace
}  // namespace remat
