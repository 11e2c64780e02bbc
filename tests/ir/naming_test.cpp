#include "remat/ir/naming.h"

#include <gtest/gtest.h>

namespace remat {
namespace {

TEST(Namespace, RepeatedCandidatesGetSuffixes) {
  Namespace ns;
  EXPECT_EQ(ns.create_name("add"), "add");
  EXPECT_EQ(ns.create_name("add"), "add_1");
  EXPECT_EQ(ns.create_name("add"), "add_2");
  EXPECT_EQ(ns.create_name("mul"), "mul");
}

TEST(Namespace, BuiltinsAndKeywordsStartAtOne) {
  Namespace ns;
  EXPECT_EQ(ns.create_name("sum"), "sum_1");
  EXPECT_EQ(ns.create_name("sum"), "sum_2");
  EXPECT_EQ(ns.create_name("slice"), "slice_1");
  EXPECT_EQ(ns.create_name("pow"), "pow_1");
  EXPECT_EQ(ns.create_name("input"), "input_1");
  EXPECT_EQ(ns.create_name("getattr"), "getattr_1");
  EXPECT_EQ(ns.create_name("if"), "if_1");
  EXPECT_EQ(ns.create_name("torch"), "torch_1");  // a custom builtin of torch.fx
  EXPECT_EQ(ns.create_name("device"), "device_1");
  EXPECT_EQ(ns.create_name("inf"), "inf_1");
  EXPECT_EQ(ns.create_name("getitem"), "getitem");  // not a builtin
  EXPECT_EQ(ns.create_name("copy_"), "copy_");
}

TEST(Namespace, ExplicitSuffixIsKeptWhenFree) {
  Namespace ns;
  EXPECT_EQ(ns.create_name("primals_1"), "primals_1");
  EXPECT_EQ(ns.create_name("primals_2"), "primals_2");
  EXPECT_EQ(ns.create_name("primals_1"), "primals_3");
  EXPECT_EQ(ns.create_name("x_5"), "x_5");
  EXPECT_EQ(ns.create_name("x"), "x");
  // x_5 set the count of base "x" to 5, so a second "x" continues from there (torch.fx does too).
  EXPECT_EQ(ns.create_name("x"), "x_6");
}

TEST(Namespace, SanitizesIllegalCharacters) {
  Namespace ns;
  EXPECT_EQ(ns.create_name("layer1.conv"), "layer1_conv");
  EXPECT_EQ(ns.create_name("linear.weight"), "linear_weight");
  EXPECT_EQ(ns.create_name("a-b c"), "a_b_c");
  EXPECT_EQ(ns.create_name("1abc"), "_1abc");
  EXPECT_EQ(ns.create_name(""), "_unnamed");
  EXPECT_EQ(ns.create_name("*args"), "_args");
}

TEST(Namespace, ReserveKeepsNamesVerbatim) {
  Namespace ns;
  EXPECT_TRUE(ns.reserve("add_3"));
  EXPECT_FALSE(ns.reserve("add_3"));
  EXPECT_TRUE(ns.reserve("sum"));  // data from a file is not renamed
  EXPECT_TRUE(ns.contains("sum"));
  // A taken suffixed candidate restarts from the count of the full candidate (0), as in torch.fx.
  EXPECT_EQ(ns.create_name("add_3"), "add_1");
}

TEST(NameCandidate, FollowsTargetToStr) {
  EXPECT_EQ(name_candidate_for_target("aten.add.Tensor", true), "add");
  EXPECT_EQ(name_candidate_for_target("aten.native_layer_norm.default", true), "native_layer_norm");
  EXPECT_EQ(name_candidate_for_target("prims.convert_element_type.default", true),
            "convert_element_type");
  EXPECT_EQ(name_candidate_for_target("operator.getitem", true), "getitem");
  EXPECT_EQ(name_candidate_for_target("torch.nn.functional.relu", true), "relu");
  EXPECT_EQ(name_candidate_for_target("torch.sin", true), "sin");
  EXPECT_EQ(name_candidate_for_target("operator.__getitem__", true), "getitem");
  EXPECT_EQ(name_candidate_for_target("fooBar", false), "foo_bar");
  EXPECT_EQ(name_candidate_for_target("layers.0.weight", false), "layers.0.weight");
}

}  // namespace
}  // namespace remat
