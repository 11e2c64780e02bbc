// The partitioners on graphs the tracer builds: PyTorch's expectations (docs/spec/partitioning.md
// §10) where the zoo and the tracer express them, the report, unbounded cuts.
#include <gtest/gtest.h>

#include "remat/autodiff/joint_graph.h"
#include "remat/ir/graph.h"
#include "remat/ir/verify.h"
#include "remat/partition/default_partition.h"
#include "remat/partition/min_cut_partition.h"
#include "remat/partition/op_classes.h"
#include "remat/partition/validity.h"
#include "remat/passes/common_subexpressions.h"
#include "remat/trace/checkpoint.h"
#include "testing/traced_joint.h"

namespace remat::partition {
namespace {

using namespace remat::trace;

MinCutPartition min_cut(const GraphModule& joint) {
  auto p = min_cut_partition(joint);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : format_all(p.errors()));
  if (p.ok()) {
    EXPECT_TRUE(verify(p->graphs.forward).empty());
    EXPECT_TRUE(verify(p->graphs.backward).empty());
  }
  return p.ok() ? std::move(*p) : MinCutPartition{};
}

std::pair<size_t, size_t> ins_outs(const GraphModule& m) {
  return {m.graph().placeholders().size(), m.outputs().size()};
}

size_t count(const GraphModule& m, std::string_view target) {
  size_t k = 0;
  for (const Node* n : m.graph().nodes()) k += n->target().view() == target;
  return k;
}

std::vector<std::string> ops(const GraphModule& m) {
  std::vector<std::string> out;
  for (const Node* n : m.graph().nodes()) {
    if (n->op() == OpKind::CallFunction) out.push_back(n->name());
  }
  return out;
}

TEST(MinCutPartitioner, CosChainsSaveOnlyTheInput) {
  // §10.1: x.cos().cos().cos() -> fw (1, 2), bw (2, 1).
  MinCutPartition p = min_cut(testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {3}, DType::Float32, true);
    return std::vector<Tensor>{cos(cos(cos(x)))};
  }));
  EXPECT_EQ(ins_outs(p.graphs.forward), (std::pair<size_t, size_t>{1, 2}));
  EXPECT_EQ(ins_outs(p.graphs.backward), (std::pair<size_t, size_t>{2, 1}));
  // (a+b+c+d).cos().cos() -> fw (4, 2), bw (2, 4).
  MinCutPartition q = min_cut(testing::traced_joint([](Tracer& t) {
    Tensor a = t.input("a", {3}, DType::Float32, true), b = t.input("b", {3}, DType::Float32, true);
    Tensor c = t.input("c", {3}, DType::Float32, true), d = t.input("d", {3}, DType::Float32, true);
    Tensor s = a + b;
    s = s + c;
    s = s + d;
    return std::vector<Tensor>{cos(cos(s))};
  }));
  EXPECT_EQ(ins_outs(q.graphs.forward), (std::pair<size_t, size_t>{4, 2}));
  EXPECT_EQ(ins_outs(q.graphs.backward), (std::pair<size_t, size_t>{2, 4}));
}

TEST(MinCutPartitioner, RecomputesCosFromThePrimal) {
  // §10.2: the exact forward and backward of x.cos().cos().
  MinCutPartition p = min_cut(testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true);
    return std::vector<Tensor>{cos(cos(x))};
  }));
  EXPECT_EQ(ops(p.graphs.forward), (std::vector<std::string>{"cos", "cos_1"}));
  EXPECT_EQ(p.graphs.saved_values, (std::vector<std::string>{"primals_1"}));
  EXPECT_EQ(ops(p.graphs.backward),
            (std::vector<std::string>{"cos", "sin", "neg", "mul", "sin_1", "neg_1", "mul_1"}));
  ASSERT_EQ(p.report.recomputed.size(), 1u);
  EXPECT_EQ(p.report.recomputed[0].name, "cos");
}

TEST(MinCutPartitioner, RaisesGetitemsNextToTheirProducer) {
  // §10.3: split recomputed in the backward, getitem_1 before getitem.
  MinCutPartition p = min_cut(testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {4}, DType::Float32, true);
    std::vector<Tensor> y = x.split(2);
    Tensor s = sin(y[0]);
    Tensor c = cos(y[1]);
    return std::vector<Tensor>{s + c};
  }));
  EXPECT_EQ(ops(p.graphs.backward),
            (std::vector<std::string>{"split", "getitem_1", "getitem", "sin_1", "neg", "mul",
                                      "cos_1", "mul_1", "cat"}));
}

TEST(MinCutPartitioner, CheckpointedMatmulIsRecomputed) {
  // §10.8: checkpoint(sigmoid(matmul(x, y))) -> fw mm = 1, bw mm = 3.
  auto gn = [](Tensor x, Tensor y) { return sigmoid(matmul(x, y)); };
  GraphModule joint = testing::traced_joint([&](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true),
           y = t.input("y", {4, 4}, DType::Float32, true);
    return std::vector<Tensor>{checkpoint(gn, x, y)};
  });
  for (bool use_default : {false, true}) {
    ForwardBackward g;
    if (use_default) {
      auto d = default_partition(joint);
      ASSERT_TRUE(d.ok()) << format_all(d.errors());
      g = std::move(d->graphs);
    } else {
      g = min_cut(joint).graphs;
    }
    EXPECT_EQ(count(g.forward, "aten.mm.default"), 1u) << use_default;
    EXPECT_EQ(count(g.backward, "aten.mm.default"), 3u) << use_default;
  }
}

TEST(MinCutPartitioner, MustSaveAndMustRecomputePolicies) {
  // §10.11: cos(sin(mm(mm(x, x), x))): fw mm = 2; MUST_RECOMPUTE mm -> bw mm = 6, MUST_SAVE
  // -> 4.
  for (auto [policy, bw_mm] : {std::pair{CheckpointPolicy::MustRecompute, 6u},
                               std::pair{CheckpointPolicy::MustSave, 4u}}) {
    SacPolicy p = SacPolicy::from_fn([policy = policy](const SacContext& c) {
      return c.target == "aten.mm.default" ? policy : CheckpointPolicy::PreferRecompute;
    });
    auto fn = [](Tensor x) { return cos(sin(mm(mm(x, x), x))); };
    GraphModule joint = testing::traced_joint([&](Tracer& t) {
      Tensor x = t.input("x", {4, 4}, DType::Float32, true);
      return std::vector<Tensor>{checkpoint(selective(p, fn), x)};
    });
    MinCutPartition m = min_cut(joint);
    EXPECT_EQ(count(m.graphs.forward, "aten.mm.default"), 2u);
    EXPECT_EQ(count(m.graphs.backward, "aten.mm.default"), bw_mm) << policy_name(policy);
  }
}

TEST(MinCutPartitioner, SequentialCheckpointedLayers) {
  // §10.9: two checkpoints of (cos, 3 x mm, cos) -> fw mm = 6; bw cos = 2, mm = 18.
  auto gn = [](Tensor x) {
    x = cos(x);
    for (int i = 0; i < 3; ++i) x = mm(x, x);
    return cos(x);
  };
  GraphModule joint = testing::traced_joint([&](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true);
    Tensor a = checkpoint(gn, x);
    return std::vector<Tensor>{checkpoint(gn, a)};
  });
  MinCutPartition p = min_cut(joint);
  EXPECT_EQ(count(p.graphs.forward, "aten.mm.default"), 6u);
  EXPECT_EQ(count(p.graphs.backward, "aten.mm.default"), 18u);
  EXPECT_EQ(count(p.graphs.backward, "aten.cos.default"), 2u);
}

TEST(MinCutPartitioner, MultipleCheckpoints) {
  // §10.10: sin, checkpoint(gn), sin, checkpoint(gn) with gn = sigmoid(matmul) -> fw mm 2, bw
  // mm 6.
  auto gn = [](Tensor x, Tensor y) { return sigmoid(matmul(x, y)); };
  MinCutPartition p = min_cut(testing::traced_joint([&](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true),
           y = t.input("y", {4, 4}, DType::Float32, true);
    Tensor z = checkpoint(gn, sin(x), y);
    return std::vector<Tensor>{checkpoint(gn, sin(z), y)};
  }));
  EXPECT_EQ(count(p.graphs.forward, "aten.mm.default"), 2u);
  EXPECT_EQ(count(p.graphs.backward, "aten.mm.default"), 6u);
}

// Runs both partitioners on `joint`: {min-cut, default}.
std::vector<std::pair<std::string, ForwardBackward>> both_partitions(const GraphModule& joint) {
  std::vector<std::pair<std::string, ForwardBackward>> out;
  out.emplace_back("min-cut", min_cut(joint).graphs);
  auto d = default_partition(joint);
  EXPECT_TRUE(d.ok()) << (d.ok() ? "" : format_all(d.errors()));
  out.emplace_back("default", d.ok() ? std::move(d->graphs) : ForwardBackward{});
  return out;
}

TEST(BothPartitioners, MustNotRecomputeGemm) {
  // §10.12: SAC saving mm; sigmoid(matmul(matmul(x, y), y)) * y -> fw mm = 2, bw mm = 4.
  SacPolicy save_mm = SacPolicy::save_ops({"aten.mm.default"});
  auto gn = [](Tensor x, Tensor y) { return sigmoid(matmul(matmul(x, y), y)) * y; };
  GraphModule joint = testing::traced_joint([&](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true),
           y = t.input("y", {4, 4}, DType::Float32, true);
    return std::vector<Tensor>{checkpoint(selective(save_mm, gn), x, y)};
  });
  for (const auto& [name, g] : both_partitions(joint)) {
    EXPECT_EQ(count(g.forward, "aten.mm.default"), 2u) << name;
    EXPECT_EQ(count(g.backward, "aten.mm.default"), 4u) << name;
  }
}

TEST(BothPartitioners, OutplaceOpsSaveMatmulsAndSigmoid) {
  // §10.13: SAC saving mm and sigmoid; sigmoid(selu(mm(mm(x, y), y))).relu() ->
  // fw mm = 2, sigmoid = 1; bw mm = 4, sigmoid = 0.
  SacPolicy save = SacPolicy::save_ops({"aten.mm.default", "aten.sigmoid.default"});
  auto gn = [](Tensor x, Tensor y) { return relu(sigmoid(selu(matmul(matmul(x, y), y)))); };
  GraphModule joint = testing::traced_joint([&](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true),
           y = t.input("y", {4, 4}, DType::Float32, true);
    return std::vector<Tensor>{checkpoint(selective(save, gn), x, y)};
  });
  for (const auto& [name, g] : both_partitions(joint)) {
    EXPECT_EQ(count(g.forward, "aten.mm.default"), 2u) << name;
    EXPECT_EQ(count(g.forward, "aten.sigmoid.default"), 1u) << name;
    EXPECT_EQ(count(g.backward, "aten.mm.default"), 4u) << name;
    EXPECT_EQ(count(g.backward, "aten.sigmoid.default"), 0u) << name;
  }
}

TEST(BothPartitioners, ParametrizationRecomputesMulAndSigmoid) {
  // §10.15: a weight parametrized as checkpoint(sigmoid(mul(w, w))), mul and sigmoid
  // MUST_RECOMPUTE, everything else MUST_SAVE; the layer is x @ w.t(). fw mul = 1, sigmoid = 1;
  // bw sigmoid = 1, mul = 2 with min-cut (CSE merges the two grad * w) and 3 with the default.
  SacPolicy policy = SacPolicy::from_fn([](const SacContext& c) {
    return c.target == "aten.mul.Tensor" || c.target == "aten.sigmoid.default"
               ? CheckpointPolicy::MustRecompute
               : CheckpointPolicy::MustSave;
  });
  auto parametrization = [](Tensor w) { return sigmoid(w * w); };
  GraphModule joint = testing::traced_joint([&](Tracer& t) {
    Tensor w = t.parameter("net1.weight", {16, 16});
    Tensor x = t.input("x", {8, 16}, DType::Float32, true);
    Tensor weight = checkpoint(selective(policy, parametrization), w);
    return std::vector<Tensor>{linear(x, weight)};
  });
  for (const auto& [name, g] : both_partitions(joint)) {
    EXPECT_EQ(count(g.forward, "aten.mul.Tensor"), 1u) << name;
    EXPECT_EQ(count(g.forward, "aten.sigmoid.default"), 1u) << name;
    EXPECT_EQ(count(g.backward, "aten.sigmoid.default"), 1u) << name;
    EXPECT_EQ(count(g.backward, "aten.mul.Tensor"), name == "min-cut" ? 2u : 3u) << name;
  }
}

TEST(DefaultPartitioner, HiddenRegionOutputsSaveOnlyThePrimal) {
  // §10.17 (aot_eager's default partition): a vanilla checkpoint around
  // o = mm(mm(x, x), x); out = sin(x) (leaked as a second user output); cos(sin(o)), sin(x).
  auto gn = [](Tensor x) {
    Tensor o = matmul(matmul(x, x), x);
    Tensor out = sin(x);
    return std::vector<Tensor>{cos(sin(o)), sin(x), out};
  };
  GraphModule joint = testing::traced_joint([&](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true);
    std::vector<Tensor> outs = checkpoint(gn, x);
    return std::vector<Tensor>{outs[0] + outs[1], outs[2]};
  });
  auto d = default_partition(joint);
  ASSERT_TRUE(d.ok()) << format_all(d.errors());
  EXPECT_EQ(ops(d->graphs.forward),
            (std::vector<std::string>{"mm", "mm_1", "sin", "sin_1", "cos", "sin_2", "add"}));
  std::vector<std::string> returned;
  for (const Argument& a : d->graphs.forward.outputs()) returned.push_back(a.as_node()->name());
  EXPECT_EQ(returned, (std::vector<std::string>{"add", "sin", "primals_1"}));
  EXPECT_EQ(d->graphs.saved_values, (std::vector<std::string>{"primals_1"}));
  EXPECT_EQ(count(d->graphs.backward, "aten.mm.default"),
            2u + 4u);  // mm, mm_1 again, then 2 per mm
}

TEST(MinCutPartitioner, RecomputedListOpsAndRandomOps) {
  // §10.13: cat([x, y]).sin(), recompute everything -> cat fw 1, bw 1.
  auto list_fn = [](Tensor x, Tensor y) { return sin(cat({x, y})); };
  MinCutPartition lists = min_cut(testing::traced_joint([&](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true),
           y = t.input("y", {4, 4}, DType::Float32, true);
    return std::vector<Tensor>{checkpoint(list_fn, x, y)};
  }));
  EXPECT_EQ(count(lists.graphs.forward, "aten.cat.default"), 1u);
  EXPECT_EQ(count(lists.graphs.backward, "aten.cat.default"), 1u);
  // §10.14: save sigmoid; sigmoid(dropout(sigmoid(x))) -> fw sigmoid 2, dropout 1;
  // bw sigmoid 0, dropout 1 (replayed with the forward's RNG state).
  SacPolicy save_sigmoid = SacPolicy::save_ops({"aten.sigmoid.default"});
  auto random_fn = [](Tensor x) { return sigmoid(dropout(sigmoid(x), 0.5)); };
  MinCutPartition random = min_cut(testing::traced_joint([&](Tracer& t) {
    Tensor x = t.input("x", {4, 4}, DType::Float32, true);
    return std::vector<Tensor>{checkpoint(selective(save_sigmoid, random_fn), x)};
  }));
  EXPECT_EQ(count(random.graphs.forward, "aten.sigmoid.default"), 2u);
  EXPECT_EQ(count(random.graphs.forward, "higher_order.run_and_save_rng_state") +
                count(random.graphs.forward, "aten.native_dropout.default"),
            1u);
  EXPECT_EQ(count(random.graphs.backward, "aten.sigmoid.default"), 0u);
  EXPECT_EQ(count(random.graphs.backward, "higher_order.run_with_rng_state"), 1u);
}

TEST(MinCutPartitioner, ReportExplainsEverySavedValue) {
  MinCutPartition p = min_cut(testing::traced_joint([](Tracer& t) {
    Tensor w = t.parameter("w", {8, 8});
    Tensor x = t.input("x", {4, 8}, DType::Float32, true);
    return std::vector<Tensor>{relu(mm(x, w))};
  }));
  ASSERT_FALSE(p.report.saved_values.empty());
  int64_t total = 0;
  for (const SavedValue& v : p.report.saved_values) {
    EXPECT_FALSE(v.reason.empty()) << v.name;
    total += v.bytes;
  }
  EXPECT_EQ(total, p.report.saved_bytes_total);
  EXPECT_TRUE(p.report.cut_value.has_value());
  std::string json = p.report.json();
  for (const char* key : {"\"saved_values\"", "\"saved_bytes_total\"", "\"recomputed\"",
                          "\"banned\"", "\"cut_value\""}) {
    EXPECT_NE(json.find(key), std::string::npos) << key;
  }
  // The parameter is free to save (treat_parameters_as_free_to_save).
  bool w_free = false;
  for (const auto& e : p.network.edges()) {
    w_free = w_free || (p.network.names()[e.from] == "primals_1_in" &&
                        p.network.names()[e.to] == "primals_1_out" && e.capacity == 0);
  }
  EXPECT_TRUE(w_free);
}

TEST(MinCutPartitioner, CommonSubexpressionsAreMerged) {
  GraphModule joint = testing::traced_joint([](Tracer& t) {
    Tensor x = t.input("x", {3}, DType::Float32, true);
    Tensor a = sin(x);
    Tensor b = sin(x);
    return std::vector<Tensor>{a * b};
  });
  GraphModule copy = joint.clone();
  std::vector<std::pair<std::string, std::string>> merged;
  for (passes::Merge& m : passes::eliminate_common_subexpressions(
           copy.graph(), [](const Node& n) { return is_random(n); }))
    merged.emplace_back(m.removed, m.kept);
  EXPECT_TRUE(verify(copy).empty());
  // The second sin (and its derivative's duplicate cos) went into the first; the removed names
  // are gone, the kept ones remain (the Python partition_fn applies these merges to its joint).
  ASSERT_FALSE(merged.empty());
  EXPECT_EQ(merged.front(), (std::pair<std::string, std::string>{"sin_1", "sin"}));
  for (const auto& [removed, kept] : merged) {
    EXPECT_EQ(copy.graph().find(removed), nullptr) << removed;
    EXPECT_NE(copy.graph().find(kept), nullptr) << kept;
  }
  auto p = min_cut_partition(joint);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->merged, merged);
}

TEST(MemoryBudget, ZeroSavesOnlyThePrimalsAndOneIsThePlainCut) {
  GraphModule joint = testing::traced_joint([](Tracer& t) {
    Tensor w1 = t.parameter("w1", {8, 8}), w2 = t.parameter("w2", {8, 8});
    Tensor x = t.input("x", {4, 8}, DType::Float32, true);
    Tensor h = relu(mm(x, w1));
    return std::vector<Tensor>{sigmoid(mm(h, w2))};
  });
  MinCutConfig zero;
  zero.memory_budget = 0;
  auto p0 = min_cut_partition(joint, zero);
  ASSERT_TRUE(p0.ok()) << format_all(p0.errors());
  for (const std::string& s : p0->graphs.saved_values) EXPECT_TRUE(s.starts_with("primals_")) << s;
  auto p1 = min_cut_partition(joint);
  ASSERT_TRUE(p1.ok());
  int64_t previous = -1;
  for (int step = 0; step <= 10; ++step) {
    MinCutConfig c;
    c.memory_budget = step / 10.0;
    auto p = min_cut_partition(joint, c);
    ASSERT_TRUE(p.ok()) << step;
    EXPECT_TRUE(check_validity(joint, p->graphs, p->report).empty() || step == 0) << step;
    EXPECT_LE(p->report.saved_bytes_total, p1->report.saved_bytes_total) << step;
    EXPECT_GE(p->report.saved_bytes_total, p0->report.saved_bytes_total) << step;
    previous = p->report.saved_bytes_total;
  }
  EXPECT_EQ(previous, p1->report.saved_bytes_total);
  MinCutConfig bad;
  bad.memory_budget = 1.5;
  EXPECT_FALSE(min_cut_partition(joint, bad).ok());
}

}  // namespace
}  // namespace remat::partition
