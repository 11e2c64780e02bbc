// Which ATen operator overloads exist (libtorch's dispatcher list, ops/data/aten_overloads.txt,
// plus remat's registry) and which PyTorch tags nondeterministic_seeded, and the target problems of
// a graph: a misspelt overload, an operator no release has, a call with the wrong arguments for its
// schema.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "remat/ir/graph.h"

namespace remat {

/// `aten.relu.default`: in the installed-libtorch list or in remat's registry.
bool aten_overload_known(std::string_view target);

/// `aten.native_dropout.default`, `aten._scaled_dot_product_flash_attention_for_cpu.default`:
/// PyTorch tags the overload nondeterministic_seeded (ops/data/torch_seeded_overloads.txt, from
/// PyTorch 2.13): it draws from the generator, so a recomputation replays the forward's RNG state.
bool torch_seeded_overload(std::string_view target);

/// The known overload names of `aten.relu` (`default`, `out`, ...), sorted.
std::vector<std::string> aten_overloads_of(std::string_view packet);

/// What is wrong with the graph's ATen targets, node by node: an unknown operator or overload
/// (with the overloads that do exist), or arguments that do not fit the schema of an op remat
/// knows. Targets outside aten/prims (Python callables, other namespaces) are not judged.
std::vector<std::pair<const Node*, std::string>> target_problems(const Graph& graph);

}  // namespace remat
