// GPT-2 decoder blocks (nanoGPT's Block), attention written out: fused qkv, split, heads,
// q @ k^T / sqrt(d), causal mask, softmax, @ v, projection; gelu MLP; pre-norm residuals.
#include <cmath>
#include <limits>

#include "remat/models/detail/zoo_models.h"

namespace remat::models::detail {
namespace {

using namespace remat::trace;

struct Block {
  Tensor ln1_w, ln1_b, attn_w, attn_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b, mlp_proj_w,
      mlp_proj_b;
};

Block make_block(Tracer& t, int64_t index, int64_t c) {
  ModuleScope scope("h." + std::to_string(index), "Block");
  Block b;
  b.ln1_w = t.parameter("ln_1.weight", {c});
  b.ln1_b = t.parameter("ln_1.bias", {c});
  b.attn_w = t.parameter("attn.c_attn.weight", {3 * c, c});
  b.attn_b = t.parameter("attn.c_attn.bias", {3 * c});
  b.proj_w = t.parameter("attn.c_proj.weight", {c, c});
  b.proj_b = t.parameter("attn.c_proj.bias", {c});
  b.ln2_w = t.parameter("ln_2.weight", {c});
  b.ln2_b = t.parameter("ln_2.bias", {c});
  b.fc_w = t.parameter("mlp.c_fc.weight", {4 * c, c});
  b.fc_b = t.parameter("mlp.c_fc.bias", {4 * c});
  b.mlp_proj_w = t.parameter("mlp.c_proj.weight", {c, 4 * c});
  b.mlp_proj_b = t.parameter("mlp.c_proj.bias", {c});
  return b;
}

Tensor attention(const Block& p, const Tensor& x, const Tensor& mask, const ModelOptions& o) {
  ModuleScope scope("attn", "CausalSelfAttention");
  int64_t B = o.batch, T = o.seq, C = o.hidden, H = o.heads, D = C / H;
  Tensor qkv = checkpoint_name(linear(x, p.attn_w, p.attn_b), "qkv");
  std::vector<Tensor> parts = qkv.split(C, 2);
  Tensor q = parts[0].view({B, T, H, D}).transpose(1, 2);
  Tensor k = parts[1].view({B, T, H, D}).transpose(1, 2);
  Tensor v = parts[2].view({B, T, H, D}).transpose(1, 2);
  Tensor att = matmul(q, k.transpose(-2, -1)) * (1.0 / std::sqrt(static_cast<double>(D)));
  att = att.masked_fill(mask, -std::numeric_limits<double>::infinity());
  att = softmax(att, -1);
  att = dropout(att, o.dropout);
  Tensor y = checkpoint_name(matmul(att, v), "attn_out");
  y = y.transpose(1, 2).contiguous().view({B, T, C});
  return dropout(linear(y, p.proj_w, p.proj_b), o.dropout);
}

Tensor mlp(const Block& p, const Tensor& x, const ModelOptions& o) {
  ModuleScope scope("mlp", "MLP");
  Tensor h = checkpoint_name(gelu(linear(x, p.fc_w, p.fc_b)), "mlp_hidden");
  return dropout(linear(h, p.mlp_proj_w, p.mlp_proj_b), o.dropout);
}

}  // namespace

Expected<GraphModule> trace_gpt2(const ModelOptions& o) {
  return traced(o, "gpt2", [&](Tracer& tracer) {
    if (o.heads < 1 || o.hidden % o.heads != 0) {
      throw std::invalid_argument("gpt2: --hidden (" + std::to_string(o.hidden) +
                                  ") must be a multiple of --heads (" + std::to_string(o.heads) +
                                  ")");
    }
    std::vector<Block> blocks;
    for (int64_t i = 0; i < o.layers; ++i) blocks.push_back(make_block(tracer, i, o.hidden));
    Tensor ln_f_w = tracer.parameter("ln_f.weight", {o.hidden});
    Tensor ln_f_b = tracer.parameter("ln_f.bias", {o.hidden});
    Tensor x = tracer.input("x", {o.batch, o.seq, o.hidden});
    // nanoGPT keeps the causal mask as a buffer; here it is built once, before the blocks.
    Tensor mask = triu(ones({o.seq, o.seq}, DType::Bool), 1);
    std::vector<std::function<Tensor(Tensor)>> layers;
    for (int64_t i = 0; i < o.layers; ++i) {
      layers.push_back([&, i](Tensor h) {
        ModuleScope scope("h." + std::to_string(i), "Block");
        const Block& p = blocks[i];
        h = h + attention(p, layer_norm(h, {o.hidden}, p.ln1_w, p.ln1_b), mask, o);
        h = h + mlp(p, layer_norm(h, {o.hidden}, p.ln2_w, p.ln2_b), o);
        return h;
      });
    }
    Tensor h = run_layers(layers, x, o);
    return std::vector<Tensor>{layer_norm(h, {o.hidden}, ln_f_w, ln_f_b)};
  });
}

}  // namespace remat::models::detail
