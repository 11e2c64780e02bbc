// Reductions (sum, mean, amax) and the softmax family.
#include <algorithm>

#include "remat/ops/detail/op_tables.h"
#include "remat/ops/detail/table_helpers.h"

namespace remat::detail {
namespace {

// The reduced shape: `dims` (None or empty: every dim) removed, or kept as 1 with keepdim.
Dims reduced_sizes(const ConcreteTensor& x, const std::optional<Dims>& dims, bool keepdim) {
  std::vector<bool> reduce(x.sizes.size(), false);
  if (!dims || dims->empty()) {
    std::fill(reduce.begin(), reduce.end(), true);
  } else {
    for (int64_t d : *dims) {
      int64_t w = shape_rules::wrap_dim(d, x.rank());
      if (x.rank() == 0) continue;
      if (reduce[w])
        fail("dim " + std::to_string(w) + " appears multiple times in the list of dims");
      reduce[w] = true;
    }
  }
  Dims out;
  for (size_t i = 0; i < x.sizes.size(); ++i) {
    if (!reduce[i])
      out.push_back(x.sizes[i]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

DType sum_dtype(const ConcreteTensor& x, std::optional<DType> requested) {
  if (requested) return *requested;
  return shape_rules::is_integral(x.dtype, true) ? DType::Int64 : x.dtype;
}

DType mean_dtype(const ConcreteTensor& x, std::optional<DType> requested) {
  DType d = requested.value_or(x.dtype);
  if (!shape_rules::is_floating(d) && !shape_rules::is_complex(d)) {
    fail(
        "mean(): could not infer output dtype. Input dtype must be either a floating point or "
        "complex dtype. Got: " +
        std::string(dtype_name(d)));
  }
  return d;
}

// A running sum along one dimension (a scan: the shape stays), in sum's dtype.
Expected<InferredOutputs> cumsum(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  shape_rules::wrap_dim(c.integer(1), std::max<int64_t>(x.rank(), 1));
  return one(contiguous(x.sizes, sum_dtype(x, c.dtype(2)), x.device));
}

Expected<InferredOutputs> sum_all(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  return one(contiguous({}, sum_dtype(x, c.dtype(1)), x.device));
}
Expected<InferredOutputs> sum_dims(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  return one(contiguous(reduced_sizes(x, c.int_list(1), c.boolean(2)), sum_dtype(x, c.dtype(3)),
                        x.device));
}
Expected<InferredOutputs> mean_all(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  return one(contiguous({}, mean_dtype(x, c.dtype(1)), x.device));
}
Expected<InferredOutputs> mean_dims(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  return one(contiguous(reduced_sizes(x, c.int_list(1), c.boolean(2)), mean_dtype(x, c.dtype(3)),
                        x.device));
}
Expected<InferredOutputs> amax(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  return one(contiguous(reduced_sizes(x, c.int_list(1), c.boolean(2)), x.dtype, x.device));
}

Expected<InferredOutputs> softmax(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  shape_rules::wrap_dim(c.integer(1), x.rank());
  bool half_to_float = c.boolean(2);
  if (half_to_float && x.dtype != DType::Float16)
    fail("conversion is supported for Half type only");
  return one(contiguous(x.sizes, half_to_float ? DType::Float32 : x.dtype, x.device));
}

// Reading every input element once: the input's numel.
int64_t input_numel_flops(const BoundCall& c, const InferredOutputs&) {
  return arg_tensor(c, 0).numel();
}

}  // namespace

void add_reduction_ops(std::vector<OpInfo>& ops) {
  constexpr OpCategory kReduction = OpCategory::Reduction | OpCategory::Recomputable;
  auto add = [&](std::string_view schema, Expected<InferredOutputs> (*fn)(const BoundCall&),
                 OpCategory cats) {
    ops.push_back({schema, cats, fn, input_numel_flops, {}, {}, {}});
  };
  add("aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", sum_all, kReduction);
  add("aten::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", cumsum,
      OpCategory::None);
  add("aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? "
      "dtype=None) -> Tensor",
      sum_dims, kReduction);
  add("aten::mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", mean_all, kReduction);
  add("aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> "
      "Tensor",
      mean_dims, kReduction);
  add("aten::amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", amax, kReduction);
  add("aten::_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", softmax,
      OpCategory::None);
  add("aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", softmax,
      OpCategory::None);
}

}  // namespace remat::detail
