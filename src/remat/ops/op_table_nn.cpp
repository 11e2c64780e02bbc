// Matmuls, concatenation and the neural-network ops: normalization, dropout, embedding, loss,
// convolution, pooling.
#include <algorithm>

#include "remat/ops/detail/op_tables.h"
#include "remat/ops/detail/table_helpers.h"

namespace remat::detail {
namespace {

void same_dtype(const ConcreteTensor& a, const ConcreteTensor& b, std::string_view what) {
  if (a.dtype != b.dtype)
    fail(std::string(what) + ": expected mat1 and mat2 to have the same dtype, but got: " +
         std::string(dtype_name(a.dtype)) + " != " + std::string(dtype_name(b.dtype)));
}

Expected<InferredOutputs> mm(const BoundCall& c) {
  ConcreteTensor a = arg_tensor(c, 0), b = arg_tensor(c, 1);
  if (a.rank() != 2) fail("self must be a matrix");
  if (b.rank() != 2) fail("mat2 must be a matrix");
  if (a.sizes[1] != b.sizes[0])
    fail("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(a.sizes[0]) + "x" +
         std::to_string(a.sizes[1]) + " and " + std::to_string(b.sizes[0]) + "x" +
         std::to_string(b.sizes[1]) + ")");
  same_dtype(a, b, "mm");
  return one(contiguous({a.sizes[0], b.sizes[1]}, a.dtype, a.device));
}
int64_t mm_flops(const BoundCall& c, const InferredOutputs&) {
  ConcreteTensor a = arg_tensor(c, 0), b = arg_tensor(c, 1);
  return matmul_flops(a.sizes[0], a.sizes[1], b.sizes[1]);
}

Expected<InferredOutputs> addmm(const BoundCall& c) {
  ConcreteTensor bias = arg_tensor(c, 0), a = arg_tensor(c, 1), b = arg_tensor(c, 2);
  if (a.rank() != 2) fail("mat1 must be a matrix, got " + std::to_string(a.rank()) + "-D tensor");
  if (b.rank() != 2) fail("mat2 must be a matrix, got " + std::to_string(b.rank()) + "-D tensor");
  if (a.sizes[1] != b.sizes[0])
    fail("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(a.sizes[0]) + "x" +
         std::to_string(a.sizes[1]) + " and " + std::to_string(b.sizes[0]) + "x" +
         std::to_string(b.sizes[1]) + ")");
  same_dtype(a, b, "addmm");
  Dims out = {a.sizes[0], b.sizes[1]};
  if (shape_rules::broadcast_shapes(bias.sizes, out) != out)
    fail("self of shape " + shape_rules::shape_text(bias.sizes) + " cannot be broadcast to " +
         shape_rules::shape_text(out));
  return one(contiguous(out, a.dtype, a.device));
}
int64_t addmm_flops(const BoundCall& c, const InferredOutputs&) {
  ConcreteTensor a = arg_tensor(c, 1), b = arg_tensor(c, 2);
  return matmul_flops(a.sizes[0], a.sizes[1], b.sizes[1]);
}

Expected<InferredOutputs> bmm(const BoundCall& c) {
  ConcreteTensor a = arg_tensor(c, 0), b = arg_tensor(c, 1);
  if (a.rank() != 3) fail("batch1 must be a 3D tensor");
  if (b.rank() != 3) fail("batch2 must be a 3D tensor");
  if (a.sizes[0] != b.sizes[0] || a.sizes[2] != b.sizes[1])
    fail("Expected size for first two dimensions of batch2 tensor to be: [" +
         std::to_string(a.sizes[0]) + ", " + std::to_string(a.sizes[2]) + "] but got: [" +
         std::to_string(b.sizes[0]) + ", " + std::to_string(b.sizes[1]) + "].");
  same_dtype(a, b, "bmm");
  return one(contiguous({a.sizes[0], a.sizes[1], b.sizes[2]}, a.dtype, a.device));
}
int64_t bmm_flops(const BoundCall& c, const InferredOutputs&) {
  ConcreteTensor a = arg_tensor(c, 0), b = arg_tensor(c, 1);
  return sat_mul(a.sizes[0], matmul_flops(a.sizes[1], a.sizes[2], b.sizes[2]));
}

Expected<InferredOutputs> cat(const BoundCall& c) {
  std::vector<ConcreteTensor> ts;
  for (const TensorMeta* t : c.tensor_list(0)) ts.push_back(shape_rules::concrete(*t));
  if (ts.empty()) fail("torch.cat(): expected a non-empty list of Tensors");
  // Legacy rule: 1-D empty tensors are skipped.
  const ConcreteTensor* ref = nullptr;
  std::vector<shape_rules::PromotionOperand> operands;
  for (const ConcreteTensor& t : ts) {
    operands.push_back({t.dtype, t.rank(), false});
    if (!(t.rank() == 1 && t.sizes[0] == 0) && !ref) ref = &t;
  }
  DType dtype = shape_rules::result_type(operands);
  if (!ref) return one(contiguous({0}, dtype, ts[0].device));
  int64_t d = shape_rules::wrap_dim(c.integer(1), ref->rank());
  Dims out = ref->sizes;
  out[d] = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const ConcreteTensor& t = ts[i];
    if (t.rank() == 1 && t.sizes[0] == 0) continue;
    if (t.rank() != ref->rank())
      fail("Tensors must have same number of dimensions: got " + std::to_string(ref->rank()) +
           " and " + std::to_string(t.rank()));
    for (int64_t k = 0; k < t.rank(); ++k) {
      if (k != d && t.sizes[k] != ref->sizes[k])
        fail("Sizes of tensors must match except in dimension " + std::to_string(d) +
             ". Expected size " + std::to_string(ref->sizes[k]) + " but got size " +
             std::to_string(t.sizes[k]) + " for tensor number " + std::to_string(i) +
             " in the list.");
    }
    out[d] += t.sizes[d];
  }
  return one(contiguous(out, dtype, ref->device));
}

DType stats_dtype(DType input) {
  return input == DType::Float16 || input == DType::BFloat16 ? DType::Float32 : input;
}

Expected<InferredOutputs> layer_norm(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  Dims normalized = *c.int_list(1);
  int64_t axis = x.rank() - static_cast<int64_t>(normalized.size());
  if (normalized.empty() || axis < 0 ||
      !std::equal(normalized.begin(), normalized.end(), x.sizes.begin() + axis)) {
    fail("Given normalized_shape=" + shape_rules::shape_text(normalized) +
         ", expected input with shape [*, " + shape_rules::shape_text(normalized).substr(1) +
         ", but got input of size" + shape_rules::shape_text(x.sizes));
  }
  for (size_t i : {size_t{2}, size_t{3}}) {
    if (const TensorMeta* w = c.optional_tensor(i)) {
      if (shape_rules::concrete(*w).sizes != normalized)
        fail("Expected weight and bias to be of shape " + shape_rules::shape_text(normalized));
    }
  }
  Dims stats(x.sizes.begin(), x.sizes.begin() + axis);
  stats.resize(x.sizes.size(), 1);
  DType sd = stats_dtype(x.dtype);
  return tuple({contiguous(x.sizes, x.dtype, x.device), contiguous(stats, sd, x.device),
                contiguous(stats, sd, x.device)});
}

Expected<InferredOutputs> dropout(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  double p = c.number(1);
  if (p < 0 || p > 1)
    fail("dropout probability has to be between 0 and 1, but got " + std::to_string(p));
  Dims strides = shape_rules::preserve_format_strides(x);
  return tuple(
      {meta(x.sizes, strides, x.dtype, x.device), meta(x.sizes, strides, DType::Bool, x.device)});
}

Expected<InferredOutputs> embedding(const BoundCall& c) {
  ConcreteTensor w = arg_tensor(c, 0), idx = arg_tensor(c, 1);
  if (w.rank() != 2) fail("'weight' must be 2-D");
  if (idx.dtype != DType::Int64 && idx.dtype != DType::Int32)
    fail(
        "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
        "Long, Int; but got " +
        std::string(dtype_name(idx.dtype)) + " instead");
  Dims out = idx.sizes;
  out.push_back(w.sizes[1]);
  return one(contiguous(out, w.dtype, w.device));
}

Expected<InferredOutputs> nll_loss(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0), target = arg_tensor(c, 1);
  if (x.rank() < 1 || x.rank() > 2) fail("input tensor should be 1D or 2D");
  if (target.rank() > 1) fail("0D or 1D target tensor expected, multi-target not supported");
  int64_t batch = x.rank() == 2 ? x.sizes[0] : 1;
  if (x.rank() == 2 && (target.rank() != 1 || target.sizes[0] != batch))
    fail("Expected input batch_size (" + std::to_string(batch) + ") to match target batch_size (" +
         std::to_string(target.rank() ? target.sizes[0] : 1) + ").");
  int64_t reduction = c.integer(3);
  Dims out = reduction == 0 && x.rank() == 2 ? Dims{batch} : Dims{};
  return tuple({contiguous(out, x.dtype, x.device), contiguous({}, x.dtype, x.device)});
}

Expected<InferredOutputs> convolution(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0), w = arg_tensor(c, 1);
  int64_t spatial = w.rank() - 2;
  if (spatial < 1 || x.rank() != w.rank())
    fail("Expected " + std::to_string(w.rank()) +
         "D (batched) input to convolution with weight of size " +
         shape_rules::shape_text(w.sizes) + ", but got input of size " +
         shape_rules::shape_text(x.sizes));
  auto expand_param = [&](size_t i) {
    Dims v = *c.int_list(i);
    if (v.size() == 1) v.assign(spatial, v[0]);
    if (static_cast<int64_t>(v.size()) != spatial)
      fail("expected " + c.schema().arguments[i].name +
           " to be a single integer value or a list of " + std::to_string(spatial) + " values");
    return v;
  };
  Dims stride = expand_param(3), padding = expand_param(4), dilation = expand_param(5);
  bool transposed = c.boolean(6);
  Dims output_padding = expand_param(7);
  int64_t groups = c.integer(8);
  if (!transposed &&
      std::any_of(output_padding.begin(), output_padding.end(), [](int64_t p) { return p != 0; })) {
    fail("output_padding is not supported for non-transposed convolutions; got: " +
         shape_rules::shape_text(output_padding));
  }
  Dims out = {x.sizes[0], transposed ? w.sizes[1] * groups : w.sizes[0]};
  int64_t in_channels = transposed ? w.sizes[0] : w.sizes[1] * groups;
  if (x.sizes[1] != in_channels)
    fail("Given groups=" + std::to_string(groups) + ", weight of size " +
         shape_rules::shape_text(w.sizes) + ", expected input" + shape_rules::shape_text(x.sizes) +
         " to have " + std::to_string(in_channels) + " channels, but got " +
         std::to_string(x.sizes[1]) + " channels instead");
  for (int64_t i = 0; i < spatial; ++i) {
    int64_t in = x.sizes[2 + i], k = w.sizes[2 + i];
    int64_t o = transposed ? (in - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) +
                                 output_padding[i] + 1
                           : (in + 2 * padding[i] - dilation[i] * (k - 1) - 1) / stride[i] + 1;
    if (o <= 0)
      fail("Calculated output size is too small for input size " +
           shape_rules::shape_text(x.sizes));
    out.push_back(o);
  }
  return one(contiguous(out, x.dtype, x.device));
}
// 2 FLOPs per weight element per output position (input position when transposed), per sample.
int64_t convolution_flops(const BoundCall& c, const InferredOutputs& out) {
  ConcreteTensor x = arg_tensor(c, 0), w = arg_tensor(c, 1);
  bool transposed = c.boolean(6);
  const Dims positions_of = transposed ? x.sizes : shape_rules::concrete(*out.values[0]).sizes;
  int64_t positions = 1;
  for (size_t i = 2; i < positions_of.size(); ++i) positions = sat_mul(positions, positions_of[i]);
  return sat_mul(sat_mul(sat_mul(2, x.sizes[0]), positions), w.numel());
}

Expected<InferredOutputs> batch_norm_common(const BoundCall& c, bool legit_functional) {
  ConcreteTensor x = arg_tensor(c, 0);
  if (x.rank() < 2) fail("batch_norm expects at least a 2-D input");
  int64_t channels = x.sizes[1];
  bool training = c.boolean(5);
  // Eval mode saves no statistics, in both forms (PyTorch 2.13 gives [0] for the functional one).
  Dims stats = {training ? channels : 0};
  DType sd = stats_dtype(x.dtype);
  std::vector<std::optional<TensorMeta>> values = {contiguous(x.sizes, x.dtype, x.device),
                                                   contiguous(stats, sd, x.device),
                                                   contiguous(stats, sd, x.device)};
  if (legit_functional) {
    values.emplace_back(contiguous({channels}, sd, x.device));
    values.emplace_back(contiguous({channels}, sd, x.device));
  }
  return tuple(std::move(values));
}
Expected<InferredOutputs> batch_norm(const BoundCall& c) {
  return batch_norm_common(c, false);
}
Expected<InferredOutputs> batch_norm_functional(const BoundCall& c) {
  return batch_norm_common(c, true);
}

Expected<InferredOutputs> max_pool2d(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  if (x.rank() != 3 && x.rank() != 4)
    fail("non-empty 3D or 4D (batch mode) tensor expected for input");
  auto pair = [&](size_t i, Dims fallback) {
    Dims v = *c.int_list(i);
    if (v.empty()) v = fallback;
    if (v.size() == 1) v.push_back(v[0]);
    if (v.size() != 2)
      fail("max_pool2d: " + c.schema().arguments[i].name +
           " must either be a single int, or a tuple of two ints");
    return v;
  };
  Dims kernel = pair(1, {});
  Dims stride = pair(2, kernel), padding = pair(3, {0}), dilation = pair(4, {1});
  bool ceil_mode = c.boolean(5);
  Dims out(x.sizes.begin(), x.sizes.end() - 2);
  for (int i = 0; i < 2; ++i) {
    int64_t in = x.sizes[x.rank() - 2 + i];
    if (padding[i] > kernel[i] / 2)
      fail("pad should be smaller than or equal to half of kernel size");
    int64_t numerator =
        in + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1 + (ceil_mode ? stride[i] - 1 : 0);
    int64_t o = numerator / stride[i] + 1;  // numerator >= 0 for valid inputs
    if (ceil_mode && (o - 1) * stride[i] >= in + padding[i]) --o;
    if (o < 1)
      fail("Given input size: " + shape_rules::shape_text(x.sizes) +
           ". Calculated output size is too small");
    out.push_back(o);
  }
  return tuple({contiguous(out, x.dtype, x.device), contiguous(out, DType::Int64, x.device)});
}

Expected<InferredOutputs> triu(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  if (x.rank() < 2) fail("triu: input tensor must have at least 2 dimensions");
  return one(contiguous(x.sizes, x.dtype, x.device));
}

}  // namespace

void add_nn_ops(std::vector<OpInfo>& ops) {
  constexpr OpCategory kCompute = OpCategory::ComputeIntensive;
  auto add = [&](std::string_view schema, Expected<InferredOutputs> (*fn)(const BoundCall&),
                 OpCategory cats, FlopFn flops = nullptr, std::string_view since = {}) {
    ops.push_back({schema, cats, fn, flops, since, {}, {}});
  };
  add("aten::mm(Tensor self, Tensor mat2) -> Tensor", mm, kCompute, mm_flops);
  add("aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> "
      "Tensor",
      addmm, kCompute, addmm_flops);
  add("aten::bmm(Tensor self, Tensor mat2) -> Tensor", bmm, kCompute, bmm_flops);
  add("aten::cat(Tensor[] tensors, int dim=0) -> Tensor", cat, OpCategory::None);
  add("aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? "
      "bias, float eps) -> (Tensor, Tensor, Tensor)",
      layer_norm, OpCategory::None);
  add("aten::native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)", dropout,
      OpCategory::Random);
  add("aten::embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool "
      "scale_grad_by_freq=False, bool sparse=False) -> Tensor",
      embedding, OpCategory::None);
  add("aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, int "
      "ignore_index) -> (Tensor output, Tensor total_weight)",
      nll_loss, OpCategory::Reduction);
  add("aten::convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
      "int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor",
      convolution, kCompute, convolution_flops);
  add("aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
      "Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
      batch_norm, OpCategory::None);
  add("aten::_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, "
      "Tensor running_mean, Tensor running_var, bool training, float momentum, float eps) -> "
      "(Tensor, Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)",
      batch_norm_functional, OpCategory::None, nullptr, "2.0");
  add("aten::max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] "
      "padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)",
      max_pool2d, OpCategory::None);
  add("aten::triu(Tensor self, int diagonal=0) -> Tensor", triu, OpCategory::Recomputable);
}

}  // namespace remat::detail
