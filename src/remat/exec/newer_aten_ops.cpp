#include "remat/exec/newer_aten_ops.h"

#include <ATen/ATen.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include <cmath>
#include <memory>
#include <mutex>
#include <tuple>

namespace remat::exec {
namespace {

using Tensor = at::Tensor;

// Batch norm that returns the updated running statistics: ATen's native_batch_norm on copies.
std::tuple<Tensor, Tensor, Tensor, Tensor, Tensor> batch_norm_functional(
    const Tensor& input, const c10::optional<Tensor>& weight, const c10::optional<Tensor>& bias,
    const Tensor& running_mean, const Tensor& running_var, bool training, double momentum,
    double eps) {
  Tensor mean = running_mean.clone(), var = running_var.clone();
  auto [out, save_mean, save_rstd] =
      at::native_batch_norm(input, weight, bias, mean, var, training, momentum, eps);
  return std::make_tuple(out, save_mean, save_rstd, mean, var);
}

// q k^T * scale + mask for [B, H, L, E] inputs: the scores before the softmax.
// (c10::optional: libtorch 1.13's; 2.x makes it std::optional.)
Tensor attention_scores(const Tensor& q, const Tensor& k, bool is_causal,
                        const c10::optional<Tensor>& attn_mask, c10::optional<double> scale) {
  double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(q.size(-1))));
  Tensor scores = at::matmul(q, k.transpose(-2, -1)) * s;
  if (is_causal) {
    Tensor keep = at::ones({q.size(-2), k.size(-2)}, q.options().dtype(at::kBool)).tril();
    scores = scores.masked_fill(keep.logical_not(), -INFINITY);
  }
  if (attn_mask && attn_mask->defined()) {
    scores = attn_mask->scalar_type() == at::kBool
                 ? scores.masked_fill(attn_mask->logical_not(), -INFINITY)
                 : scores + *attn_mask;
  }
  return scores;
}

void refuse_dropout(double dropout_p) {
  TORCH_CHECK(dropout_p == 0.0,
              "remat's _scaled_dot_product_flash_attention_for_cpu (this libtorch has none) does "
              "not draw attention dropout as PyTorch's kernel does");
}

// The layout PyTorch's CPU flash kernel gives its [B, H, L, ...] results: [B, L, H, ...] in
// memory, transposed.
Tensor in_blh_layout(const Tensor& t) {
  return t.transpose(1, 2).contiguous().transpose(1, 2);
}

std::tuple<Tensor, Tensor> flash_attention_cpu(const Tensor& query, const Tensor& key,
                                               const Tensor& value, double dropout_p,
                                               bool is_causal,
                                               const c10::optional<Tensor>& attn_mask,
                                               c10::optional<double> scale) {
  refuse_dropout(dropout_p);
  Tensor scores = attention_scores(query, key, is_causal, attn_mask, scale);
  Tensor out = at::matmul(at::softmax(scores, -1), value);
  // The output follows the query's layout, as the kernel allocates it.
  Tensor result = at::empty_like(query, at::MemoryFormat::Preserve).copy_(out);
  return std::make_tuple(result, in_blh_layout(at::logsumexp(scores, -1).to(at::kFloat)));
}

std::tuple<Tensor, Tensor, Tensor> flash_attention_cpu_backward(
    const Tensor& grad_out, const Tensor& query, const Tensor& key, const Tensor& value,
    const Tensor& out, const Tensor& /*logsumexp*/, double dropout_p, bool is_causal,
    const c10::optional<Tensor>& attn_mask, c10::optional<double> scale) {
  refuse_dropout(dropout_p);
  double s = scale.value_or(1.0 / std::sqrt(static_cast<double>(query.size(-1))));
  Tensor p = at::softmax(attention_scores(query, key, is_causal, attn_mask, scale), -1);
  Tensor grad_value = at::matmul(p.transpose(-2, -1), grad_out);
  Tensor grad_p = at::matmul(grad_out, value.transpose(-2, -1));
  // d softmax: p * (dp - sum(dp * p)), where sum(dp * p) = sum(dout * out) per row.
  Tensor grad_scores = p * (grad_p - (grad_out * out).sum(-1, /*keepdim=*/true));
  Tensor grad_query = at::matmul(grad_scores, key) * s;
  Tensor grad_key = at::matmul(grad_scores.transpose(-2, -1), query) * s;
  return std::make_tuple(in_blh_layout(grad_query), in_blh_layout(grad_key),
                         in_blh_layout(grad_value));
}

struct NewerOp {
  const char* name;
  const char* schema;
  void (*define)(torch::Library&, const char* schema);
};

const NewerOp kNewerOps[] = {
    {"_native_batch_norm_legit_functional",
     "_native_batch_norm_legit_functional(Tensor input, Tensor? weight, Tensor? bias, Tensor "
     "running_mean, Tensor running_var, bool training, float momentum, float eps) -> (Tensor, "
     "Tensor, Tensor, Tensor running_mean_out, Tensor running_var_out)",
     [](torch::Library& m, const char* schema) {
       m.def(schema, torch::dispatch(c10::DispatchKey::CompositeImplicitAutograd,
                                     TORCH_FN(batch_norm_functional)));
     }},
    {"_scaled_dot_product_flash_attention_for_cpu",
     "_scaled_dot_product_flash_attention_for_cpu(Tensor query, Tensor key, Tensor value, float "
     "dropout_p=0., bool is_causal=False, *, Tensor? attn_mask=None, float? scale=None) -> "
     "(Tensor output, Tensor logsumexp)",
     [](torch::Library& m, const char* schema) {
       m.def(schema, torch::dispatch(c10::DispatchKey::CompositeImplicitAutograd,
                                     TORCH_FN(flash_attention_cpu)));
     }},
    {"_scaled_dot_product_flash_attention_for_cpu_backward",
     "_scaled_dot_product_flash_attention_for_cpu_backward(Tensor grad_out, Tensor query, Tensor "
     "key, Tensor value, Tensor out, Tensor logsumexp, float dropout_p, bool is_causal, *, "
     "Tensor? attn_mask=None, float? scale=None) -> (Tensor grad_query, Tensor grad_key, Tensor "
     "grad_value)",
     [](torch::Library& m, const char* schema) {
       m.def(schema, torch::dispatch(c10::DispatchKey::CompositeImplicitAutograd,
                                     TORCH_FN(flash_attention_cpu_backward)));
     }},
};

std::vector<std::string> registered;

}  // namespace

void register_newer_aten_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    // The registrations live as long as the process: the library object must too.
    static std::unique_ptr<torch::Library> library;
    for (const NewerOp& op : kNewerOps) {
      if (c10::Dispatcher::singleton().findSchema({std::string("aten::") + op.name, ""})) continue;
      if (!library) {
        library = std::make_unique<torch::Library>(torch::Library::FRAGMENT, "aten", c10::nullopt,
                                                   __FILE__, __LINE__);
      }
      op.define(*library, op.schema);
      registered.emplace_back(std::string("aten.") + op.name + ".default");
    }
  });
}

const std::vector<std::string>& emulated_aten_ops() {
  register_newer_aten_ops();
  return registered;
}

}  // namespace remat::exec
