#include "remat/ops/attention_flops.h"

#include "remat/support/saturating_math.h"

#include <array>
#include <string_view>

namespace remat {
namespace {

// The kernels by target, and whether their tensors are (batch, heads, seq, dim) or, for the
// lower-level `_flash/_efficient_attention_forward`, (batch, seq, heads, dim).
struct Kernel {
  std::string_view target;
  bool seq_before_heads;
};
constexpr std::array<Kernel, 5> kKernels{{
    {"aten._scaled_dot_product_flash_attention.default", false},
    {"aten._scaled_dot_product_efficient_attention.default", false},
    {"aten._scaled_dot_product_cudnn_attention.default", false},
    {"aten._flash_attention_forward.default", true},
    {"aten._efficient_attention_forward.default", true},
}};

// (batch x heads, seq, dim) of a 4-d tensor argument, or nullopt.
std::optional<std::array<int64_t, 3>> dims(const Node& node, size_t i, bool seq_before_heads) {
  if (node.args().size() <= i || !node.args()[i].is_node()) return std::nullopt;
  const TensorMeta* t = node.args()[i].as_node()->meta.tensor();
  if (!t || t->rank() != 4) return std::nullopt;
  std::array<int64_t, 4> s{};
  for (size_t d = 0; d < 4; ++d) {
    if (t->sizes()[d].is_symbolic()) return std::nullopt;
    s[d] = t->sizes()[d].value();
  }
  int64_t heads = seq_before_heads ? s[2] : s[1], seq = seq_before_heads ? s[1] : s[2];
  return std::array<int64_t, 3>{sat_mul(s[0], heads), seq, s[3]};
}

}  // namespace

std::optional<int64_t> attention_flops(const Node& node) {
  if (node.op() != OpKind::CallFunction) return std::nullopt;
  for (const Kernel& k : kKernels) {
    if (node.target().view() != k.target) continue;
    auto q = dims(node, 0, k.seq_before_heads), key = dims(node, 1, k.seq_before_heads),
         v = dims(node, 2, k.seq_before_heads);
    if (!q || !key || !v) return 0;
    auto [bh, s_q, d_q] = *q;
    int64_t s_k = (*key)[1], d_v = (*v)[2];
    // q k^T: (bh, s_q, d_q) x (bh, d_q, s_k); scores v: (bh, s_q, s_k) x (bh, s_k, d_v).
    return sat_add(sat_mul(sat_mul(sat_mul(2, bh), sat_mul(s_q, d_q)), s_k),
                   sat_mul(sat_mul(sat_mul(2, bh), sat_mul(s_q, s_k)), d_v));
  }
  return std::nullopt;
}

}  // namespace remat
