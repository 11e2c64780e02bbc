// Backward ops: what the derivative formulas of the forward ops emit.
#include "remat/ops/detail/op_tables.h"
#include "remat/ops/detail/table_helpers.h"

namespace remat::detail {
namespace {

Expected<InferredOutputs> pointwise_pair(const BoundCall& c) {
  return pointwise(c, {0, 1}, {}, ResultDType::Promote);
}
// ATen iterates elu_backward over (grad_output, self_or_result).
Expected<InferredOutputs> elu_backward(const BoundCall& c) {
  return pointwise(c, {0, 5}, {}, ResultDType::Promote);
}
// ATen computes threshold_backward as threshold(self, threshold, grad): self's layout leads.
Expected<InferredOutputs> threshold_backward(const BoundCall& c) {
  return pointwise(c, {1, 0}, {}, ResultDType::Promote);
}

// grad_output's shape, the dtype named by the op, a fresh contiguous tensor.
Expected<InferredOutputs> softmax_backward(const BoundCall& c) {
  ConcreteTensor g = arg_tensor(c, 0);
  shape_rules::wrap_dim(c.integer(2), g.rank());
  return one(contiguous(g.sizes, *c.dtype(3), g.device));
}

// One output per mask entry: `like` when the entry is true (and `like` exists), else undefined.
std::optional<TensorMeta> masked(bool wanted, const TensorMeta* like) {
  if (!wanted || !like) return std::nullopt;
  ConcreteTensor t = shape_rules::concrete(*like);
  return contiguous(t.sizes, t.dtype, t.device);
}

Expected<InferredOutputs> layer_norm_backward(const BoundCall& c) {
  std::vector<bool> mask = c.bool_list(7);
  return tuple({masked(mask[0], &c.tensor(1)), masked(mask[1], c.optional_tensor(5)),
                masked(mask[2], c.optional_tensor(6))});
}

Expected<InferredOutputs> dropout_backward(const BoundCall& c) {
  return pointwise(c, {0, 1}, {}, ResultDType::First);
}

Expected<InferredOutputs> embedding_backward(const BoundCall& c) {
  ConcreteTensor g = arg_tensor(c, 0);
  int64_t num_weights = c.integer(2);
  return one(contiguous({num_weights, g.sizes.empty() ? 1 : g.sizes.back()}, g.dtype, g.device));
}

Expected<InferredOutputs> nll_loss_backward(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 1);
  return one(contiguous(x.sizes, x.dtype, x.device));
}

Expected<InferredOutputs> convolution_backward(const BoundCall& c) {
  std::vector<bool> mask = c.bool_list(10);
  std::optional<TensorMeta> bias;
  if (mask[2]) {
    ConcreteTensor g = arg_tensor(c, 0);
    auto sizes = c.int_list(3);
    bias = contiguous(sizes ? *sizes : Dims{g.sizes.at(1)}, g.dtype, g.device);
  }
  return tuple({masked(mask[0], &c.tensor(1)), masked(mask[1], &c.tensor(2)), bias});
}
int64_t convolution_backward_flops(const BoundCall& c, const InferredOutputs&) {
  // Each of grad_input and grad_weight costs what the forward convolution costs.
  ConcreteTensor g = arg_tensor(c, 0), w = arg_tensor(c, 2), x = arg_tensor(c, 1);
  std::vector<bool> mask = c.bool_list(10);
  bool transposed = c.boolean(7);
  const Dims& positions_of = transposed ? x.sizes : g.sizes;
  int64_t positions = 1;
  for (size_t i = 2; i < positions_of.size(); ++i) positions = sat_mul(positions, positions_of[i]);
  int64_t one_conv = sat_mul(sat_mul(sat_mul(2, x.sizes[0]), positions), w.numel());
  return sat_add(mask[0] ? one_conv : 0, mask[1] ? one_conv : 0);
}

Expected<InferredOutputs> batch_norm_backward(const BoundCall& c) {
  std::vector<bool> mask = c.bool_list(9);
  ConcreteTensor x = arg_tensor(c, 1);
  auto channel = [&](bool wanted) -> std::optional<TensorMeta> {
    if (!wanted) return std::nullopt;
    const TensorMeta* w = c.optional_tensor(2);
    return contiguous({x.sizes.at(1)}, w ? w->dtype : x.dtype, x.device);
  };
  return tuple({masked(mask[0], &c.tensor(1)), channel(mask[1]), channel(mask[2])});
}

// slice_backward / select_backward: zeros of the input's sizes with the gradient scattered in.
Expected<InferredOutputs> sized_like_input(const BoundCall& c) {
  ConcreteTensor g = arg_tensor(c, 0);
  return one(contiguous(*c.int_list(1), g.dtype, g.device));
}

Expected<InferredOutputs> max_pool2d_backward(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 1);
  return one(contiguous(x.sizes, x.dtype, x.device));
}

}  // namespace

void add_backward_ops(std::vector<OpInfo>& ops) {
  constexpr OpCategory kBackward = OpCategory::Backward;
  constexpr OpCategory kPointwiseBackward = kPointwise | OpCategory::Backward;
  auto add = [&](std::string_view schema, Expected<InferredOutputs> (*fn)(const BoundCall&),
                 OpCategory cats, FlopFn flops = nullptr) {
    ops.push_back({schema, cats, fn, flops, {}, {}, {}});
  };
  add("aten::sigmoid_backward(Tensor grad_output, Tensor output) -> Tensor", pointwise_pair,
      kPointwiseBackward);
  add("aten::tanh_backward(Tensor grad_output, Tensor output) -> Tensor", pointwise_pair,
      kPointwiseBackward);
  add("aten::threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
      threshold_backward, kPointwiseBackward);
  add("aten::gelu_backward(Tensor grad_output, Tensor self, *, str approximate=\"none\") -> Tensor",
      pointwise_pair, kPointwiseBackward);
  add("aten::silu_backward(Tensor grad_output, Tensor self) -> Tensor", pointwise_pair,
      kPointwiseBackward);
  add("aten::elu_backward(Tensor grad_output, Scalar alpha, Scalar scale, Scalar input_scale, bool "
      "is_result, Tensor self_or_result) -> Tensor",
      elu_backward, kPointwiseBackward);
  add("aten::native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor",
      dropout_backward, kPointwiseBackward);
  add("aten::_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType "
      "input_dtype) -> Tensor",
      softmax_backward, kBackward);
  add("aten::_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType "
      "input_dtype) -> Tensor",
      softmax_backward, kBackward);
  add("aten::native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, "
      "Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, "
      "Tensor, Tensor)",
      layer_norm_backward, kBackward);
  add("aten::embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, int "
      "padding_idx, bool scale_grad_by_freq) -> Tensor",
      embedding_backward, kBackward);
  add("aten::nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int "
      "reduction, int ignore_index, Tensor total_weight) -> Tensor",
      nll_loss_backward, kBackward);
  add("aten::convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? "
      "bias_sizes, int[] stride, int[] padding, int[] dilation, bool transposed, int[] "
      "output_padding, int groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
      convolution_backward, kBackward | OpCategory::ComputeIntensive, convolution_backward_flops);
  add("aten::native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? "
      "running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, "
      "float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
      batch_norm_backward, kBackward);
  add("aten::slice_backward(Tensor grad_output, SymInt[] input_sizes, int dim, SymInt start, "
      "SymInt end, SymInt step) -> Tensor",
      sized_like_input, kBackward);
  add("aten::select_backward(Tensor grad_output, SymInt[] input_sizes, int dim, int index) -> "
      "Tensor",
      sized_like_input, kBackward);
  add("aten::max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, "
      "int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor",
      max_pool2d_backward, kBackward);
}

}  // namespace remat::detail
