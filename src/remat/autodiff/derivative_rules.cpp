// One rule per forward op. Emission order is measured, not derived: libtorch 1.13's autograd
// (through functorch's aot_function) and PyTorch main's graphs in the spec and the seed fix it,
// e.g. mm, mul and div produce the *second* input's gradient first.
#include "remat/autodiff/derivative_rules.h"

#include <algorithm>
#include <limits>

#include "remat/ops/shape_rules.h"

namespace remat::autodiff {
namespace {

using Ctx = BackwardContext;
using Dims = std::vector<int64_t>;

Argument n(Node* x) {
  return Argument::node(x);
}

bool column_major(const Node* x) {
  auto c = shape_rules::concrete(*x->meta.tensor());
  return c.rank() == 2 && c.strides[0] == 1 && c.strides[1] == c.sizes[0];
}

Node* t(Ctx& c, Node* x) {
  return c.emit("aten.t.default", {n(x)});
}

// mm_mat1_backward: the gradient of the left factor of `left @ right`.
Node* mm_left_grad(Ctx& c, Node* grad, Node* left, Node* right) {
  if (column_major(left)) return t(c, c.emit("aten.mm.default", {n(right), n(t(c, grad))}));
  return c.emit("aten.mm.default", {n(grad), n(t(c, right))});
}
// mm_mat2_backward: the gradient of the right factor.
Node* mm_right_grad(Ctx& c, Node* grad, Node* left, Node* right) {
  if (column_major(right)) return t(c, c.emit("aten.mm.default", {n(t(c, grad)), n(left)}));
  return c.emit("aten.mm.default", {n(t(c, left)), n(grad)});
}

void mm(Ctx& c) {
  Node* self = c.input(0);
  Node* mat2 = c.input(1);
  if (c.needs_grad(1)) c.set_grad(1, mm_right_grad(c, c.grad(), self, mat2));
  if (c.needs_grad(0)) c.set_grad(0, mm_left_grad(c, c.grad(), self, mat2));
}

void addmm(Ctx& c) {
  Node* mat1 = c.input(1);
  Node* mat2 = c.input(2);
  if (c.needs_grad(1)) c.set_grad(1, mm_left_grad(c, c.grad(), mat1, mat2));
  if (c.needs_grad(2)) c.set_grad(2, mm_right_grad(c, c.grad(), mat1, mat2));
  c.set_grad(0, c.grad());  // beta == 1: the bias gradient is the gradient, reduced by the engine
}

void bmm(Ctx& c) {
  auto transpose = [&](Node* x) {
    return c.emit("aten.transpose.int", {n(x), Argument::integer(1), Argument::integer(2)});
  };
  if (c.needs_grad(1))
    c.set_grad(1, c.emit("aten.bmm.default", {n(transpose(c.input(0))), n(c.grad())}));
  if (c.needs_grad(0))
    c.set_grad(0, c.emit("aten.bmm.default", {n(c.grad()), n(transpose(c.input(1)))}));
}

// reshape(grad, sizes) as it traces: a view when the strides allow one.
Node* reshape_to(Ctx& c, Node* grad, const Dims& sizes) {
  auto g = shape_rules::concrete(*grad->meta.tensor());
  if (shape_rules::view_strides(g, sizes))
    return c.emit("aten.view.default", {n(grad), int_list(sizes)});
  Node* copy = c.emit(
      "aten.clone.default", {n(grad)},
      {{InternedString("memory_format"), Argument::memory_format(MemoryFormat::Contiguous)}});
  return c.emit("aten._unsafe_view.default", {n(copy), int_list(sizes)});
}

void pass_through(Ctx& c) {
  c.set_grad(0, c.grad());
}
void t_rule(Ctx& c) {
  c.set_grad(0, t(c, c.grad()));
}
void transpose_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.transpose.int", {n(c.grad()), c.arg(1), c.arg(2)}));
}
void permute_rule(Ctx& c) {
  Dims dims = *c.call().int_list(1);
  Dims inverse(dims.size());
  for (size_t i = 0; i < dims.size(); ++i)
    inverse[shape_rules::wrap_dim(dims[i], static_cast<int64_t>(dims.size()))] =
        static_cast<int64_t>(i);
  c.set_grad(0, c.emit("aten.permute.default", {n(c.grad()), int_list(inverse)}));
}
void view_rule(Ctx& c) {
  c.set_grad(0, reshape_to(c, c.grad(), sizes_of(c.input(0))));
}
void unsqueeze_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.squeeze.dim", {n(c.grad()), c.arg(1)}));
}
void squeeze_dim_rule(Ctx& c) {
  Dims in = sizes_of(c.input(0));
  if (in.empty()) return c.set_grad(0, c.grad());
  int64_t d = shape_rules::wrap_dim(c.call().integer(1), static_cast<int64_t>(in.size()));
  c.set_grad(0, in[d] == 1 ? c.emit("aten.unsqueeze.default", {n(c.grad()), c.arg(1)}) : c.grad());
}
void squeeze_rule(Ctx& c) {
  Dims in = sizes_of(c.input(0));
  Node* g = c.grad();
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 1)
      g = c.emit("aten.unsqueeze.default", {n(g), Argument::integer(static_cast<int64_t>(i))});
  }
  c.set_grad(0, g);
}
void expand_rule(Ctx& c) {
  c.set_grad(0, c.grad());
}  // the engine's sum_to reduces it
void slice_rule(Ctx& c) {
  auto start = c.call().optional_integer(2);
  auto end = c.call().optional_integer(3);
  c.set_grad(
      0, c.emit("aten.slice_backward.default",
                {n(c.grad()), int_list(sizes_of(c.input(0))), c.arg(1),
                 Argument::integer(start.value_or(0)),
                 Argument::integer(end.value_or(std::numeric_limits<int64_t>::max())), c.arg(4)}));
}
void select_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.select_backward.default",
                       {n(c.grad()), int_list(sizes_of(c.input(0))), c.arg(1), c.arg(2)}));
}

Argument device_of(const Node* x) {
  return Argument::device(x->meta.tensor()->device.is_null() ? "cpu"
                                                             : x->meta.tensor()->device.view());
}

// split_backward: missing gradients become zeros, then one cat.
void split_rule(Ctx& c) {
  std::vector<Argument> parts;
  int64_t dim = c.call().integer(2);
  for (size_t k = 0; k < c.num_results(); ++k) {
    Node* out = c.result(k);
    Node* g = c.grad(k);
    if (!g) {
      g = c.emit("aten.zeros.default", {int_list(sizes_of(out))},
                 {{InternedString("dtype"), Argument::dtype(out->meta.tensor()->dtype)},
                  {InternedString("layout"), Argument::layout(Layout::Strided)},
                  {InternedString("device"), device_of(out)}});
    }
    parts.push_back(n(g));
  }
  c.set_grad(
      0, c.emit("aten.cat.default", {Argument::list(std::move(parts)), Argument::integer(dim)}));
}

void cat_rule(Ctx& c) {
  const Argument& list = c.arg(0);
  Dims out = sizes_of(c.grad());
  int64_t dim = shape_rules::wrap_dim(c.call().integer(1), static_cast<int64_t>(out.size()));
  int64_t offset = 0;
  for (size_t i = 0; i < list.elements().size(); ++i) {
    Dims in = sizes_of(list.elements()[i].as_node());
    if (in.size() == 1 && in[0] == 0) continue;  // legacy: skipped by cat
    int64_t size = in[dim];
    if (c.needs_grad(0, i)) {
      c.set_grad(0,
                 c.emit("aten.slice.Tensor",
                        {n(c.grad()), Argument::integer(dim), Argument::integer(offset),
                         Argument::integer(offset + size)}),
                 i);
    }
    offset += size;
  }
}

void to_copy_rule(Ctx& c) {
  Node* x = c.input(0);
  c.set_grad(0, c.emit("aten._to_copy.default", {n(c.grad())},
                       {{InternedString("dtype"), Argument::dtype(x->meta.tensor()->dtype)},
                        {InternedString("layout"), Argument::layout(Layout::Strided)},
                        {InternedString("device"), device_of(x)}}));
}

bool is_one(const Argument& a) {
  return (a.is(ArgKind::Int) && a.as_int() == 1) || (a.is(ArgKind::Float) && a.as_float() == 1.0);
}

void add_rule(Ctx& c) {
  c.set_grad(0, c.grad());
  const Argument& alpha = c.arg(2);
  c.set_grad(1, is_one(alpha) ? c.grad() : c.emit("aten.mul.Scalar", {n(c.grad()), alpha}));
}
void sub_rule(Ctx& c) {
  const Argument& alpha = c.arg(2);
  if (c.needs_grad(1)) {
    c.set_grad(1, is_one(alpha) ? c.emit("aten.neg.default", {n(c.grad())})
                                : c.emit("aten.mul.Scalar",
                                         {n(c.grad()), Argument::floating(-c.call().number(2))}));
  }
  c.set_grad(0, c.grad());
}
void mul_rule(Ctx& c) {
  if (c.needs_grad(1)) c.set_grad(1, c.emit("aten.mul.Tensor", {n(c.grad()), c.arg(0)}));
  if (c.needs_grad(0)) c.set_grad(0, c.emit("aten.mul.Tensor", {n(c.grad()), c.arg(1)}));
}
void mul_scalar_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.mul.Scalar", {n(c.grad()), c.arg(1)}));
}
void div_rule(Ctx& c) {
  if (c.needs_grad(1)) {
    Node* q = c.emit("aten.div.Tensor", {c.arg(0), c.arg(1)});
    Node* q2 = c.emit("aten.div.Tensor", {n(q), c.arg(1)});
    Node* ng = c.emit("aten.neg.default", {n(c.grad())});
    c.set_grad(1, c.emit("aten.mul.Tensor", {n(ng), n(q2)}));
  }
  if (c.needs_grad(0)) c.set_grad(0, c.emit("aten.div.Tensor", {n(c.grad()), c.arg(1)}));
}
void div_scalar_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.div.Scalar", {n(c.grad()), c.arg(1)}));
}

void neg_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.neg.default", {n(c.grad())}));
}
void exp_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.mul.Tensor", {n(c.grad()), n(c.saved())}));
}
void log_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.div.Tensor", {n(c.grad()), n(c.input(0))}));
}
void sin_rule(Ctx& c) {
  Node* cos = c.emit("aten.cos.default", {n(c.input(0))});
  c.set_grad(0, c.emit("aten.mul.Tensor", {n(c.grad()), n(cos)}));
}
void cos_rule(Ctx& c) {
  Node* sin = c.emit("aten.sin.default", {n(c.input(0))});
  Node* neg = c.emit("aten.neg.default", {n(sin)});
  c.set_grad(0, c.emit("aten.mul.Tensor", {n(c.grad()), n(neg)}));
}
void tanh_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.tanh_backward.default", {n(c.grad()), n(c.saved())}));
}
void sigmoid_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.sigmoid_backward.default", {n(c.grad()), n(c.saved())}));
}
void relu_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.threshold_backward.default",
                       {n(c.grad()), n(c.saved()), Argument::integer(0)}));
}
void gelu_rule(Ctx& c) {
  std::vector<Kwarg> kw;
  if (c.call().text(1) != "none") kw.push_back({InternedString("approximate"), c.arg(1)});
  c.set_grad(0, c.emit("aten.gelu_backward.default", {n(c.grad()), n(c.input(0))}, std::move(kw)));
}
// derivatives.yaml: elu_backward(grad, alpha, scale, input_scale, /*is_result=*/false, self).
void elu_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.elu_backward.default", {n(c.grad()), c.arg(1), c.arg(2), c.arg(3),
                                                     Argument::boolean(false), n(c.input(0))}));
}
void silu_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.silu_backward.default", {n(c.grad()), n(c.input(0))}));
}
void sqrt_rule(Ctx& c) {
  Node* twice = c.emit("aten.mul.Scalar", {n(c.saved()), Argument::integer(2)});
  c.set_grad(0, c.emit("aten.div.Tensor", {n(c.grad()), n(twice)}));
}
void rsqrt_rule(Ctx& c) {
  Node* cube = c.emit("aten.pow.Tensor_Scalar", {n(c.saved()), Argument::integer(3)});
  Node* scaled = c.emit("aten.mul.Scalar", {n(c.grad()), Argument::floating(-0.5)});
  c.set_grad(0, c.emit("aten.mul.Tensor", {n(scaled), n(cube)}));
}
void pow_rule(Ctx& c) {
  double e = c.call().number(1);
  if (e == 0) {
    c.set_grad(0, c.emit("aten.zeros_like.default", {n(c.input(0))},
                         {{InternedString("memory_format"),
                           Argument::memory_format(MemoryFormat::Preserve)}}));
    return;
  }
  Node* p = c.emit("aten.pow.Tensor_Scalar", {n(c.input(0)), Argument::floating(e - 1)});
  Node* scaled = c.emit("aten.mul.Scalar", {n(p), Argument::floating(e)});
  c.set_grad(0, c.emit("aten.mul.Tensor", {n(c.grad()), n(scaled)}));
}

// sum_backward: unsqueeze the reduced dims back (one dim: as given; several: ascending), expand.
// With no dims (every dim reduced) the gradient is 0-dim and expands as it is.
Node* unreduce(Ctx& c, Node* grad, const std::optional<Dims>& dims, bool keepdim, const Dims& in) {
  Node* g = grad;
  if (!keepdim && !in.empty() && dims && !dims->empty()) {
    if (dims && dims->size() == 1) {
      g = c.emit("aten.unsqueeze.default", {n(g), Argument::integer((*dims)[0])});
    } else {
      std::vector<bool> reduce(in.size(), false);
      for (int64_t d : *dims)
        reduce[shape_rules::wrap_dim(d, static_cast<int64_t>(in.size()))] = true;
      for (size_t i = 0; i < in.size(); ++i) {
        if (reduce[i])
          g = c.emit("aten.unsqueeze.default", {n(g), Argument::integer(static_cast<int64_t>(i))});
      }
    }
  }
  return c.emit("aten.expand.default", {n(g), int_list(in)});
}
void sum_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.expand.default", {n(c.grad()), int_list(sizes_of(c.input(0)))}));
}
void sum_dim_rule(Ctx& c) {
  c.set_grad(
      0, unreduce(c, c.grad(), c.call().int_list(1), c.call().boolean(2), sizes_of(c.input(0))));
}
void mean_rule(Ctx& c) {
  Dims in = sizes_of(c.input(0));
  Node* e = c.emit("aten.expand.default", {n(c.grad()), int_list(in)});
  c.set_grad(0, c.emit("aten.div.Scalar", {n(e), Argument::integer(shape_rules::numel(in))}));
}
void mean_dim_rule(Ctx& c) {
  Dims in = sizes_of(c.input(0));
  auto dims = c.call().int_list(1);
  int64_t count = 1;
  if (!dims || dims->empty()) {
    count = shape_rules::numel(in);
  } else {
    for (int64_t d : *dims) count *= in[shape_rules::wrap_dim(d, static_cast<int64_t>(in.size()))];
  }
  Node* e = unreduce(c, c.grad(), dims, c.call().boolean(2), in);
  c.set_grad(0, c.emit("aten.div.Scalar", {n(e), Argument::integer(count)}));
}
void softmax_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten._softmax_backward_data.default",
                       {n(c.grad()), n(c.saved()), c.arg(1),
                        Argument::dtype(c.input(0)->meta.tensor()->dtype)}));
}
void log_softmax_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten._log_softmax_backward_data.default",
                       {n(c.grad()), n(c.saved()), c.arg(1),
                        Argument::dtype(c.input(0)->meta.tensor()->dtype)}));
}

Argument mask(std::initializer_list<bool> bits) {
  std::vector<Argument> out;
  for (bool b : bits) out.push_back(Argument::boolean(b));
  return Argument::list(std::move(out));
}

void layer_norm_rule(Ctx& c) {
  AppendedOp b =
      c.emit_tuple("aten.native_layer_norm_backward.default",
                   {n(c.grad()), c.arg(0), c.arg(1), n(c.result(1)), n(c.result(2)), c.arg(2),
                    c.arg(3), mask({c.needs_grad(0), c.needs_grad(2), c.needs_grad(3)})});
  c.set_grad(0, b.outputs[0]);
  c.set_grad(2, b.outputs[1]);
  c.set_grad(3, b.outputs[2]);
}
void dropout_rule(Ctx& c) {
  double p = c.call().number(1);
  bool train = c.call().optional_boolean(2).value_or(true);
  double scale = !train ? 1.0 : (p == 1.0 ? 0.0 : 1.0 / (1.0 - p));
  c.set_grad(0, c.emit("aten.native_dropout_backward.default",
                       {n(c.grad()), n(c.result(1)), Argument::floating(scale)}));
}
void embedding_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.embedding_dense_backward.default",
                       {n(c.grad()), c.arg(1), Argument::integer(sizes_of(c.input(0))[0]), c.arg(2),
                        c.arg(3)}));
}
void nll_loss_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.nll_loss_backward.default", {n(c.grad()), c.arg(0), c.arg(1), c.arg(2),
                                                          c.arg(3), c.arg(4), n(c.result(1))}));
}
void convolution_rule(Ctx& c) {
  Argument bias_sizes =
      c.arg(2).is_none() ? Argument::none() : int_list(sizes_of(c.arg(2).as_node()));
  AppendedOp b = c.emit_tuple(
      "aten.convolution_backward.default",
      {n(c.grad()), c.arg(0), c.arg(1), bias_sizes, c.arg(3), c.arg(4), c.arg(5), c.arg(6),
       c.arg(7), c.arg(8), mask({c.needs_grad(0), c.needs_grad(1), c.needs_grad(2)})});
  c.set_grad(0, b.outputs[0]);
  c.set_grad(1, b.outputs[1]);
  c.set_grad(2, b.outputs[2]);
}
void batch_norm_rule(Ctx& c) {
  AppendedOp b = c.emit_tuple(
      "aten.native_batch_norm_backward.default",
      {n(c.grad()), c.arg(0), c.arg(1), c.arg(3), c.arg(4), n(c.result(1)), n(c.result(2)),
       c.arg(5), c.arg(7), mask({c.needs_grad(0), c.needs_grad(1), c.needs_grad(2)})});
  c.set_grad(0, b.outputs[0]);
  c.set_grad(1, b.outputs[1]);
  c.set_grad(2, b.outputs[2]);
}
void max_pool2d_rule(Ctx& c) {
  const BoundCall& call = c.call();
  c.set_grad(0, c.emit("aten.max_pool2d_with_indices_backward.default",
                       {n(c.grad()), c.arg(0), int_list(*call.int_list(1)),
                        int_list(*call.int_list(2)), int_list(*call.int_list(3)),
                        int_list(*call.int_list(4)), c.arg(5), n(c.result(1))}));
}
Node* zero_like_scalar(Ctx& c, Node* like) {
  return c.emit("aten.scalar_tensor.default", {Argument::integer(0)},
                {{InternedString("dtype"), Argument::dtype(like->meta.tensor()->dtype)},
                 {InternedString("layout"), Argument::layout(Layout::Strided)},
                 {InternedString("device"), device_of(like)}});
}
void where_rule(Ctx& c) {
  if (c.needs_grad(2))
    c.set_grad(
        2, c.emit("aten.where.self", {c.arg(0), n(zero_like_scalar(c, c.grad())), n(c.grad())}));
  if (c.needs_grad(1))
    c.set_grad(
        1, c.emit("aten.where.self", {c.arg(0), n(c.grad()), n(zero_like_scalar(c, c.grad()))}));
}
void masked_fill_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.masked_fill.Scalar", {n(c.grad()), c.arg(1), Argument::integer(0)}));
}
void triu_rule(Ctx& c) {
  c.set_grad(0, c.emit("aten.triu.default", {n(c.grad()), c.arg(1)}));
}

const std::vector<DerivativeRule>& table() {
  static const std::vector<DerivativeRule> rules = {
      {"aten.mm.default", {}, {}, mm},
      {"aten.addmm.default", {}, {}, addmm},
      {"aten.bmm.default", {}, {}, bmm},
      {"aten.t.default", {}, {}, t_rule},
      {"aten.transpose.int", {}, {}, transpose_rule},
      {"aten.permute.default", {}, {}, permute_rule},
      {"aten.view.default", {}, {}, view_rule},
      {"aten._unsafe_view.default", {}, {}, view_rule},
      {"aten.reshape.default", {}, {}, view_rule},
      {"aten.expand.default", {}, {}, expand_rule},
      {"aten.unsqueeze.default", {}, {}, unsqueeze_rule},
      {"aten.squeeze.dim", {}, {}, squeeze_dim_rule},
      {"aten.squeeze.default", {}, {}, squeeze_rule},
      {"aten.slice.Tensor", {}, {}, slice_rule},
      {"aten.select.int", {}, {}, select_rule},
      {"aten.split.Tensor", {}, {}, split_rule},
      {"aten.split_with_sizes.default", {}, {}, split_rule},
      {"aten.cat.default", {}, {}, cat_rule},
      {"aten.clone.default", {}, {}, pass_through},
      {"aten.alias.default", {}, {}, pass_through},
      {"aten._to_copy.default", {}, {}, to_copy_rule},
      {"aten.add.Tensor", {}, {}, add_rule},
      {"aten.add.Scalar", {}, {}, pass_through},
      {"aten.sub.Tensor", {}, {}, sub_rule},
      {"aten.sub.Scalar", {}, {}, pass_through},
      {"aten.mul.Tensor", {}, {}, mul_rule},
      {"aten.mul.Scalar", {}, {}, mul_scalar_rule},
      {"aten.div.Tensor", {}, {}, div_rule},
      {"aten.div.Scalar", {}, {}, div_scalar_rule},
      {"aten.neg.default", {}, {}, neg_rule},
      {"aten.exp.default", {0}, {}, exp_rule},
      {"aten.log.default", {}, {}, log_rule},
      {"aten.sin.default", {}, {}, sin_rule},
      {"aten.cos.default", {}, {}, cos_rule},
      {"aten.tanh.default", {0}, {}, tanh_rule},
      {"aten.sigmoid.default", {0}, {}, sigmoid_rule},
      {"aten.relu.default", {0}, {}, relu_rule},
      {"aten.gelu.default", {}, {}, gelu_rule},
      {"aten.silu.default", {}, {}, silu_rule},
      {"aten.elu.default", {}, {}, elu_rule},
      {"aten.sqrt.default", {0}, {}, sqrt_rule},
      {"aten.rsqrt.default", {0}, {}, rsqrt_rule},
      {"aten.pow.Tensor_Scalar", {}, {}, pow_rule},
      {"aten.sum.default", {}, {}, sum_rule},
      {"aten.sum.dim_IntList", {}, {}, sum_dim_rule},
      {"aten.mean.default", {}, {}, mean_rule},
      {"aten.mean.dim", {}, {}, mean_dim_rule},
      {"aten._softmax.default", {0}, {}, softmax_rule},
      {"aten._log_softmax.default", {0}, {}, log_softmax_rule},
      {"aten.native_layer_norm.default", {}, {0}, layer_norm_rule},
      {"aten.native_dropout.default", {}, {0}, dropout_rule},
      {"aten.embedding.default", {}, {}, embedding_rule},
      {"aten.nll_loss_forward.default", {}, {0}, nll_loss_rule},
      {"aten.convolution.default", {}, {}, convolution_rule},
      {"aten.native_batch_norm.default", {}, {0}, batch_norm_rule},
      {"aten.max_pool2d_with_indices.default", {}, {0}, max_pool2d_rule},
      {"aten.where.self", {}, {}, where_rule},
      {"aten.masked_fill.Scalar", {}, {}, masked_fill_rule},
      {"aten.triu.default", {}, {}, triu_rule},
  };
  return rules;
}

}  // namespace

const DerivativeRule* find_rule(std::string_view target) {
  for (const DerivativeRule& r : table()) {
    if (r.target == target) return &r;
  }
  return nullptr;
}

std::span<const DerivativeRule> all_rules() {
  return table();
}

bool is_non_differentiable(std::string_view target) {
  static constexpr std::string_view kOps[] = {
      "aten.detach.default",     "aten.eq.Scalar",           "aten.ne.Scalar",
      "aten.lt.Scalar",          "aten.le.Scalar",           "aten.gt.Scalar",
      "aten.ge.Scalar",          "aten.full.default",        "aten.zeros.default",
      "aten.ones.default",       "aten.empty.memory_format", "aten.scalar_tensor.default",
      "aten.zeros_like.default", "aten.ones_like.default",   "aten.full_like.default",
      "aten.new_zeros.default"};
  return std::find(std::begin(kOps), std::end(kOps), target) != std::end(kOps);
}

}  // namespace remat::autodiff
