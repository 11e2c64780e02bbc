#include "testing/graph_generator.h"

#include <array>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace remat::testing {
namespace {

class Generator {
 public:
  explicit Generator(const GeneratorOptions& o) : o_(o), rng_(o.seed) {
    batch_ = 2 + static_cast<int64_t>(rng_() % 8);
    hidden_ = 4 * (1 + static_cast<int64_t>(rng_() % 8));
  }

  GraphModule run() {
    GraphModule m;
    m.graph_name = "generated_" + std::to_string(o_.seed);
    g_ = &m.graph();
    size_t num_inputs = 2 + rng_() % 3;
    for (size_t i = 0; i < num_inputs; ++i) {
      Node* p = g_->placeholder("primals_" + std::to_string(i + 1));
      p->meta.set_tensor(square_or_rect(true));
      live_.push_back(p);
    }
    while (g_->size() + 1 < o_.num_nodes) step();
    std::vector<Argument> outs;
    size_t num_outputs = 1 + rng_() % 3;
    for (size_t i = 0; i < num_outputs; ++i) outs.push_back(Argument::node(pick()));
    if (rng_() % 4 == 0) outs.emplace_back();  // a None output
    g_->output(Argument::tuple(std::move(outs)));
    return m;
  }

 private:
  TensorMeta square_or_rect(bool requires_grad) {
    std::array<SymInt, 2> sizes{SymInt(batch_), SymInt(hidden_)};
    std::array<SymInt, 2> strides{SymInt(hidden_), SymInt(1)};
    TensorMeta t(DType::Float32, sizes, std::span<const SymInt>(strides), InternedString("cpu"));
    t.requires_grad = requires_grad;
    return t;
  }

  Node* pick() {
    // Prefer recent values (chains), sometimes older ones (diamonds, long skips).
    size_t n = live_.size();
    size_t back = rng_() % 4 == 0 ? rng_() % n : rng_() % std::min<size_t>(n, 4);
    return live_[n - 1 - back];
  }

  void tag(Node* n) {
    if (o_.stack_traces) {
      static const std::array<InternedString, 3> kTraces{
          InternedString("  File \"/work/model.py\", line 12, in forward\n    x = torch.sin(x)\n"),
          InternedString("  File \"/work/model.py\", line 20, in block\n    return self.mlp(x)\n"),
          InternedString("  File \"/work/model.py\", line 31, in gn\n    return "
                         "torch.sigmoid(torch.matmul(x, y))\n")};
      n->meta.stack_trace = kTraces[rng_() % kTraces.size()];
    }
    if (region_left_ > 0) {
      --region_left_;
      n->meta.set_ac_graph_id(region_id_);
      n->meta.recompute = region_policy_;
    }
    n->meta.partitioner_tag = PartitionerTag::IsForward;
    n->meta.set_seq_nr(static_cast<int64_t>(g_->size()));
  }

  Node* emit(std::string_view target, std::vector<Argument> args, std::vector<Kwarg> kwargs = {}) {
    Node* n = g_->call_function(target, std::move(args), std::move(kwargs));
    n->meta.set_tensor(square_or_rect(false));
    tag(n);
    live_.push_back(n);
    return n;
  }

  void step() {
    if (o_.checkpoint_regions && region_left_ == 0 && rng_() % 16 == 0) {
      region_left_ = 2 + rng_() % 6;
      ++region_id_;
      region_policy_ =
          rng_() % 3 == 0 ? CheckpointPolicy::MustSave : CheckpointPolicy::PreferRecompute;
    }
    static constexpr std::array<std::string_view, 6> kUnary{
        "aten.sin.default",     "aten.cos.default", "aten.relu.default",
        "aten.sigmoid.default", "aten.exp.default", "aten.tanh.default"};
    switch (rng_() % 10) {
      case 0:
      case 1:
      case 2:
        emit(kUnary[rng_() % kUnary.size()], {Argument::node(pick())});
        break;
      case 3:
      case 4: {
        Node* a = pick();
        Node* b = pick();
        emit(rng_() % 2 ? "aten.add.Tensor" : "aten.mul.Tensor",
             {Argument::node(a), Argument::node(b)});
        break;
      }
      case 5: {  // mm(a, t(b)) with the transpose's own strides
        Node* t = g_->call_function("aten.t.default", {Argument::node(pick())});
        std::array<SymInt, 2> sizes{SymInt(hidden_), SymInt(batch_)};
        std::array<SymInt, 2> strides{SymInt(1), SymInt(hidden_)};
        t->meta.set_tensor(TensorMeta(DType::Float32, sizes, std::span<const SymInt>(strides),
                                      InternedString("cpu")));
        tag(t);
        Node* mm =
            g_->call_function("aten.mm.default", {Argument::node(pick()), Argument::node(t)});
        std::array<SymInt, 2> out{SymInt(batch_), SymInt(batch_)};
        std::array<SymInt, 2> out_strides{SymInt(batch_), SymInt(1)};
        mm->meta.set_tensor(TensorMeta(DType::Float32, out, std::span<const SymInt>(out_strides),
                                       InternedString("cpu")));
        tag(mm);  // a [B, B] value: kept out of the live pool so shapes stay consistent
        break;
      }
      case 6: {  // multi-output op read through getitem
        std::vector<Argument> args{Argument::node(pick()),
                                   Argument::list({Argument::integer(hidden_)}), Argument::none(),
                                   Argument::none(), Argument::floating(1e-05)};
        Node* ln = g_->call_function("aten.native_layer_norm.default", std::move(args));
        std::array<SymInt, 2> stat{SymInt(batch_), SymInt(1)};
        std::array<SymInt, 2> stat_strides{SymInt(1), SymInt(1)};
        TensorMeta s(DType::Float32, stat, std::span<const SymInt>(stat_strides),
                     InternedString("cpu"));
        ln->meta.set_tensor_tuple({square_or_rect(false), s, s});
        tag(ln);
        Node* out =
            g_->call_function("operator.getitem", {Argument::node(ln), Argument::integer(0)});
        out->meta.set_tensor(square_or_rect(false));
        tag(out);
        live_.push_back(out);
        if (rng_() % 2) {
          Node* mean =
              g_->call_function("operator.getitem", {Argument::node(ln), Argument::integer(1)});
          mean->meta.set_tensor(s);
          tag(mean);
        }
        break;
      }
      case 7: {  // reduction with list and bool args, then a detach chain
        Node* x = pick();
        Node* sum = g_->call_function(
            "aten.sum.dim_IntList",
            {Argument::node(x), Argument::list({Argument::integer(0)}), Argument::boolean(true)});
        std::array<SymInt, 2> sizes{SymInt(1), SymInt(hidden_)};
        std::array<SymInt, 2> strides{SymInt(hidden_), SymInt(1)};
        sum->meta.set_tensor(TensorMeta(DType::Float32, sizes, std::span<const SymInt>(strides),
                                        InternedString("cpu")));
        tag(sum);
        emit("aten.detach.default", {Argument::node(pick())});
        break;
      }
      case 8: {  // factory with dtype/layout/device kwargs
        emit("aten.full.default",
             {Argument::list({Argument::integer(batch_), Argument::integer(hidden_)}),
              Argument::floating(rng_() % 2 ? 0.5 : -std::numeric_limits<double>::infinity())},
             {{InternedString("dtype"), Argument::dtype(DType::Float32)},
              {InternedString("layout"), Argument::layout(Layout::Strided)},
              {InternedString("device"), Argument::device("cpu")},
              {InternedString("pin_memory"), Argument::boolean(false)}});
        break;
      }
      default: {
        if (!o_.every_value_kind) {
          emit("aten.neg.default", {Argument::node(pick())});
          break;
        }
        Node* x = pick();
        std::vector<DictEntry> dict;
        dict.push_back({"scale", Argument::floating(0.125)});
        dict.push_back({"src", Argument::node(x)});
        std::vector<Kwarg> kwargs{
            {InternedString("memory_format"), Argument::memory_format(MemoryFormat::Contiguous)},
            {InternedString("config"), Argument::dict(std::move(dict))},
            {InternedString("index"),
             Argument::slice(Argument::none(), Argument::integer(2), Argument::none())},
            {InternedString("z"), Argument::complex(1.5, -2.0)},
            {InternedString("policy"),
             Argument::enum_member("torch.utils.checkpoint.CheckpointPolicy.MUST_SAVE")},
            {InternedString("const"),
             Argument::tensor_constant(DType::Int64, {SymInt(2), SymInt(3)})},
            {InternedString("n"), Argument::sym("s0 + 1")},
            {InternedString("fn"), Argument::op("aten.add.Tensor")},
            {InternedString("mode"), Argument::string("it's \"quoted\"\n\\")},
            {InternedString("eps"), Argument::floating(std::numeric_limits<double>::quiet_NaN())},
            {InternedString("pair"), Argument::tuple({Argument::node(x), Argument::none()})},
        };
        if (o_.opaque_values)
          kwargs.push_back({InternedString("obj"), Argument::repr("<object at 0x0>", "object")});
        emit("mylib.custom_op.default", {Argument::node(x)}, std::move(kwargs));
        break;
      }
    }
  }

  GeneratorOptions o_;
  std::mt19937_64 rng_;
  Graph* g_ = nullptr;
  std::vector<Node*> live_;
  int64_t batch_ = 2;
  int64_t hidden_ = 4;
  size_t region_left_ = 0;
  int64_t region_id_ = 0;
  CheckpointPolicy region_policy_ = CheckpointPolicy::PreferRecompute;
};

}  // namespace

GraphModule generate_graph(const GeneratorOptions& options) {
  return Generator(options).run();
}

}  // namespace remat::testing
