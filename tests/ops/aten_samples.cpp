#include "ops/aten_samples.h"

#include <numeric>

namespace remat::testing {
namespace {

using Generator = std::function<void(Sample&)>;

Generator unary(bool float_only = false) {
  return [=](Sample& s) { s.args = {s.tensor(s.shape(), s.any_dtype(!float_only))}; };
}
Generator binary() {
  return [](Sample& s) {
    Ints shape = s.shape();
    Ints a = s.coin() ? shape : s.broadcastable_to(shape), b = s.broadcastable_to(shape);
    if (s.coin()) std::swap(a, b);
    s.args = {s.tensor(a, s.any_dtype()), s.tensor(b, s.any_dtype())};
    // A Python number as `other`, as traced Python code passes it (`x * 0.5`).
    if (s.coin(0.25))
      s.args[1] = s.coin() ? Argument::floating(0.5) : Argument::integer(s.pick(1, 3));
  };
}
Generator tensor_scalar() {
  return [](Sample& s) {
    s.args = {s.tensor(s.shape(), s.any_dtype()),
              s.coin() ? Argument::integer(s.pick(-3, 3)) : Argument::floating(0.5)};
  };
}
Generator same_shape_pair(at::ScalarType second = at::kFloat) {
  return [=](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape), s.tensor(shape, second)};
  };
}
Generator softmax_like() {
  return [](Sample& s) {
    Ints shape = s.shape(1);
    s.args = {s.tensor(shape),
              Argument::integer(s.pick(-static_cast<int64_t>(shape.size()), shape.size() - 1)),
              Argument::boolean(false)};
  };
}
Argument random_dims(Sample& s, size_t rank) {
  Ints dims;
  for (size_t i = 0; i < rank; ++i) {
    if (s.coin())
      dims.push_back(s.coin() ? static_cast<int64_t>(i)
                              : static_cast<int64_t>(i) - static_cast<int64_t>(rank));
  }
  return Sample::ints(dims);
}
// Conv2d-shaped arguments; `transposed` picks the transposed form.
struct ConvCall {
  Ints x, w, stride, padding, dilation, output_padding;
  int64_t groups;
  bool transposed;
};
ConvCall conv_call(Sample& s) {
  ConvCall c;
  c.groups = s.pick(1, 2);
  c.transposed = s.coin(0.25);
  int64_t cin = c.groups * s.pick(1, 3), cout = c.groups * s.pick(1, 3);
  Ints k = {s.pick(1, 3), s.pick(1, 3)};
  // At least 5 wide: a dilated 3-tap kernel spans 5.
  c.x = {s.pick(1, 2), cin, s.pick(5, 8), s.pick(5, 8)};
  c.w = c.transposed ? Ints{cin, cout / c.groups, k[0], k[1]}
                     : Ints{cout, cin / c.groups, k[0], k[1]};
  c.stride = {s.pick(1, 2), s.pick(1, 2)};
  c.padding = {s.pick(0, 1), s.pick(0, 1)};
  c.dilation = {s.pick(1, 2), 1};
  c.output_padding = {0, 0};
  if (c.transposed && c.stride[0] > 1) c.output_padding[0] = s.pick(0, 1);
  return c;
}

}  // namespace

std::map<std::string, Generator> aten_generators() {
  std::map<std::string, Generator> g;
  for (const char* op : {"exp", "log", "sin", "cos", "tanh", "sigmoid", "sqrt", "rsqrt", "erf",
                         "reciprocal", "neg", "abs", "relu"}) {
    g[std::string("aten.") + op + ".default"] = unary();
  }
  g["aten.gelu.default"] = [](Sample& s) {
    s.args = {s.tensor(s.shape())};
    if (s.coin()) s.kwargs = {{InternedString("approximate"), Argument::string("tanh")}};
  };
  g["aten.silu.default"] = unary(true);
  g["aten.elu.default"] = [](Sample& s) {
    s.args = {s.tensor(s.shape())};
    if (s.coin())
      s.args.insert(s.args.end(), {Argument::floating(1.6732632423543772),
                                   Argument::floating(1.0507009873554805)});
  };
  for (const char* op : {"aten.add.Tensor", "aten.sub.Tensor", "aten.mul.Tensor", "aten.div.Tensor",
                         "aten.maximum.default", "aten.minimum.default"})
    g[op] = binary();
  g["aten.pow.Tensor_Tensor"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape, s.any_dtype(false)),
              s.tensor(s.broadcastable_to(shape), s.any_dtype(false))};
  };
  for (const char* op : {"aten.add.Scalar", "aten.sub.Scalar", "aten.mul.Scalar", "aten.div.Scalar",
                         "aten.clamp_min.default"})
    g[op] = tensor_scalar();
  g["aten.pow.Tensor_Scalar"] = [](Sample& s) {
    s.args = {s.tensor(s.shape(), s.any_dtype()),
              s.coin() ? Argument::integer(2) : Argument::floating(0.5)};
  };
  for (const char* op : {"aten.eq.Scalar", "aten.ne.Scalar", "aten.lt.Scalar", "aten.le.Scalar",
                         "aten.gt.Scalar", "aten.ge.Scalar"})
    g[op] = tensor_scalar();
  for (const char* op :
       {"aten.eq.Tensor", "aten.ne.Tensor", "aten.lt.Tensor", "aten.le.Tensor", "aten.gt.Tensor",
        "aten.ge.Tensor", "aten.logical_and.default", "aten.logical_or.default"})
    g[op] = binary();
  g["aten.logical_not.default"] = unary();
  // Bitwise ops take booleans or integers, both of one kind.
  auto bitwise_dtype = [](Sample& s, bool boolean) {
    return boolean ? at::kBool : (s.coin() ? at::kLong : at::kInt);
  };
  for (const char* op :
       {"aten.bitwise_and.Tensor", "aten.bitwise_or.Tensor", "aten.bitwise_xor.Tensor"}) {
    g[op] = [=](Sample& s) {
      Ints shape = s.shape();
      bool boolean = s.coin();
      s.args = {s.tensor(shape, bitwise_dtype(s, boolean)),
                s.tensor(s.broadcastable_to(shape), bitwise_dtype(s, boolean))};
    };
  }
  g["aten.bitwise_not.default"] = [=](Sample& s) {
    s.args = {s.tensor(s.shape(), bitwise_dtype(s, s.coin()))};
  };
  g["aten.clamp.default"] = [](Sample& s) {
    s.args = {s.tensor(s.shape(), s.any_dtype()),
              s.coin() ? Argument::floating(-0.5) : Argument::none(), Argument::integer(1)};
  };
  g["aten.where.self"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(s.broadcastable_to(shape), at::kBool),
              s.tensor(s.broadcastable_to(shape), s.any_dtype()), s.tensor(shape, s.any_dtype())};
  };
  g["aten.masked_fill.Scalar"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape, s.any_dtype()), s.tensor(s.broadcastable_to(shape), at::kBool),
              Argument::integer(-1)};
  };
  g["aten.masked_fill.Tensor"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape), s.tensor(s.broadcastable_to(shape), at::kBool), s.tensor({})};
  };
  // Views and copies.
  g["aten.t.default"] = [](Sample& s) { s.args = {s.tensor(s.shape(0, 2))}; };
  g["aten.transpose.int"] = [](Sample& s) {
    Ints shape = s.shape(1);
    int64_t r = shape.size();
    s.args = {s.tensor(shape), Argument::integer(s.pick(-r, r - 1)),
              Argument::integer(s.pick(-r, r - 1))};
  };
  g["aten.permute.default"] = [](Sample& s) {
    Ints shape = s.shape(), perm(shape.size());
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), s.rng());
    s.args = {s.tensor(shape), Sample::ints(perm)};
  };
  auto reshape_args = [](Sample& s, bool any_layout) {
    Ints shape = s.shape(1);
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    // A random factorization of n, sometimes with a -1.
    Ints target;
    int64_t rest = n;
    for (int64_t f = 2; f <= rest; ++f) {
      while (rest % f == 0 && s.coin(0.6)) {
        target.push_back(f);
        rest /= f;
      }
    }
    target.push_back(rest);
    std::shuffle(target.begin(), target.end(), s.rng());
    if (s.coin(0.3)) target[s.pick(0, target.size() - 1)] = -1;
    s.args = {s.tensor(shape, at::kFloat, any_layout), Sample::ints(target)};
  };
  g["aten.view.default"] = [=](Sample& s) { reshape_args(s, false); };
  g["aten.reshape.default"] = [=](Sample& s) { reshape_args(s, true); };
  g["aten._unsafe_view.default"] = [=](Sample& s) { reshape_args(s, false); };
  g["aten.expand.default"] = [](Sample& s) {
    Ints shape = s.shape(), from = s.broadcastable_to(shape), target = shape;
    for (size_t i = 0; i < from.size(); ++i) {
      if (s.coin(0.3)) target[target.size() - from.size() + i] = -1;
    }
    s.args = {s.tensor(from), Sample::ints(target)};
  };
  g["aten.unsqueeze.default"] = [](Sample& s) {
    Ints shape = s.shape();
    int64_t r = shape.size() + 1;
    s.args = {s.tensor(shape), Argument::integer(s.pick(-r, r - 1))};
  };
  g["aten.squeeze.dim"] = [](Sample& s) {
    Ints shape = s.shape(1);
    for (int64_t& d : shape)
      if (s.coin(0.4)) d = 1;
    int64_t r = shape.size();
    s.args = {s.tensor(shape), Argument::integer(s.pick(-r, r - 1))};
  };
  g["aten.squeeze.default"] = [](Sample& s) {
    Ints shape = s.shape();
    for (int64_t& d : shape)
      if (s.coin(0.4)) d = 1;
    s.args = {s.tensor(shape)};
  };
  g["aten.slice.Tensor"] = [](Sample& s) {
    Ints shape = s.shape(1);
    int64_t r = shape.size();
    auto bound = [&]() {
      return s.coin(0.2) ? Argument::none() : Argument::integer(s.pick(-7, 7));
    };
    s.args = {s.tensor(shape), Argument::integer(s.pick(-r, r - 1)), bound(), bound(),
              Argument::integer(s.pick(1, 3))};
  };
  g["aten.select.int"] = [](Sample& s) {
    Ints shape = s.shape(1);
    int64_t d = s.pick(0, shape.size() - 1);
    s.args = {s.tensor(shape), Argument::integer(d),
              Argument::integer(s.pick(-shape[d], shape[d] - 1))};
  };
  g["aten.split.Tensor"] = [](Sample& s) {
    Ints shape = s.shape(1);
    s.args = {s.tensor(shape), Argument::integer(s.pick(1, 4)),
              Argument::integer(s.pick(0, shape.size() - 1))};
  };
  g["aten.split_with_sizes.default"] = [](Sample& s) {
    Ints shape = s.shape(1);
    int64_t d = s.pick(0, shape.size() - 1), left = shape[d];
    Ints sizes;
    while (left > 0) {
      sizes.push_back(s.pick(1, left));
      left -= sizes.back();
    }
    s.args = {s.tensor(shape), Sample::ints(sizes), Argument::integer(d)};
  };
  g["aten.alias.default"] = unary();
  g["aten.detach.default"] = unary();
  // The views' inverses: src has the view's shape.
  g["aten.copy.default"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape), s.tensor(s.broadcastable_to(shape))};
  };
  g["aten.slice_scatter.default"] = [](Sample& s) {
    Ints shape = s.shape(1);
    int64_t d = s.pick(0, shape.size() - 1), start = s.pick(0, shape[d]);
    int64_t end = s.pick(start, shape[d]), step = s.pick(1, 2);
    Ints part = shape;
    part[d] = (end - start + step - 1) / step;
    s.args = {s.tensor(shape),          s.tensor(part),         Argument::integer(d),
              Argument::integer(start), Argument::integer(end), Argument::integer(step)};
  };
  g["aten.select_scatter.default"] = [](Sample& s) {
    Ints shape = s.shape(1);
    int64_t d = s.pick(0, shape.size() - 1);
    Ints part = shape;
    part.erase(part.begin() + d);
    s.args = {s.tensor(shape), s.tensor(part), Argument::integer(d),
              Argument::integer(s.pick(-shape[d], shape[d] - 1))};
  };
  g["aten.cumsum.default"] = [](Sample& s) {
    Ints shape = s.shape(1);
    s.args = {s.tensor(shape, s.any_dtype()),
              Argument::integer(s.pick(-static_cast<int64_t>(shape.size()), shape.size() - 1))};
  };
  g["aten.clone.default"] = [](Sample& s) {
    s.args = {s.tensor(s.shape())};
    if (s.coin())
      s.kwargs = {
          {InternedString("memory_format"), Argument::memory_format(MemoryFormat::Contiguous)}};
  };
  g["aten._to_copy.default"] = [](Sample& s) {
    s.args = {s.tensor(s.shape())};
    if (s.coin()) s.kwargs = {{InternedString("dtype"), Argument::dtype(DType::Float64)}};
  };
  // Reductions and softmax.
  g["aten.sum.default"] = unary();
  g["aten.mean.default"] = unary(true);
  g["aten.sum.dim_IntList"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape, s.any_dtype()), random_dims(s, shape.size()),
              Argument::boolean(s.coin())};
  };
  g["aten.mean.dim"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape, s.any_dtype(false)), random_dims(s, shape.size()),
              Argument::boolean(s.coin())};
  };
  g["aten.amax.default"] = [](Sample& s) {
    Ints shape = s.shape(1);
    s.args = {s.tensor(shape, s.any_dtype()), random_dims(s, shape.size()),
              Argument::boolean(s.coin())};
  };
  g["aten._softmax.default"] = softmax_like();
  g["aten._log_softmax.default"] = softmax_like();
  // Matmuls, cat, nn.
  g["aten.mm.default"] = [](Sample& s) {
    int64_t n = s.pick(1, 6), k = s.pick(1, 6), m = s.pick(1, 6);
    s.args = {s.tensor({n, k}), s.tensor({k, m})};
  };
  g["aten.addmm.default"] = [](Sample& s) {
    int64_t n = s.pick(1, 6), k = s.pick(1, 6), m = s.pick(1, 6);
    Ints bias = s.coin() ? Ints{m} : (s.coin() ? Ints{n, m} : Ints{1, m});
    s.args = {s.tensor(bias), s.tensor({n, k}), s.tensor({k, m})};
  };
  g["aten.bmm.default"] = [](Sample& s) {
    int64_t b = s.pick(1, 3), n = s.pick(1, 5), k = s.pick(1, 5), m = s.pick(1, 5);
    s.args = {s.tensor({b, n, k}), s.tensor({b, k, m})};
  };
  g["aten.cat.default"] = [](Sample& s) {
    Ints shape = s.shape(1);
    int64_t d = s.pick(0, shape.size() - 1);
    std::vector<Argument> parts;
    for (int64_t i = s.pick(1, 3); i > 0; --i) {
      Ints part = shape;
      part[d] = s.pick(1, 4);
      parts.push_back(s.tensor(part, s.any_dtype()));
    }
    s.args = {Argument::list(parts),
              Argument::integer(d - (s.coin() ? static_cast<int64_t>(shape.size()) : 0))};
  };
  g["aten.native_layer_norm.default"] = [](Sample& s) {
    Ints shape = s.shape(1);
    Ints normalized(shape.end() - s.pick(1, shape.size()), shape.end());
    bool affine = s.coin();
    s.args = {s.tensor(shape), Sample::ints(normalized),
              affine ? s.tensor(normalized) : Argument::none(),
              affine ? s.tensor(normalized) : Argument::none(), Argument::floating(1e-5)};
  };
  g["aten.native_dropout.default"] = [](Sample& s) {
    s.args = {s.tensor(s.shape()), Argument::floating(0.5), Argument::boolean(s.coin(0.8))};
  };
  g["aten.embedding.default"] = [](Sample& s) {
    int64_t vocab = s.pick(2, 9);
    s.args = {s.tensor({vocab, s.pick(1, 5)}), s.indices(s.shape(0, 3), vocab)};
  };
  g["aten.nll_loss_forward.default"] = [](Sample& s) {
    int64_t n = s.pick(1, 5), c = s.pick(2, 5);
    bool batched = s.coin(0.8);
    s.args = {s.tensor(batched ? Ints{n, c} : Ints{c}), s.indices(batched ? Ints{n} : Ints{}, c),
              Argument::none(), Argument::integer(s.pick(0, 2)), Argument::integer(-100)};
  };
  g["aten.convolution.default"] = [](Sample& s) {
    ConvCall c = conv_call(s);
    int64_t cout = c.transposed ? c.w[1] * c.groups : c.w[0];
    s.args = {s.tensor(c.x, at::kFloat, false),
              s.tensor(c.w, at::kFloat, false),
              s.coin() ? s.tensor({cout}) : Argument::none(),
              Sample::ints(c.stride),
              Sample::ints(c.padding),
              Sample::ints(c.dilation),
              Argument::boolean(c.transposed),
              Sample::ints(c.output_padding),
              Argument::integer(c.groups)};
  };
  g["aten.native_batch_norm.default"] = [](Sample& s) {
    Ints shape = {s.pick(2, 4), s.pick(1, 4), s.pick(1, 4), s.pick(1, 4)};
    shape.resize(s.pick(2, 4));
    Ints ch = {shape[1]};
    bool training = s.coin();
    s.args = {s.tensor(shape, at::kFloat, false),
              s.tensor(ch),
              s.tensor(ch),
              s.real(at::zeros(ch)),
              s.real(at::ones(ch)),
              Argument::boolean(training),
              Argument::floating(0.1),
              Argument::floating(1e-5)};
  };
  // PyTorch 2.x's functional form (exec/newer_aten_ops.cpp writes it for libtorch 1.13): the same
  // arguments.
  g["aten._native_batch_norm_legit_functional.default"] = g["aten.native_batch_norm.default"];
  g["aten.max_pool2d_with_indices.default"] = [](Sample& s) {
    Ints shape = {s.pick(1, 2), s.pick(1, 3), s.pick(4, 8), s.pick(4, 8)};
    int64_t k = s.pick(1, 3);
    s.args = {s.tensor(shape, at::kFloat, false),
              Sample::ints({k, k}),
              s.coin() ? Sample::ints({}) : Sample::ints({s.pick(1, 2), s.pick(1, 2)}),
              Argument::integer(s.pick(0, k / 2)),
              Argument::integer(1),
              Argument::boolean(s.coin())};
  };
  g["aten.triu.default"] = [](Sample& s) {
    s.args = {s.tensor(s.shape(2)), Argument::integer(s.pick(-1, 2))};
  };
  // Factories.
  auto sized = [](Sample& s, std::vector<Argument> more) {
    s.args = {Sample::ints(s.shape())};
    for (auto& a : more) s.args.push_back(std::move(a));
    if (s.coin())
      s.kwargs = {
          {InternedString("dtype"), Argument::dtype(s.coin() ? DType::Float64 : DType::Int32)}};
  };
  g["aten.full.default"] = [=](Sample& s) {
    sized(s, {s.coin() ? Argument::integer(3)
                       : (s.coin() ? Argument::boolean(true) : Argument::floating(1.5))});
  };
  for (const char* op : {"aten.zeros.default", "aten.ones.default", "aten.empty.memory_format"})
    g[op] = [=](Sample& s) { sized(s, {}); };
  g["aten.scalar_tensor.default"] = [](Sample& s) {
    s.args = {Argument::integer(s.pick(0, 3))};
    if (s.coin()) s.kwargs = {{InternedString("dtype"), Argument::dtype(DType::Int64)}};
  };
  g["aten.zeros_like.default"] = unary();
  g["aten.ones_like.default"] = unary();
  g["aten.full_like.default"] = [](Sample& s) {
    s.args = {s.tensor(s.shape()), Argument::floating(2.0)};
  };
  g["aten.new_zeros.default"] = [](Sample& s) {
    s.args = {s.tensor(s.shape(), s.any_dtype()), Sample::ints(s.shape())};
  };
  // Backward ops.
  for (const char* op : {"aten.sigmoid_backward.default", "aten.tanh_backward.default",
                         "aten.gelu_backward.default", "aten.silu_backward.default"})
    g[op] = same_shape_pair();
  g["aten.elu_backward.default"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape),          Argument::floating(1.0),
              Argument::floating(1.0),  Argument::floating(1.0),
              Argument::boolean(false), s.tensor(s.coin() ? shape : s.broadcastable_to(shape))};
  };
  g["aten.threshold_backward.default"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape), s.tensor(shape), Argument::integer(0)};
  };
  g["aten.native_dropout_backward.default"] = [](Sample& s) {
    Ints shape = s.shape();
    s.args = {s.tensor(shape), s.tensor(shape, at::kBool), Argument::floating(2.0)};
  };
  auto softmax_backward = [](Sample& s) {
    Ints shape = s.shape(1);
    s.args = {s.tensor(shape), s.tensor(shape), Argument::integer(s.pick(0, shape.size() - 1)),
              Argument::dtype(DType::Float32)};
  };
  g["aten._softmax_backward_data.default"] = softmax_backward;
  g["aten._log_softmax_backward_data.default"] = softmax_backward;
  g["aten.native_layer_norm_backward.default"] = [](Sample& s) {
    Ints shape = s.shape(1);
    int64_t k = s.pick(1, shape.size());
    Ints normalized(shape.end() - k, shape.end()), stats(shape.begin(), shape.end() - k);
    stats.resize(shape.size(), 1);
    bool affine = s.coin();
    // A weight/bias gradient is only asked for when there is a weight and bias.
    std::vector<Argument> mask = {Argument::boolean(s.coin(0.8)),
                                  Argument::boolean(affine && s.coin()),
                                  Argument::boolean(affine && s.coin())};
    s.args = {s.tensor(shape),
              s.tensor(shape),
              Sample::ints(normalized),
              s.tensor(stats, at::kFloat, false),
              s.tensor(stats, at::kFloat, false),
              affine ? s.tensor(normalized) : Argument::none(),
              affine ? s.tensor(normalized) : Argument::none(),
              Argument::list(mask)};
  };
  g["aten.embedding_dense_backward.default"] = [](Sample& s) {
    Ints idx = s.shape(1, 3), grad = idx;
    int64_t vocab = s.pick(2, 9);
    grad.push_back(s.pick(1, 5));
    s.args = {s.tensor(grad), s.indices(idx, vocab), Argument::integer(vocab),
              Argument::integer(-1), Argument::boolean(false)};
  };
  g["aten.nll_loss_backward.default"] = [](Sample& s) {
    int64_t n = s.pick(1, 5), c = s.pick(2, 5);
    int64_t reduction = s.pick(0, 2);
    s.args = {s.tensor(reduction == 0 ? Ints{n} : Ints{}),
              s.tensor({n, c}),
              s.indices({n}, c),
              Argument::none(),
              Argument::integer(reduction),
              Argument::integer(-100),
              s.real(at::ones({}))};
  };
  g["aten.convolution_backward.default"] = [](Sample& s) {
    ConvCall c = conv_call(s);
    c.transposed = false;
    c.output_padding = {0, 0};
    c.w = {c.groups * s.pick(1, 3), c.x[1] / c.groups, c.w[2], c.w[3]};
    at::Tensor x = at::randn(c.x), w = at::randn(c.w);
    at::Tensor y = at::convolution(x, w, {}, c.stride, c.padding, c.dilation, false,
                                   c.output_padding, c.groups);
    std::vector<Argument> mask = {Argument::boolean(s.coin(0.8)), Argument::boolean(s.coin(0.8)),
                                  Argument::boolean(s.coin())};
    s.args = {s.real(at::randn(y.sizes())),
              s.real(x),
              s.real(w),
              s.coin() ? Sample::ints({c.w[0]}) : Argument::none(),
              Sample::ints(c.stride),
              Sample::ints(c.padding),
              Sample::ints(c.dilation),
              Argument::boolean(false),
              Sample::ints(c.output_padding),
              Argument::integer(c.groups),
              Argument::list(mask)};
  };
  g["aten.native_batch_norm_backward.default"] = [](Sample& s) {
    Ints shape = {s.pick(2, 4), s.pick(1, 4), s.pick(1, 4), s.pick(1, 4)};
    Ints ch = {shape[1]};
    std::vector<Argument> mask = {Argument::boolean(true), Argument::boolean(s.coin()),
                                  Argument::boolean(s.coin())};
    s.args = {s.tensor(shape, at::kFloat, false),
              s.tensor(shape, at::kFloat, false),
              s.tensor(ch),
              s.real(at::zeros(ch)),
              s.real(at::ones(ch)),
              s.real(at::zeros(ch)),
              s.real(at::ones(ch)),
              Argument::boolean(true),
              Argument::floating(1e-5),
              Argument::list(mask)};
  };
  g["aten.slice_backward.default"] = [](Sample& s) {
    Ints in = s.shape(1);
    int64_t d = s.pick(0, in.size() - 1), start = s.pick(0, in[d] - 1),
            end = s.pick(start + 1, in[d]), step = s.pick(1, 2);
    Ints grad = in;
    grad[d] = (end - start + step - 1) / step;
    s.args = {s.tensor(grad),           Sample::ints(in),       Argument::integer(d),
              Argument::integer(start), Argument::integer(end), Argument::integer(step)};
  };
  g["aten.select_backward.default"] = [](Sample& s) {
    Ints in = s.shape(1);
    int64_t d = s.pick(0, in.size() - 1);
    Ints grad = in;
    grad.erase(grad.begin() + d);
    s.args = {s.tensor(grad), Sample::ints(in), Argument::integer(d),
              Argument::integer(s.pick(0, in[d] - 1))};
  };
  g["aten.max_pool2d_with_indices_backward.default"] = [](Sample& s) {
    Ints shape = {s.pick(1, 2), s.pick(1, 3), s.pick(4, 8), s.pick(4, 8)};
    int64_t k = s.pick(1, 3);
    at::Tensor x = at::randn(shape);
    auto [y, idx] = at::max_pool2d_with_indices(x, {k, k}, {k, k}, {0, 0}, {1, 1}, false);
    s.args = {s.real(at::randn(y.sizes())), s.real(x),
              Sample::ints({k, k}),         Sample::ints({k, k}),
              Sample::ints({0, 0}),         Sample::ints({1, 1}),
              Argument::boolean(false),     s.real(idx)};
  };
  return g;
}

}  // namespace remat::testing
