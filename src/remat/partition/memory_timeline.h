// Live tensor bytes over a partition's schedule: the forward's nodes in order, then the
// backward's, each storage freed after the last use of any value in it (a view or detach shares
// its base's storage and adds none). The step's inputs (parameters, the batch) are alive
// throughout, as their owners hold them; the saved values the forward returns live until the
// backward's last use, or, offloaded to host memory, from the forward's last use to the
// backward's first only off the device. Its peak is the report's peak-memory estimate; the report
// draws it as the memory timeline.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "remat/partition/extract.h"

namespace remat::partition {

struct LiveStep {
  const Node* node;  ///< the node that runs; nullptr for a graph's inputs, live from its start
  int64_t live;      ///< bytes live while it runs: its output, its inputs, all still needed
};

/// What is alive at one step: the largest values first.
struct AliveSnapshot {
  size_t step = 0;
  size_t count = 0;  ///< storages alive (a view shares its base's: not counted again)
  std::vector<std::pair<const Node*, int64_t>> largest;
};

struct MemoryTimeline {
  std::vector<LiveStep> steps;  ///< the forward's (its inputs first), then the backward's
  size_t forward_steps = 0;
  size_t peak = 0;  ///< the step with the most bytes live (the first, on a tie)
  [[nodiscard]] int64_t peak_bytes() const { return steps.empty() ? 0 : steps[peak].live; }
};

MemoryTimeline memory_timeline(const ForwardBackward& graphs);
/// Its peak alone, without keeping the steps (every partition's report asks for it).
int64_t peak_live_bytes(const ForwardBackward& graphs);

/// What is alive at each of `steps` (ascending step indices of `memory_timeline(graphs)`), the
/// `largest` values of each.
std::vector<AliveSnapshot> alive_at(const ForwardBackward& graphs, const std::vector<size_t>& steps,
                                    size_t largest);

}  // namespace remat::partition
