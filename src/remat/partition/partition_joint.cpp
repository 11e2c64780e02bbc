#include "remat/partition/partition_joint.h"

#include "remat/partition/default_partition.h"

namespace remat::partition {

std::optional<Strategy> parse_strategy(std::string_view name) {
  if (name == "min-cut") return Strategy::MinCut;
  if (name == "default") return Strategy::Default;
  if (name == "optimal") return Strategy::Optimal;
  return std::nullopt;
}

Expected<Partition> partition_joint(const GraphModule& joint, Strategy strategy,
                                    const MinCutConfig& config, const OptimalOptions& optimal) {
  Partition out;
  if (strategy == Strategy::Default) {
    auto p = default_partition(joint);
    REMAT_TRY(p);
    out.graphs = std::move(p->graphs);
    out.report = std::move(p->report);
    return out;
  }
  auto p = [&]() -> Expected<MinCutPartition> {
    if (strategy != Strategy::Optimal) return min_cut_partition(joint, config);
    auto o = optimal_partition(joint, config, optimal);
    REMAT_TRY(o);
    out.optimal = o->outcome;
    return std::move(o->partition);
  }();
  REMAT_TRY(p);
  out.graphs = std::move(p->graphs);
  out.report = std::move(p->report);
  if (p->report.cut_value)
    out.network = std::move(p->network);  // no network chose a budget-0 or fallback set
  out.stages = std::move(p->stages);
  out.merged = std::move(p->merged);
  out.rng_replayed = std::move(p->rng_replayed);
  return out;
}

}  // namespace remat::partition
