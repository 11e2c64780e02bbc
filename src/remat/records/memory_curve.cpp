#include "remat/records/memory_curve.h"

#include <algorithm>

namespace remat::records {

TimelineCurve memory_curve(std::string label, const std::vector<CurveStep>& steps,
                           size_t forward_steps, size_t max_samples) {
  TimelineCurve c;
  c.label = std::move(label);
  c.steps = steps.size();
  c.forward_steps = forward_steps;
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].live > steps[c.peak_step].live) c.peak_step = i;
  if (!steps.empty()) {
    c.peak_bytes = steps[c.peak_step].live;
    c.peak_node = steps[c.peak_step].node;
  }
  size_t bucket =
      std::max<size_t>(1, (steps.size() + max_samples - 1) / std::max<size_t>(1, max_samples));
  for (size_t start = 0; start < steps.size(); start += bucket) {
    size_t best = start;
    for (size_t i = start; i < std::min(steps.size(), start + bucket); ++i)
      if (steps[i].live > steps[best].live) best = i;
    c.samples.push_back(
        {best, steps[best].live, std::string(steps[best].node), steps[best].bytes, 0, {}});
  }
  return c;
}

void RegionMapBuilder::add(std::string_view node, std::optional<int64_t> region, bool saved,
                           bool recomputed) {
  size_t i = map_.nodes++;
  if (region) {
    if (!map_.regions.empty() && map_.regions.back().id == *region &&
        map_.regions.back().span.last + 1 == i) {
      map_.regions.back().span.last = i;
      map_.regions.back().span.last_name = node;
    } else {
      map_.regions.push_back({*region, {i, i, std::string(node), std::string(node)}});
    }
  }
  if (saved) map_.saved.emplace_back(i, node);
  if (recomputed) {
    if (!map_.recomputed.empty() && map_.recomputed.back().last + 1 == i) {
      map_.recomputed.back().last = i;
      map_.recomputed.back().last_name = node;
    } else {
      map_.recomputed.push_back({i, i, std::string(node), std::string(node)});
    }
  }
}

}  // namespace remat::records
