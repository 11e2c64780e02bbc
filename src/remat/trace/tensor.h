// Tensor: a handle to a traced value, with the natural C++ API (operators, methods, functions).
// Every call records ATen ops into the active Tracer at the caller's source line. C++ leaves the
// order in which the operands of one expression are evaluated open (GCC goes right to left), so
// write one op per statement where the graph's op order matters.
#pragma once

#include <cstdint>
#include <optional>
#include <source_location>
#include <vector>

#include "remat/ir/node.h"
#include "remat/ir/tensor_meta.h"

namespace remat::trace {

class Tracer;
using Loc = std::source_location;

/// A traced tensor: the node that computes it. Cheap to copy.
class Tensor {
 public:
  Tensor() = default;
  Tensor(Tracer* tracer, Node* node) : tracer_(tracer), node_(node) {}

  [[nodiscard]] bool defined() const { return node_ != nullptr; }
  [[nodiscard]] Node* node() const { return node_; }
  [[nodiscard]] Tracer& tracer() const { return *tracer_; }
  [[nodiscard]] const TensorMeta& meta() const;
  [[nodiscard]] std::vector<int64_t> sizes() const;
  [[nodiscard]] int64_t size(int64_t dim) const;
  [[nodiscard]] int64_t dim() const;
  [[nodiscard]] DType dtype() const { return meta().dtype; }
  [[nodiscard]] int64_t numel() const;
  [[nodiscard]] Argument arg() const { return Argument::node(node_); }

  // Views and layout.
  Tensor t(Loc loc = Loc::current()) const;
  Tensor transpose(int64_t dim0, int64_t dim1, Loc loc = Loc::current()) const;
  Tensor permute(const std::vector<int64_t>& dims, Loc loc = Loc::current()) const;
  Tensor view(const std::vector<int64_t>& sizes, Loc loc = Loc::current()) const;
  /// A view when the strides allow one, else `clone` + `_unsafe_view` (as ATen decomposes it).
  Tensor reshape(const std::vector<int64_t>& sizes, Loc loc = Loc::current()) const;
  Tensor expand(const std::vector<int64_t>& sizes, Loc loc = Loc::current()) const;
  Tensor unsqueeze(int64_t dim, Loc loc = Loc::current()) const;
  Tensor squeeze(int64_t dim, Loc loc = Loc::current()) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end,
               int64_t step = 1, Loc loc = Loc::current()) const;
  Tensor select(int64_t dim, int64_t index, Loc loc = Loc::current()) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0, Loc loc = Loc::current()) const;
  /// Itself when contiguous, else `clone(memory_format=torch.contiguous_format)`.
  Tensor contiguous(Loc loc = Loc::current()) const;
  Tensor clone(Loc loc = Loc::current()) const;
  Tensor detach(Loc loc = Loc::current()) const;
  Tensor to(DType dtype, Loc loc = Loc::current()) const;

  // Reductions and elementwise methods.
  Tensor sum(Loc loc = Loc::current()) const;
  Tensor sum(const std::vector<int64_t>& dims, bool keepdim = false,
             Loc loc = Loc::current()) const;
  Tensor mean(Loc loc = Loc::current()) const;
  Tensor mean(const std::vector<int64_t>& dims, bool keepdim = false,
              Loc loc = Loc::current()) const;
  Tensor amax(const std::vector<int64_t>& dims, bool keepdim = false,
              Loc loc = Loc::current()) const;
  Tensor pow(double exponent, Loc loc = Loc::current()) const;
  Tensor masked_fill(const Tensor& mask, double value, Loc loc = Loc::current()) const;

 private:
  Tracer* tracer_ = nullptr;
  Node* node_ = nullptr;
};

/// An operand that remembers where the expression using it was written: operators cannot take
/// a defaulted source_location, but an implicit conversion's constructor can.
struct Located {
  Located(const Tensor& t, Loc l = Loc::current())
      : tensor(t), loc(l) {}  // NOLINT: implicit on purpose
  Tensor tensor;
  Loc loc;
};

Tensor operator+(const Located& a, const Tensor& b);
Tensor operator-(const Located& a, const Tensor& b);
Tensor operator*(const Located& a, const Tensor& b);
Tensor operator/(const Located& a, const Tensor& b);
Tensor operator+(const Located& a, double b);
Tensor operator-(const Located& a, double b);
Tensor operator*(const Located& a, double b);
Tensor operator/(const Located& a, double b);
Tensor operator+(double a, const Located& b);
Tensor operator*(double a, const Located& b);
Tensor operator-(const Located& a);

// --- elementwise ---
Tensor sin(const Tensor& x, Loc loc = Loc::current());
Tensor cos(const Tensor& x, Loc loc = Loc::current());
Tensor exp(const Tensor& x, Loc loc = Loc::current());
Tensor log(const Tensor& x, Loc loc = Loc::current());
Tensor tanh(const Tensor& x, Loc loc = Loc::current());
Tensor sigmoid(const Tensor& x, Loc loc = Loc::current());
Tensor relu(const Tensor& x, Loc loc = Loc::current());
/// `approximate` is "none" or "tanh".
Tensor gelu(const Tensor& x, std::string_view approximate = "none", Loc loc = Loc::current());
Tensor silu(const Tensor& x, Loc loc = Loc::current());
Tensor elu(const Tensor& x, double alpha = 1.0, double scale = 1.0, double input_scale = 1.0,
           Loc loc = Loc::current());
/// ATen's selu is elu with fixed alpha and scale.
Tensor selu(const Tensor& x, Loc loc = Loc::current());
Tensor sqrt(const Tensor& x, Loc loc = Loc::current());
Tensor rsqrt(const Tensor& x, Loc loc = Loc::current());
Tensor neg(const Tensor& x, Loc loc = Loc::current());
Tensor pow(const Tensor& x, double exponent, Loc loc = Loc::current());
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value, Loc loc = Loc::current());

// --- matmuls ---
Tensor mm(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor bmm(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor addmm(const Tensor& bias, const Tensor& a, const Tensor& b, Loc loc = Loc::current());
/// torch.matmul, decomposed as ATen does: mm for 2-D, folding a batched left operand into mm
/// when the right one is 2-D, else expand + reshape + bmm + `_unsafe_view`.
Tensor matmul(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
/// F.linear: `t(W)` + `addmm` for 2-D inputs (contiguous 3-D inputs folded with `view`),
/// else matmul (+ add).
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
              Loc loc = Loc::current());

// --- shape ---
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0, Loc loc = Loc::current());

// --- neural-network functions ---
Tensor softmax(const Tensor& x, int64_t dim, Loc loc = Loc::current());
Tensor log_softmax(const Tensor& x, int64_t dim, Loc loc = Loc::current());
Tensor layer_norm(const Tensor& x, const std::vector<int64_t>& normalized_shape,
                  const Tensor& weight = {}, const Tensor& bias = {}, double eps = 1e-5,
                  Loc loc = Loc::current());
/// F.dropout: `native_dropout` when training with p > 0, else the input itself.
Tensor dropout(const Tensor& x, double p, bool training = true, Loc loc = Loc::current());
Tensor embedding(const Tensor& weight, const Tensor& indices, Loc loc = Loc::current());
/// nll_loss with mean reduction and ignore_index -100.
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, Loc loc = Loc::current());
/// F.cross_entropy: `_log_softmax` + `nll_loss_forward`.
Tensor cross_entropy(const Tensor& logits, const Tensor& target, Loc loc = Loc::current());
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias = {},
              std::vector<int64_t> stride = {1, 1}, std::vector<int64_t> padding = {0, 0},
              std::vector<int64_t> dilation = {1, 1}, int64_t groups = 1, Loc loc = Loc::current());
/// Training-mode batch norm over running-stat buffers (`native_batch_norm`).
Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, double momentum = 0.1,
                  double eps = 1e-5, Loc loc = Loc::current());
Tensor max_pool2d(const Tensor& x, std::vector<int64_t> kernel, std::vector<int64_t> stride = {},
                  Loc loc = Loc::current());

// --- factories (on the tracer's device) ---
Tensor full(const std::vector<int64_t>& sizes, double value, DType dtype = DType::Float32,
            Loc loc = Loc::current());
Tensor ones(const std::vector<int64_t>& sizes, DType dtype = DType::Float32,
            Loc loc = Loc::current());
Tensor zeros(const std::vector<int64_t>& sizes, DType dtype = DType::Float32,
             Loc loc = Loc::current());
Tensor triu(const Tensor& x, int64_t diagonal = 0, Loc loc = Loc::current());

/// JAX's checkpoint_name: names `x` for name-based checkpoint policies. Records no op.
Tensor checkpoint_name(const Tensor& x, std::string_view name);

}  // namespace remat::trace
