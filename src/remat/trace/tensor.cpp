#include "remat/trace/tensor.h"

#include <numeric>

#include "remat/ops/shape_rules.h"
#include "remat/support/assert.h"
#include "remat/trace/tracer.h"

namespace remat::trace {
namespace {

Argument ints(const std::vector<int64_t>& v) {
  std::vector<Argument> out;
  out.reserve(v.size());
  for (int64_t x : v) out.push_back(Argument::integer(x));
  return Argument::list(std::move(out));
}

Tensor unary(std::string_view target, const Tensor& x, const Loc& loc) {
  return x.tracer().record1(target, {x.arg()}, {}, loc);
}

Tensor binary(std::string_view target, const Tensor& a, const Tensor& b, const Loc& loc) {
  return a.tracer().record1(target, {a.arg(), b.arg()}, {}, loc);
}

// Python numbers go to the Tensor overload as wrapped scalars (`aten.mul.Tensor(x, 0.5)`),
// as in graphs traced from Python code.
Tensor with_number(std::string_view target, const Tensor& a, double b, const Loc& loc) {
  return a.tracer().record1(target, {a.arg(), Argument::floating(b)}, {}, loc);
}

int64_t product(const std::vector<int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), int64_t{1}, std::multiplies<>());
}

bool viewable(const Tensor& x, const std::vector<int64_t>& sizes) {
  shape_rules::ConcreteTensor c = shape_rules::concrete(x.meta());
  std::vector<int64_t> resolved = sizes;
  try {
    resolved = shape_rules::infer_size(sizes, c.numel());
  } catch (const shape_rules::InferError&) {
    return true;  // let view report the error
  }
  return shape_rules::view_strides(c, resolved).has_value();
}

Tracer& tracer_of(const Tensor& x) {
  REMAT_ASSERT(x.defined()) << "use of an undefined Tensor";
  return x.tracer();
}

Argument optional_arg(const Tensor& t) {
  return t.defined() ? t.arg() : Argument::none();
}

// What torch.ones(..., dtype=d) passes down: no layout (it stays None), the device, no pinning.
std::vector<Kwarg> factory_options(DType dtype) {
  Tracer& t = Tracer::current();
  return {{InternedString("dtype"), Argument::dtype(dtype)},
          {InternedString("device"), Argument::device(t.device().view())},
          {InternedString("pin_memory"), Argument::boolean(false)}};
}

}  // namespace

// --- Tensor ---

const TensorMeta& Tensor::meta() const {
  REMAT_ASSERT(node_ && node_->meta.tensor()) << "tensor without metadata";
  return *node_->meta.tensor();
}

std::vector<int64_t> Tensor::sizes() const {
  return shape_rules::concrete(meta()).sizes;
}
int64_t Tensor::size(int64_t d) const {
  auto s = sizes();
  return s.at(shape_rules::wrap_dim(d, static_cast<int64_t>(s.size())));
}
int64_t Tensor::dim() const {
  return static_cast<int64_t>(meta().rank());
}
int64_t Tensor::numel() const {
  return product(sizes());
}

Tensor Tensor::t(Loc loc) const {
  return unary("aten.t.default", *this, loc);
}
Tensor Tensor::transpose(int64_t d0, int64_t d1, Loc loc) const {
  return tracer_of(*this).record1("aten.transpose.int",
                                  {arg(), Argument::integer(d0), Argument::integer(d1)}, {}, loc);
}
Tensor Tensor::permute(const std::vector<int64_t>& dims, Loc loc) const {
  return tracer_of(*this).record1("aten.permute.default", {arg(), ints(dims)}, {}, loc);
}
Tensor Tensor::view(const std::vector<int64_t>& sizes, Loc loc) const {
  return tracer_of(*this).record1("aten.view.default", {arg(), ints(sizes)}, {}, loc);
}
Tensor Tensor::reshape(const std::vector<int64_t>& new_sizes, Loc loc) const {
  if (viewable(*this, new_sizes)) return view(new_sizes, loc);
  Tensor copy = tracer_of(*this).record1(
      "aten.clone.default", {arg()},
      {{InternedString("memory_format"), Argument::memory_format(MemoryFormat::Contiguous)}}, loc);
  return tracer_of(*this).record1("aten._unsafe_view.default", {copy.arg(), ints(new_sizes)}, {},
                                  loc);
}
Tensor Tensor::expand(const std::vector<int64_t>& sizes, Loc loc) const {
  return tracer_of(*this).record1("aten.expand.default", {arg(), ints(sizes)}, {}, loc);
}
Tensor Tensor::unsqueeze(int64_t d, Loc loc) const {
  return tracer_of(*this).record1("aten.unsqueeze.default", {arg(), Argument::integer(d)}, {}, loc);
}
Tensor Tensor::squeeze(int64_t d, Loc loc) const {
  return tracer_of(*this).record1("aten.squeeze.dim", {arg(), Argument::integer(d)}, {}, loc);
}
Tensor Tensor::slice(int64_t d, std::optional<int64_t> start, std::optional<int64_t> end,
                     int64_t step, Loc loc) const {
  auto opt = [](std::optional<int64_t> v) { return v ? Argument::integer(*v) : Argument::none(); };
  return tracer_of(*this).record1(
      "aten.slice.Tensor",
      {arg(), Argument::integer(d), opt(start), opt(end), Argument::integer(step)}, {}, loc);
}
Tensor Tensor::select(int64_t d, int64_t index, Loc loc) const {
  return tracer_of(*this).record1("aten.select.int",
                                  {arg(), Argument::integer(d), Argument::integer(index)}, {}, loc);
}
std::vector<Tensor> Tensor::split(int64_t split_size, int64_t d, Loc loc) const {
  return tracer_of(*this).record(
      "aten.split.Tensor", {arg(), Argument::integer(split_size), Argument::integer(d)}, {}, loc);
}
Tensor Tensor::contiguous(Loc loc) const {
  shape_rules::ConcreteTensor c = shape_rules::concrete(meta());
  if (shape_rules::is_contiguous(c.sizes, c.strides)) return *this;
  return tracer_of(*this).record1(
      "aten.clone.default", {arg()},
      {{InternedString("memory_format"), Argument::memory_format(MemoryFormat::Contiguous)}}, loc);
}
Tensor Tensor::clone(Loc loc) const {
  return unary("aten.clone.default", *this, loc);
}
Tensor Tensor::detach(Loc loc) const {
  return unary("aten.detach.default", *this, loc);
}
Tensor Tensor::to(DType dtype, Loc loc) const {
  if (dtype == this->dtype()) return *this;
  return tracer_of(*this).record1("aten._to_copy.default", {arg()},
                                  {{InternedString("dtype"), Argument::dtype(dtype)}}, loc);
}
Tensor Tensor::sum(Loc loc) const {
  return unary("aten.sum.default", *this, loc);
}
Tensor Tensor::sum(const std::vector<int64_t>& dims, bool keepdim, Loc loc) const {
  return tracer_of(*this).record1("aten.sum.dim_IntList",
                                  {arg(), ints(dims), Argument::boolean(keepdim)}, {}, loc);
}
Tensor Tensor::mean(Loc loc) const {
  return unary("aten.mean.default", *this, loc);
}
Tensor Tensor::mean(const std::vector<int64_t>& dims, bool keepdim, Loc loc) const {
  return tracer_of(*this).record1("aten.mean.dim", {arg(), ints(dims), Argument::boolean(keepdim)},
                                  {}, loc);
}
Tensor Tensor::amax(const std::vector<int64_t>& dims, bool keepdim, Loc loc) const {
  return tracer_of(*this).record1("aten.amax.default",
                                  {arg(), ints(dims), Argument::boolean(keepdim)}, {}, loc);
}
Tensor Tensor::pow(double exponent, Loc loc) const {
  return trace::pow(*this, exponent, loc);
}
Tensor Tensor::masked_fill(const Tensor& mask, double value, Loc loc) const {
  return trace::masked_fill(*this, mask, value, loc);
}

// --- operators ---

Tensor operator+(const Located& a, const Tensor& b) {
  return binary("aten.add.Tensor", a.tensor, b, a.loc);
}
Tensor operator-(const Located& a, const Tensor& b) {
  return binary("aten.sub.Tensor", a.tensor, b, a.loc);
}
Tensor operator*(const Located& a, const Tensor& b) {
  return binary("aten.mul.Tensor", a.tensor, b, a.loc);
}
Tensor operator/(const Located& a, const Tensor& b) {
  return binary("aten.div.Tensor", a.tensor, b, a.loc);
}
Tensor operator+(const Located& a, double b) {
  return with_number("aten.add.Tensor", a.tensor, b, a.loc);
}
Tensor operator-(const Located& a, double b) {
  return with_number("aten.sub.Tensor", a.tensor, b, a.loc);
}
Tensor operator*(const Located& a, double b) {
  return with_number("aten.mul.Tensor", a.tensor, b, a.loc);
}
Tensor operator/(const Located& a, double b) {
  return with_number("aten.div.Tensor", a.tensor, b, a.loc);
}
Tensor operator+(double a, const Located& b) {
  return with_number("aten.add.Tensor", b.tensor, a, b.loc);
}
Tensor operator*(double a, const Located& b) {
  return with_number("aten.mul.Tensor", b.tensor, a, b.loc);
}
Tensor operator-(const Located& a) {
  return unary("aten.neg.default", a.tensor, a.loc);
}

// --- elementwise ---

Tensor sin(const Tensor& x, Loc loc) {
  return unary("aten.sin.default", x, loc);
}
Tensor cos(const Tensor& x, Loc loc) {
  return unary("aten.cos.default", x, loc);
}
Tensor exp(const Tensor& x, Loc loc) {
  return unary("aten.exp.default", x, loc);
}
Tensor log(const Tensor& x, Loc loc) {
  return unary("aten.log.default", x, loc);
}
Tensor tanh(const Tensor& x, Loc loc) {
  return unary("aten.tanh.default", x, loc);
}
Tensor sigmoid(const Tensor& x, Loc loc) {
  return unary("aten.sigmoid.default", x, loc);
}
Tensor relu(const Tensor& x, Loc loc) {
  return unary("aten.relu.default", x, loc);
}
Tensor gelu(const Tensor& x, std::string_view approximate, Loc loc) {
  std::vector<Kwarg> kwargs;
  if (approximate != "none")
    kwargs.push_back({InternedString("approximate"), Argument::string(approximate)});
  return tracer_of(x).record1("aten.gelu.default", {x.arg()}, std::move(kwargs), loc);
}
Tensor silu(const Tensor& x, Loc loc) {
  return unary("aten.silu.default", x, loc);
}
Tensor elu(const Tensor& x, double alpha, double scale, double input_scale, Loc loc) {
  return tracer_of(x).record1("aten.elu.default",
                              {x.arg(), Argument::floating(alpha), Argument::floating(scale),
                               Argument::floating(input_scale)},
                              {}, loc);
}
Tensor selu(const Tensor& x, Loc loc) {
  return elu(x, 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1.0, loc);
}
Tensor sqrt(const Tensor& x, Loc loc) {
  return unary("aten.sqrt.default", x, loc);
}
Tensor rsqrt(const Tensor& x, Loc loc) {
  return unary("aten.rsqrt.default", x, loc);
}
Tensor neg(const Tensor& x, Loc loc) {
  return unary("aten.neg.default", x, loc);
}
Tensor pow(const Tensor& x, double exponent, Loc loc) {
  Argument e = exponent == static_cast<double>(static_cast<int64_t>(exponent))
                   ? Argument::integer(static_cast<int64_t>(exponent))
                   : Argument::floating(exponent);
  return tracer_of(x).record1("aten.pow.Tensor_Scalar", {x.arg(), e}, {}, loc);
}
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b, Loc loc) {
  return tracer_of(a).record1("aten.where.self", {condition.arg(), a.arg(), b.arg()}, {}, loc);
}
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value, Loc loc) {
  return tracer_of(x).record1("aten.masked_fill.Scalar",
                              {x.arg(), mask.arg(), Argument::floating(value)}, {}, loc);
}

// --- matmuls ---

Tensor mm(const Tensor& a, const Tensor& b, Loc loc) {
  return binary("aten.mm.default", a, b, loc);
}
Tensor bmm(const Tensor& a, const Tensor& b, Loc loc) {
  return binary("aten.bmm.default", a, b, loc);
}
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, Loc loc) {
  return tracer_of(a).record1("aten.addmm.default", {bias.arg(), a.arg(), b.arg()}, {}, loc);
}

Tensor matmul(const Tensor& a, const Tensor& b, Loc loc) {
  int64_t da = a.dim(), db = b.dim();
  if (da == 2 && db == 2) return mm(a, b, loc);
  if (da == 1 && db == 2) return mm(a.unsqueeze(0, loc), b, loc).squeeze(0, loc);
  if (da >= 3 && (db == 1 || db == 2)) {
    // Fold a's batch dims into the rows of one mm.
    Tensor b2 = db == 1 ? b.unsqueeze(-1, loc) : b;
    std::vector<int64_t> sa = a.sizes(), rows(sa.begin(), sa.end() - 1), out = rows;
    if (db == 2) out.push_back(b.size(-1));
    Tensor folded = a.reshape({product(rows), sa.back()}, loc);
    return Tensor(tracer_of(a).record1("aten._unsafe_view.default",
                                       {mm(folded, b2, loc).arg(), ints(out)}, {}, loc));
  }
  if (da >= 2 && db >= 2) {
    std::vector<int64_t> sa = a.sizes(), sb = b.sizes();
    std::vector<int64_t> batch_a(sa.begin(), sa.end() - 2), batch_b(sb.begin(), sb.end() - 2);
    std::vector<int64_t> batch;
    try {
      batch = shape_rules::broadcast_shapes(batch_a, batch_b);
    } catch (const shape_rules::InferError& e) {
      throw TraceError(std::string(loc.file_name()) + ":" + std::to_string(loc.line()) +
                       ": matmul: " + e.what());
    }
    int64_t n = sa[sa.size() - 2], m1 = sa.back(), m2 = sb[sb.size() - 2], p = sb.back();
    std::vector<int64_t> ea = batch, eb = batch, out = batch;
    ea.insert(ea.end(), {n, m1});
    eb.insert(eb.end(), {m2, p});
    out.insert(out.end(), {n, p});
    int64_t nb = product(batch);
    Tensor a3 = a.expand(ea, loc).reshape({nb, n, m1}, loc);
    Tensor b3 = b.expand(eb, loc).reshape({nb, m2, p}, loc);
    return tracer_of(a).record1("aten._unsafe_view.default", {bmm(a3, b3, loc).arg(), ints(out)},
                                {}, loc);
  }
  throw TraceError(std::string(loc.file_name()) + ":" + std::to_string(loc.line()) +
                   ": matmul of a " + std::to_string(da) + "-D and a " + std::to_string(db) +
                   "-D tensor (dot/mv) is not supported by the tracer");
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias, Loc loc) {
  if (bias.defined() && x.dim() == 2) return addmm(bias, x, weight.t(loc), loc);
  if (bias.defined() && x.dim() == 3) {
    shape_rules::ConcreteTensor c = shape_rules::concrete(x.meta());
    if (shape_rules::is_contiguous(c.sizes, c.strides)) {
      Tensor wt = weight.t(loc);  // ATen evaluates addmm's arguments right to left
      Tensor flat = x.view({c.sizes[0] * c.sizes[1], c.sizes[2]}, loc);
      Tensor out = addmm(bias, flat, wt, loc);
      return out.view({c.sizes[0], c.sizes[1], out.size(1)}, loc);
    }
  }
  Tensor out = matmul(x, weight.t(loc), loc);
  return bias.defined() ? binary("aten.add.Tensor", out, bias, loc) : out;
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim, Loc loc) {
  REMAT_ASSERT(!tensors.empty()) << "cat of no tensors";
  std::vector<Argument> list;
  for (const Tensor& t : tensors) list.push_back(t.arg());
  return tracer_of(tensors[0])
      .record1("aten.cat.default", {Argument::list(std::move(list)), Argument::integer(dim)}, {},
               loc);
}

// --- nn ---

Tensor softmax(const Tensor& x, int64_t dim, Loc loc) {
  return tracer_of(x).record1("aten._softmax.default",
                              {x.arg(), Argument::integer(dim), Argument::boolean(false)}, {}, loc);
}
Tensor log_softmax(const Tensor& x, int64_t dim, Loc loc) {
  return tracer_of(x).record1("aten._log_softmax.default",
                              {x.arg(), Argument::integer(dim), Argument::boolean(false)}, {}, loc);
}
Tensor layer_norm(const Tensor& x, const std::vector<int64_t>& shape, const Tensor& weight,
                  const Tensor& bias, double eps, Loc loc) {
  return tracer_of(x).record(
      "aten.native_layer_norm.default",
      {x.arg(), ints(shape), optional_arg(weight), optional_arg(bias), Argument::floating(eps)}, {},
      loc)[0];
}
Tensor dropout(const Tensor& x, double p, bool training, Loc loc) {
  if (!training || p == 0) return x;
  return tracer_of(x).record("aten.native_dropout.default",
                             {x.arg(), Argument::floating(p), Argument::boolean(true)}, {}, loc)[0];
}
Tensor embedding(const Tensor& weight, const Tensor& indices, Loc loc) {
  return binary("aten.embedding.default", weight, indices, loc);
}
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Loc loc) {
  return tracer_of(log_probs).record("aten.nll_loss_forward.default",
                                     {log_probs.arg(), target.arg(), Argument::none(),
                                      Argument::integer(1), Argument::integer(-100)},
                                     {}, loc)[0];
}
Tensor cross_entropy(const Tensor& logits, const Tensor& target, Loc loc) {
  return nll_loss(log_softmax(logits, 1, loc), target, loc);
}
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias,
              std::vector<int64_t> stride, std::vector<int64_t> padding,
              std::vector<int64_t> dilation, int64_t groups, Loc loc) {
  return tracer_of(x).record1(
      "aten.convolution.default",
      {x.arg(), weight.arg(), optional_arg(bias), ints(stride), ints(padding), ints(dilation),
       Argument::boolean(false), ints({0, 0}), Argument::integer(groups)},
      {}, loc);
}
Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, double momentum,
                  double eps, Loc loc) {
  return tracer_of(x).record(
      "aten.native_batch_norm.default",
      {x.arg(), optional_arg(weight), optional_arg(bias), optional_arg(running_mean),
       optional_arg(running_var), Argument::boolean(true), Argument::floating(momentum),
       Argument::floating(eps)},
      {}, loc)[0];
}
Tensor max_pool2d(const Tensor& x, std::vector<int64_t> kernel, std::vector<int64_t> stride,
                  Loc loc) {
  if (stride.empty()) stride = kernel;
  return tracer_of(x).record("aten.max_pool2d_with_indices.default",
                             {x.arg(), ints(kernel), ints(stride)}, {}, loc)[0];
}

// --- factories ---

Tensor full(const std::vector<int64_t>& sizes, double value, DType dtype, Loc loc) {
  return Tracer::current().record1("aten.full.default", {ints(sizes), Argument::floating(value)},
                                   factory_options(dtype), loc);
}
Tensor ones(const std::vector<int64_t>& sizes, DType dtype, Loc loc) {
  return Tracer::current().record1("aten.ones.default", {ints(sizes)}, factory_options(dtype), loc);
}
Tensor zeros(const std::vector<int64_t>& sizes, DType dtype, Loc loc) {
  return Tracer::current().record1("aten.zeros.default", {ints(sizes)}, factory_options(dtype),
                                   loc);
}
Tensor triu(const Tensor& x, int64_t diagonal, Loc loc) {
  return tracer_of(x).record1("aten.triu.default", {x.arg(), Argument::integer(diagonal)}, {}, loc);
}

Tensor checkpoint_name(const Tensor& x, std::string_view name) {
  tracer_of(x).name_tensor(x, name);
  return x;
}

}  // namespace remat::trace
