// Numeric checks on real values: a joint graph against libtorch's own autograd, and a
// forward/backward partition against its joint graph.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"

namespace remat::exec {

struct CheckOptions {
  /// check_partition: record the bytes alive at each node of the forward and the backward.
  bool measure_memory = false;
  uint64_t seed = 0;   ///< inputs, tangents and random ops (the same in every run compared)
  double atol = 1e-5;  ///< torch.testing's float32 defaults
  double rtol = 1.3e-6;
  /// Told (which graph, nodes run, nodes in it) as long runs go, for progress output.
  std::function<void(std::string_view, size_t, size_t)> progress = nullptr;
};

/// One compared value: `|actual - expected| <= atol + rtol * |expected|` elementwise.
struct Comparison {
  std::string what;  ///< e.g. `gradient of primals_2 (GradAOTOutput(...))`
  double max_abs = 0;
  double max_rel = 0;
  bool ok = true;
  std::string problem;  ///< set when shapes, dtypes or None-ness differ
  bool absent = false;  ///< None on both sides (no gradient for that input): nothing compared
};

/// Bytes alive while a node of the partition ran, measured on the real tensors: the step's
/// inputs throughout, every other storage until its last use, views counted once.
struct MeasuredStep {
  bool backward = false;
  std::string node;
  int64_t live = 0;
};

struct CheckReport {
  std::vector<Comparison> comparisons;
  std::vector<MeasuredStep> memory;  ///< with CheckOptions::measure_memory
  /// The largest step of `memory` (memory.end() when empty).
  [[nodiscard]] std::vector<MeasuredStep>::const_iterator measured_peak() const;
  [[nodiscard]] bool ok() const;
  /// Values actually compared: the comparisons that are not None on both sides.
  [[nodiscard]] size_t values_compared() const;
  /// One line per comparison, then `check: N values compared, M beyond tolerance` (and how many
  /// outputs were None on both sides).
  [[nodiscard]] std::string text() const;
  /// `{"values": N, "beyond_tolerance": M, "max_abs_error": X, "max_rel_error": Y}` (the worst
  /// over every value; a non-finite error is written as the string "inf" or "nan").
  [[nodiscard]] std::string json() const;
};

/// Runs the joint graph (checking every node's value against its metadata) and compares its
/// forward outputs and gradients with libtorch's autograd applied to the joint's forward part
/// (the nodes that do not depend on tangents) with the same inputs and tangents.
Expected<CheckReport> check_joint(const GraphModule& joint, const CheckOptions& options = {});

/// Runs `forward` on the joint's primals, then `backward` on its saved values and the same
/// tangents, and compares every output and gradient with the joint graph's.
Expected<CheckReport> check_partition(const GraphModule& joint, const GraphModule& forward,
                                      const GraphModule& backward,
                                      const CheckOptions& options = {});

}  // namespace remat::exec
