// Pointwise ops: elementwise math, comparisons, where, masked_fill.
#include "remat/ops/detail/op_tables.h"
#include "remat/ops/detail/table_helpers.h"

namespace remat::detail {
namespace {

Expected<InferredOutputs> unary_float(const BoundCall& c) {
  return pointwise(c, {0}, {}, ResultDType::PromoteToFloat);
}
Expected<InferredOutputs> unary_same(const BoundCall& c) {
  return pointwise(c, {0}, {}, ResultDType::Promote);
}
Expected<InferredOutputs> binary(const BoundCall& c) {
  return pointwise(c, {0, 1}, {}, ResultDType::Promote);
}
Expected<InferredOutputs> binary_float(const BoundCall& c) {
  return pointwise(c, {0, 1}, {}, ResultDType::PromoteToFloat);
}
Expected<InferredOutputs> tensor_scalar(const BoundCall& c) {
  return pointwise(c, {0}, {1}, ResultDType::Promote);
}
Expected<InferredOutputs> tensor_scalar_float(const BoundCall& c) {
  return pointwise(c, {0}, {1}, ResultDType::PromoteToFloat);
}
Expected<InferredOutputs> compare_scalar(const BoundCall& c) {
  return pointwise(c, {0}, {}, ResultDType::Bool);
}
Expected<InferredOutputs> compare_tensor(const BoundCall& c) {
  return pointwise(c, {0, 1}, {}, ResultDType::Bool);
}
Expected<InferredOutputs> unary_bool(const BoundCall& c) {
  return pointwise(c, {0}, {}, ResultDType::Bool);
}
Expected<InferredOutputs> clamp(const BoundCall& c) {
  return pointwise(c, {0}, {1, 2}, ResultDType::Promote);
}

Expected<InferredOutputs> where(const BoundCall& c) {
  InferredOutputs out = pointwise(c, {0, 1, 2}, {}, ResultDType::First);
  ConcreteTensor a = arg_tensor(c, 1), b = arg_tensor(c, 2);
  shape_rules::PromotionOperand ops[] = {{a.dtype, a.rank(), false}, {b.dtype, b.rank(), false}};
  const TensorMeta& t = *out.values[0];
  TensorMeta result(shape_rules::result_type(ops), t.sizes(), t.strides(), t.device);
  return one(result);
}

Expected<InferredOutputs> masked_fill(const BoundCall& c) {
  ConcreteTensor self = arg_tensor(c, 0), mask = arg_tensor(c, 1);
  if (mask.dtype != DType::Bool)
    fail("masked_fill only supports boolean masks, but got mask with dtype " +
         std::string(dtype_name(mask.dtype)));
  Dims shape = shape_rules::broadcast_shapes(self.sizes, mask.sizes);
  if (shape != self.sizes)
    fail("the mask's shape " + shape_rules::shape_text(mask.sizes) +
         " does not broadcast to self's " + shape_rules::shape_text(self.sizes));
  return one(contiguous(shape, self.dtype, self.device));
}

}  // namespace

void add_pointwise_ops(std::vector<OpInfo>& ops) {
  auto add = [&](std::string_view schema, Expected<InferredOutputs> (*fn)(const BoundCall&),
                 OpCategory cats = kPointwise) {
    ops.push_back({schema, cats, fn, nullptr, {}, {}, {}});
  };
  add("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", binary);
  add("aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", tensor_scalar);
  add("aten::sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", binary);
  add("aten::sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", tensor_scalar);
  add("aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", binary);
  add("aten::mul.Scalar(Tensor self, Scalar other) -> Tensor", tensor_scalar);
  add("aten::div.Tensor(Tensor self, Tensor other) -> Tensor", binary_float);
  add("aten::div.Scalar(Tensor self, Scalar other) -> Tensor", tensor_scalar_float);
  add("aten::pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", tensor_scalar);
  add("aten::pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", binary);
  add("aten::maximum(Tensor self, Tensor other) -> Tensor", binary);
  add("aten::minimum(Tensor self, Tensor other) -> Tensor", binary);
  add("aten::neg(Tensor self) -> Tensor", unary_same);
  add("aten::abs(Tensor self) -> Tensor", unary_same);
  add("aten::relu(Tensor self) -> Tensor", unary_same);
  add("aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor", unary_same);
  add("aten::silu(Tensor self) -> Tensor", unary_same);
  add("aten::elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
      unary_same);
  add("aten::exp(Tensor self) -> Tensor", unary_float);
  add("aten::log(Tensor self) -> Tensor", unary_float);
  add("aten::sin(Tensor self) -> Tensor", unary_float);
  add("aten::cos(Tensor self) -> Tensor", unary_float);
  add("aten::tanh(Tensor self) -> Tensor", unary_float);
  add("aten::sigmoid(Tensor self) -> Tensor", unary_float);
  add("aten::sqrt(Tensor self) -> Tensor", unary_float);
  add("aten::rsqrt(Tensor self) -> Tensor", unary_float);
  add("aten::erf(Tensor self) -> Tensor", unary_float);
  add("aten::reciprocal(Tensor self) -> Tensor", unary_float);
  add("aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", clamp);
  add("aten::clamp_min(Tensor self, Scalar min) -> Tensor", tensor_scalar);
  add("aten::eq.Scalar(Tensor self, Scalar other) -> Tensor", compare_scalar);
  add("aten::ne.Scalar(Tensor self, Scalar other) -> Tensor", compare_scalar);
  add("aten::lt.Scalar(Tensor self, Scalar other) -> Tensor", compare_scalar);
  add("aten::le.Scalar(Tensor self, Scalar other) -> Tensor", compare_scalar);
  add("aten::gt.Scalar(Tensor self, Scalar other) -> Tensor", compare_scalar);
  add("aten::ge.Scalar(Tensor self, Scalar other) -> Tensor", compare_scalar);
  // Attention masks (every transformers model): comparisons of two tensors, bitwise and logical
  // ops on masks.
  add("aten::eq.Tensor(Tensor self, Tensor other) -> Tensor", compare_tensor);
  add("aten::ne.Tensor(Tensor self, Tensor other) -> Tensor", compare_tensor);
  add("aten::lt.Tensor(Tensor self, Tensor other) -> Tensor", compare_tensor);
  add("aten::le.Tensor(Tensor self, Tensor other) -> Tensor", compare_tensor);
  add("aten::gt.Tensor(Tensor self, Tensor other) -> Tensor", compare_tensor);
  add("aten::ge.Tensor(Tensor self, Tensor other) -> Tensor", compare_tensor);
  add("aten::bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", binary);
  add("aten::bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", binary);
  add("aten::bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor", binary);
  add("aten::bitwise_not(Tensor self) -> Tensor", unary_same);
  add("aten::logical_not(Tensor self) -> Tensor", unary_bool);
  add("aten::logical_and(Tensor self, Tensor other) -> Tensor", compare_tensor);
  add("aten::logical_or(Tensor self, Tensor other) -> Tensor", compare_tensor);
  add("aten::where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", where);
  add("aten::masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor", masked_fill);
  add("aten::masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor", masked_fill);
}

}  // namespace remat::detail
