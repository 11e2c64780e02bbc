// PyTorch's own logs carry no partition record: what its partitioner saved and recomputed is read
// off the forward and backward graphs it logged (marks_from_graphs). This turns those marks and
// the graphs' text into a record of the same shape as remat's, so the partition page and its
// pictures work for them too: the memory timeline from the text (annotations give each value's
// bytes, the `x = None` deletions when it dies) and the region map from the joint graph's tags.
// There is no budget sweep: that takes remat's partitioner, which the report never runs.
#pragma once

#include <string_view>
#include <vector>

#include "remat/records/partition_record.h"
#include "remat/report/graph_html.h"

namespace remat::report {

/// One logged graph: its text and the nodes graph_lines found in it.
struct LoggedGraph {
  std::string_view text;
  const std::vector<GraphLine>* nodes = nullptr;  ///< null: no such graph
};

/// A record of the partition `marks` describe, with charts (the memory curve, and the region map
/// when `joint` is given).
records::PartitionRecord derived_record(const PartitionMarks& marks, LoggedGraph forward,
                                        LoggedGraph backward, const std::vector<GraphLine>* joint);

/// After marks_from_graphs: a name both graphs define is a recomputation only when both make it
/// with the same op (looking through getitems). Passes that run after PyTorch's partitioner name
/// the nodes they add themselves, with names the backward may use for other nodes (the forward's
/// `getitem_151 = run_and_save_rng_state_1[0]`, the backward's `getitem_151 =
/// native_layer_norm_backward[2]` in BERT's encoder-decoder).
void drop_name_collisions(PartitionMarks& marks, LoggedGraph forward, LoggedGraph backward);

/// After marks_from_graphs, when PyTorch functionalized random ops it recomputes (dropout under
/// checkpoint): the forward saves each such op's random state (`rng_state_output_N`, not an
/// activation its partitioner chose: dropped from the saved values) and the backward runs the op
/// again as `run_with_rng_state(STATE, OP, ARGS)`, a name the joint graph lacks. The joint's node
/// that calls OP(ARGS) is what is recomputed. The names the forward gives
/// `run_and_save_rng_state`'s outputs are its own: no recomputation.
void credit_random_recomputation(PartitionMarks& marks, LoggedGraph forward, LoggedGraph backward,
                                 LoggedGraph joint);

/// After marks_from_graphs: a constant both graphs read (`_tensor_constant0 =
/// self._tensor_constant0`, a tensor a model creates in its forward, lifted by PyTorch) is no
/// recomputation.
void drop_constant_reads(PartitionMarks& marks, LoggedGraph backward);

/// What PyTorch's partitioner saved and recomputed, read off the forward and backward graphs it
/// logged: marks_from_graphs, then the corrections above (names, random ops, constants). `joint`
/// may be empty (no random op is credited then).
PartitionMarks marks_read_off_graphs(LoggedGraph forward, LoggedGraph backward, LoggedGraph joint);

/// The names a statement line frees after it (`...;  a = b = None`), in order.
std::vector<std::string_view> freed_names(std::string_view line);
/// The same into `out` (cleared first): a walk over a graph reuses one vector.
void freed_names(std::string_view line, std::vector<std::string_view>& out);

}  // namespace remat::report
