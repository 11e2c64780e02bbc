// The memory budget (docs/spec/partitioning.md §7) against PyTorch's own expectations
// (test/functorch/test_ac.py, §10 items 20-23 there): activation memory in MiB and backward FLOPs
// in units of one 512x512 matmul, as that file measures them.
#include <gtest/gtest.h>

#include <cmath>

#include "remat/ir/graph.h"
#include "remat/ops/op_registry.h"
#include "remat/partition/memory_budget.h"
#include "remat/partition/min_cut_partition.h"
#include "remat/partition/validity.h"
#include "remat/trace/checkpoint.h"
#include "testing/traced_joint.h"

namespace remat::partition {
namespace {

using namespace remat::trace;

// What test_ac.py measures, from a partition.
struct MemAndFlops {
  double mem_mib;   ///< the report's activation bytes, in 0.1 MiB steps
  double bw_flops;  ///< FlopCounterMode's count of the backward, per 512x512 matmul (2 * 512^3)
  int64_t bytes;    ///< the report's activation bytes, unrounded
};

double flops_of(const GraphModule& m) {
  double total = 0;
  for (const Node* n : m.graph().nodes()) total += static_cast<double>(flop_counter_flops(*n));
  return total / (2.0 * 512 * 512 * 512);
}

MemAndFlops measure(const GraphModule& joint, double budget) {
  MinCutConfig config;
  config.memory_budget = budget;
  auto p = min_cut_partition(joint, config);
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : format_all(p.errors()));
  if (!p.ok()) return {};
  EXPECT_TRUE(check_validity(joint, p->graphs, p->report).empty()) << "budget " << budget;
  double mib = static_cast<double>(*p->report.activation_bytes) / (1 << 20);
  return {std::round(mib * 10) / 10, flops_of(p->graphs.backward), *p->report.activation_bytes};
}

// Without any recomputation: the backward ops of the joint graph.
double eager_backward_flops(const GraphModule& joint) {
  double total = 0;
  for (const Node* n : joint.graph().nodes()) {
    if (n->meta.partitioner_tag == PartitionerTag::IsBackward)
      total += static_cast<double>(flop_counter_flops(*n));
  }
  return total / (2.0 * 512 * 512 * 512);
}

Tensor input(Tracer& t, const char* name, int64_t rows, int64_t cols) {
  return t.input(name, {rows * 512, cols * 512}, DType::Float32, true);
}

TEST(MemoryBudget, RematerializesCheap) {
  // §10.20: mm(cos(x), w).sum(): budget 1 saves cos (1 MiB); 0.5 recomputes it for free.
  GraphModule joint = testing::traced_joint([](Tracer& t) {
    Tensor x = input(t, "x", 1, 1), w = input(t, "w", 1, 1);
    return std::vector<Tensor>{mm(cos(x), w).sum()};
  });
  double eager = eager_backward_flops(joint);
  MemAndFlops full = measure(joint, 1.0), half = measure(joint, 0.5);
  EXPECT_EQ(full.mem_mib, 1.0);
  EXPECT_EQ(full.bw_flops, eager);
  EXPECT_EQ(half.mem_mib, 0.0);
  EXPECT_EQ(half.bw_flops, eager);
}

/// cos, then 5 x (mm, cos), every tensor 1 MiB.
GraphModule matmul_chain_joint() {
  return testing::traced_joint([](Tracer& t) {
    Tensor x = input(t, "x", 1, 1);
    std::vector<Tensor> ws;
    for (int i = 0; i < 5; ++i) ws.push_back(input(t, ("w" + std::to_string(i)).c_str(), 1, 1));
    x = cos(x);
    for (const Tensor& w : ws) x = cos(mm(x, w));
    return std::vector<Tensor>{x.sum()};
  });
}

TEST(MemoryBudget, MatmulEvenChain) {
  // §10.21: cos, then 5 x (mm, cos): budget b/10 with b <= 5 saves b matmuls and recomputes
  // the other 5 - b; up to 9/10 only the cosines are recomputed; 10/10 saves everything.
  GraphModule joint = matmul_chain_joint();
  double eager = eager_backward_flops(joint);
  for (int b = 0; b <= 10; ++b) {
    MemAndFlops m = measure(joint, b / 10.0);
    if (b <= 5) {
      EXPECT_EQ(m.mem_mib, b) << "budget " << b;
      EXPECT_EQ(m.bw_flops, eager + (5 - b)) << "budget " << b;
    } else if (b < 10) {
      EXPECT_EQ(m.mem_mib, 5.0) << "budget " << b;
      EXPECT_EQ(m.bw_flops, eager) << "budget " << b;
    } else {
      EXPECT_EQ(m.mem_mib, 10.0) << "budget " << b;
      EXPECT_EQ(m.bw_flops, eager) << "budget " << b;
    }
  }
}

TEST(MemoryBudget, BudgetsInBytesPickTheLargestFractionThatFits) {
  // The chain above: budget b/10 keeps b matmuls of 1 MiB each (b <= 5), everything at 1.
  GraphModule joint = matmul_chain_joint();
  auto fits = [&](const char* text) {
    Expected<MemoryBudget> b = parse_memory_budget(text);
    EXPECT_TRUE(b && b->bytes) << text;
    double budget = -1;
    Expected<Partition> p = partition_within_bytes(joint, {}, *b->bytes, budget);
    EXPECT_TRUE(p) << text << ": " << (p ? "" : format_all(p.errors()));
    EXPECT_LE(*p->report.activation_bytes, *b->bytes) << text;
    EXPECT_TRUE(check_validity(joint, p->graphs, p->report).empty()) << text;
    return std::pair{*p->report.activation_bytes >> 20, budget};
  };
  EXPECT_EQ(fits("3MB").first, 3);  // 3 MiB at budget 0.3; 0.4 would keep 4
  EXPECT_GE(fits("3MB").second, 0.3);
  EXPECT_LT(fits("3MB").second, 0.4);
  EXPECT_EQ(fits("2.5 MiB").first, 2);
  EXPECT_EQ(fits("0.5MB").first, 0);                               // budget 0: the inputs only
  EXPECT_EQ(fits("11MB"), (std::pair<int64_t, double>{10, 1.0}));  // the whole min-cut fits
  // As the byte budget grows, what is kept never shrinks.
  int64_t last = -1;
  for (int mib = 0; mib <= 11; ++mib) {
    int64_t kept = fits((std::to_string(mib) + "MB").c_str()).first;
    EXPECT_GE(kept, last) << mib << " MB";
    last = kept;
  }
}

TEST(MemoryBudget, BudgetsAreFractionsOrBytesWithAUnit) {
  EXPECT_EQ(parse_memory_budget("0.5")->fraction, 0.5);
  EXPECT_EQ(parse_memory_budget("1")->fraction, 1.0);
  EXPECT_EQ(parse_memory_budget("24MB")->bytes, 24 << 20);
  EXPECT_EQ(parse_memory_budget("1.5 GiB")->bytes, int64_t{3} << 29);
  EXPECT_EQ(parse_memory_budget("4096b")->bytes, 4096);
  EXPECT_EQ(parse_memory_budget("2kb")->bytes, 2048);
  for (const char* bad : {"5", "-1", "x", "3xB", "", "nanMB", "1e30GB"}) {
    Expected<MemoryBudget> b = parse_memory_budget(bad);
    ASSERT_FALSE(b) << bad;
    EXPECT_NE(b.errors().front().message.find("such as 24MB"), std::string::npos) << bad;
  }
}

TEST(MemoryBudget, RatesAreBytesOrFlopsPerSecond) {
  EXPECT_EQ(*parse_transfer_rate("50GB/s", "--bw"), 50.0 * (1 << 30));
  EXPECT_EQ(*parse_transfer_rate("1.5 MiB", "--bw"), 1.5 * (1 << 20));
  EXPECT_EQ(*parse_flop_rate("100T", "--f"), 1e14);
  EXPECT_EQ(*parse_flop_rate("312TFLOPS", "--f"), 312e12);
  EXPECT_EQ(*parse_flop_rate("2.5e12", "--f"), 2.5e12);
  EXPECT_EQ(*parse_flop_rate("8 GFLOP/s", "--f"), 8e9);
  for (const char* bad : {"", "0GB/s", "-1GB", "50", "50/s", "fast"}) {
    auto r = parse_transfer_rate(bad, "--offload-bandwidth");
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.errors().front().message.find("--offload-bandwidth"), std::string::npos);
  }
  for (const char* bad : {"", "0", "1X", "TFLOPS"})
    EXPECT_FALSE(parse_flop_rate(bad, "--f")) << bad;
}

// sum(mm(x_i, w_i).cos().sum()) over pairs; create_pair(B, O): x [B*512, B*512], w [B*512, O*512].
GraphModule pairs_joint(const std::vector<std::pair<int64_t, int64_t>>& pairs) {
  return testing::traced_joint([&](Tracer& t) {
    std::vector<Tensor> terms;
    for (size_t i = 0; i < pairs.size(); ++i) {
      auto [b, o] = pairs[i];
      Tensor x = input(t, ("x" + std::to_string(i)).c_str(), b, b);
      Tensor w = input(t, ("w" + std::to_string(i)).c_str(), b, o);
      terms.push_back(cos(mm(x, w)).sum());
    }
    Tensor total = terms[0];
    for (size_t i = 1; i < terms.size(); ++i) total = total + terms[i];
    return std::vector<Tensor>{total};
  });
}

TEST(MemoryBudget, PrioritizeCheaperMatmul) {
  // §10.22: pairs (1, 4) and (2, 2): eager 8 MiB / 24; budget 0.5 -> 4 MiB, +4 (x1 @ w1
  // again).
  GraphModule joint = pairs_joint({{1, 4}, {2, 2}});
  double eager = eager_backward_flops(joint);
  MemAndFlops all = measure(joint, 1.0);
  EXPECT_EQ(all.mem_mib, 8.0);
  EXPECT_EQ(eager, 24.0);
  MemAndFlops half = measure(joint, 0.5);
  EXPECT_EQ(half.mem_mib, 4.0);
  EXPECT_EQ(half.bw_flops, eager + 4);
}

TEST(MemoryBudget, PrioritizeCheaperMatmul2) {
  // §10.22: pairs (4, 4), (6, 2), (2, 6): eager 40 MiB / 320; 28/40 -> 28, +24;
  // 16/40 -> 12 (saving the 12 MiB one saves more FLOPs than the 16 MiB one), +88.
  GraphModule joint = pairs_joint({{4, 4}, {6, 2}, {2, 6}});
  double eager = eager_backward_flops(joint);
  EXPECT_EQ(measure(joint, 1.0).mem_mib, 40.0);
  EXPECT_EQ(eager, 320.0);
  MemAndFlops m28 = measure(joint, 28.0 / 40), m16 = measure(joint, 16.0 / 40);
  EXPECT_EQ(m28.mem_mib, 28.0);
  EXPECT_EQ(m28.bw_flops - eager, 2 * 2 * 6);
  EXPECT_EQ(m16.mem_mib, 12.0);
  EXPECT_EQ(m16.bw_flops - eager, 2 * 2 * 6 + 4 * 4 * 4);
}

TEST(MemoryBudget, ManualCheckpointsAreRespected) {
  // §10.23: two checkpoints of f (four matmuls) on x [64, 1024]; a tiny budget still saves
  // what activation checkpointing saves and recomputes what eager AC recomputes: each region up
  // to its last needed value (PyTorch's non-reentrant checkpoint stops early, before the final
  // matmul, whose output the backward does not read).
  auto f = [](Tensor x) {
    Tensor tmp = matmul(x, x.t());
    tmp = matmul(tmp, tmp);
    tmp = matmul(tmp, tmp);
    return matmul(tmp, x);
  };
  GraphModule joint = testing::traced_joint([&](Tracer& t) {
    Tensor x = t.input("x", {64, 1024}, DType::Float32, true);
    Tensor y = checkpoint(f, x);
    return std::vector<Tensor>{Tensor(checkpoint(f, y)).sum()};
  });
  double forward_flops = 0;
  for (const Node* n : joint.graph().nodes()) {
    if (n->meta.partitioner_tag == PartitionerTag::IsForward)
      forward_flops += static_cast<double>(flop_counter_flops(*n));
  }
  forward_flops /= 2.0 * 512 * 512 * 512;
  double final_matmul = 64.0 * 64 * 1024 * 2 / (2.0 * 512 * 512 * 512);  // [64, 64] @ [64, 1024]
  double eager_ac = eager_backward_flops(joint) + forward_flops - 2 * final_matmul;
  MemAndFlops tiny = measure(joint, 0.01), full = measure(joint, 1.0);
  EXPECT_EQ(tiny.bytes, 64 * 1024 * 4);  // the first region's output
  EXPECT_EQ(tiny.bw_flops, eager_ac);
  EXPECT_EQ(full.bytes, tiny.bytes);
  EXPECT_EQ(full.bw_flops, eager_ac);
}

}  // namespace
}  // namespace remat::partition
