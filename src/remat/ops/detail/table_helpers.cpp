#include "remat/ops/detail/table_helpers.h"

namespace remat::detail {

InferredOutputs pointwise(const BoundCall& c, std::initializer_list<size_t> tensors,
                          std::initializer_list<size_t> scalars, ResultDType rule) {
  std::vector<ConcreteTensor> ts;
  std::vector<shape_rules::PromotionOperand> operands;
  Dims shape;
  std::vector<size_t> numbers(scalars);
  for (size_t i : tensors) {
    if (!c[i].is_node()) {  // a wrapped number in a Tensor position
      numbers.push_back(i);
      continue;
    }
    ts.push_back(arg_tensor(c, i));
    shape = shape_rules::broadcast_shapes(shape, ts.back().sizes);
    operands.push_back({ts.back().dtype, ts.back().rank(), false});
  }
  if (ts.empty()) fail("expected at least one tensor operand");
  for (size_t i : numbers) {
    const Argument& v = c[i];
    if (v.is_none()) continue;
    operands.push_back({shape_rules::scalar_dtype_of(v.is(ArgKind::Bool), v.is(ArgKind::Int),
                                                     v.is(ArgKind::Complex)),
                        0, true});
  }
  DType dtype = DType::Unknown;
  switch (rule) {
    case ResultDType::Promote:
      dtype = shape_rules::result_type(operands);
      break;
    case ResultDType::PromoteToFloat:
      dtype = shape_rules::result_type(operands);
      if (shape_rules::is_integral(dtype, true)) dtype = DType::Float32;
      break;
    case ResultDType::Bool:
      dtype = DType::Bool;
      break;
    case ResultDType::First:
      dtype = ts.front().dtype;
      break;
  }
  std::vector<const ConcreteTensor*> inputs;
  for (const ConcreteTensor& t : ts) inputs.push_back(&t);
  Dims strides = shape_rules::pointwise_output_strides(shape, inputs);
  return one(meta(shape, strides, dtype, ts.front().device));
}

}  // namespace remat::detail
