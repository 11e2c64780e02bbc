// Embedding, a linear layer to the vocabulary, cross-entropy over every position.
#include "remat/models/detail/zoo_models.h"

namespace remat::models::detail {

Expected<GraphModule> trace_embed_ce(const ModelOptions& o) {
  using namespace remat::trace;
  return traced(o, "embed-ce", [&](Tracer& tracer) {
    Tensor wte = tracer.parameter("wte.weight", {o.vocab, o.hidden});
    Tensor head_w = tracer.parameter("lm_head.weight", {o.vocab, o.hidden});
    Tensor head_b = tracer.parameter("lm_head.bias", {o.vocab});
    Tensor tokens = tracer.input("tokens", {o.batch, o.seq}, DType::Int64);
    Tensor targets = tracer.input("targets", {o.batch, o.seq}, DType::Int64);
    Tensor h = embedding(wte, tokens);
    std::vector<std::function<Tensor(Tensor)>> head = {[&](Tensor x) {
      ModuleScope scope("lm_head", "Linear");
      return linear(x, head_w, head_b);
    }};
    Tensor logits = run_layers(head, h, o);
    Tensor loss =
        cross_entropy(logits.view({o.batch * o.seq, o.vocab}), targets.view({o.batch * o.seq}));
    return std::vector<Tensor>{loss};
  });
}

}  // namespace remat::models::detail
