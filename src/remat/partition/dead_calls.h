// What FX's numbering says of the op calls of checkpoint regions whose every node died: the
// numbers it skipped between an op's nodes, at a region's ends, and those that stale views of a
// changed tensor took. Internal to the reading of a joint graph's op calls (region_calls.cpp).
#pragma once

#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "remat/ir/graph.h"

namespace remat::partition::reading {

/// By region and view op: the last in-place call of the region (its first node) that changed a
/// tensor with views of that op. Functionalization may have made such views again after it,
/// numbering them as it did.
using ViewsMadeAgain = std::map<std::pair<int64_t, std::string_view>, const Node*>;

/// Whether `views_made_again` says the numbers of `last`'s op after it, its region's last node of
/// the op, may be views made again: an in-place call of the region changed a tensor with such
/// views after it.
bool made_again_after(const ViewsMadeAgain& views_made_again, const Node& last);

/// Views of a tensor an in-place call changed, which the model reads through a chain of view
/// calls (Longformer's `query_vectors /= ...`, then `.view(...).transpose(0, 1)`, a transpose and
/// a reshape, `_chunk`'s view and as_strided, einsum's unsqueeze and permutes). Functionalization
/// no longer marks a changed tensor up to date, so every view a call makes of it is stale: when
/// selective checkpointing detaches the call's output, the view is made again from the changed
/// tensor, view op by view op of its chain. The j-th call of a chain of m thus numbers its own
/// node and the chain's first j views; the joint keeps only the views made for the last (the
/// chain's remade views) and FX's numbering the rest. Each earlier call of the chain is a call
/// whose every node died (region_calls keeps it in the chain's order); it is placed at the first
/// point where all its numbers fit before the next live node of each op (the other live calls of
/// the region come in between: Longformer's key chain), and the numbers explain the gaps between
/// live views. A chain whose numbers do not fit so is left to the rest of the reading.
struct StaleViewChains {
  // The node before whose call the call of a remade view's own (dead) view was made.
  std::unordered_map<const Node*, const Node*> made_before;
  // By FX base: the numbers the chains' calls and remakes took.
  std::unordered_map<std::string_view, std::set<long long>> numbered;

  /// How many numbers of `base` in (`from`, `to`) the chains took.
  long long between(std::string_view base, long long from, long long to) const {
    auto it = numbered.find(base);
    if (it == numbered.end() || to <= from + 1) return 0;
    return std::distance(it->second.upper_bound(from), it->second.lower_bound(to));
  }
};

StaleViewChains stale_view_chains(const Graph& g);

/// The calls whose every node died that a region makes before an op's first node in it (`stack`
/// before `stack_1`: Mamba's scan drops a state), keyed by that node, and after its last node
/// there (Bailing-hybrid's loop updates its state once more than it reads it: a `bmm` after the
/// last `bmm`), keyed by that one. FX's numbering shows the numbers skipped between an op's nodes,
/// but not whether a region's, the previous region's or the code's between them (the masks before
/// the first layer) made them. Regions that run one layer's code (as many nodes of the op in each)
/// call an op equally often, so each region of a run leads with as many as the others and trails
/// with as many: the numbers skipped between two of its regions are both, those before the run
/// hold the leading ones, those after it the trailing ones. Where that leaves the split open, the
/// one that needs the fewest sources of dead calls is taken (of the code before the run, leading,
/// trailing, the code after it); then the side the other ops of those regions show (their dead
/// calls come from the same dead code); else the leading one. Regions that run different code
/// (Kimi-linear's dense first layer, then MoE layers) trail with what was skipped after each when
/// the other ops show that side; otherwise a region that makes fewer nodes of the op dropped
/// calls the others make (Pegasus-X's last encoder layer). The numbers after a region that changed
/// a tensor with views of the op in place are also those views made again (`views_made_again`):
/// they tell nothing.
struct DeadCallsAtEnds {
  std::unordered_map<const Node*, long long> leading;   // by the op's first node in a region
  std::unordered_map<const Node*, long long> trailing;  // by its last node there
};

DeadCallsAtEnds dead_calls_at_ends(const Graph& g, const ViewsMadeAgain& views_made_again,
                                   const StaleViewChains& stale);

}  // namespace remat::partition::reading
