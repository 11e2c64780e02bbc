#include "remat/fxtext/tensor_annotation.h"

#include <gtest/gtest.h>

namespace remat::fxtext {
namespace {

TEST(TensorAnnotation, ParsesShapeStridesAndDevice) {
  TensorAnnotation t;
  ASSERT_EQ(parse_tensor_annotation("bf16[s0, 2*s1 + 1][4, 1]cuda:0", t), AnnotationError::None);
  EXPECT_EQ(t.dtype, DType::BFloat16);
  ASSERT_EQ(t.sizes.size(), 2u);
  EXPECT_EQ(t.sizes[0].text, "s0");
  EXPECT_FALSE(t.sizes[0].value);
  EXPECT_EQ(t.sizes[1].text, "2*s1 + 1");
  ASSERT_TRUE(t.strides);
  EXPECT_EQ((*t.strides)[0].value, 4);
  EXPECT_EQ(t.device, "cuda:0");

  ASSERT_EQ(parse_tensor_annotation("f32[]", t), AnnotationError::None);
  EXPECT_TRUE(t.sizes.empty());
  EXPECT_FALSE(t.strides);
  EXPECT_EQ(t.device, "");
}

TEST(TensorAnnotation, SaysWhatIsWrong) {
  TensorAnnotation t;
  EXPECT_EQ(parse_tensor_annotation("torch.Tensor", t), AnnotationError::NoShape);
  EXPECT_EQ(parse_tensor_annotation("x32[4]", t), AnnotationError::UnknownDType);
  EXPECT_EQ(t.dtype_text, "x32");
  EXPECT_EQ(parse_tensor_annotation("f32[4, ", t), AnnotationError::MalformedShape);
  EXPECT_EQ(parse_tensor_annotation("f32[4, (s0]", t), AnnotationError::MalformedShape);
  EXPECT_EQ(parse_tensor_annotation("f32[4, 4][1]", t), AnnotationError::MalformedStrides);
  EXPECT_EQ(parse_tensor_annotation("f32[4]cu da", t), AnnotationError::MalformedDevice);
}

TEST(TensorAnnotation, BytesOfConcreteShapesOnly) {
  EXPECT_EQ(annotation_bytes("bf16[2, 3]"), 12u);
  EXPECT_EQ(annotation_bytes("f32[4, 4][4, 1]cpu"), 64u);
  EXPECT_EQ(annotation_bytes("c128[]"), 16u);
  EXPECT_EQ(annotation_bytes("b8[10]"), 10u);
  EXPECT_FALSE(annotation_bytes("f32[s0, 4]"));
  EXPECT_FALSE(annotation_bytes("Sym(s0)"));
  EXPECT_FALSE(annotation_bytes("q9[4]"));
}

}  // namespace
}  // namespace remat::fxtext
