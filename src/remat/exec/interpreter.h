// Runs a GraphModule node by node through libtorch's ATen dispatcher (boxed calls resolved by
// schema name and overload), so any op the installed libtorch has runs, not only the registry's.
// It runs on the CPU: device arguments (`device=cuda:0` in a graph captured on a GPU) become cpu.
#pragma once

#include <ATen/core/ivalue.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"

namespace remat::exec {

struct RunOptions {
  /// Record autograd history (inputs that require grad stay connected to the outputs).
  bool grad_mode = false;
  /// Compare every node's value with its metadata (sizes, strides, dtype) and fail on a mismatch.
  bool check_metadata = false;
  /// Told (nodes run, nodes in the graph) every few hundred nodes, for progress output.
  std::function<void(size_t, size_t)> progress = nullptr;
  /// Told, after each call node runs and before its inputs are released, the bytes of the
  /// distinct storages alive: the graph's values (each dropped after its last use) and `held`.
  std::function<void(const Node&, int64_t)> on_step = nullptr;
  /// What the caller keeps alive meanwhile (the step's inputs during the backward), for on_step.
  std::vector<c10::IValue> held = {};
};

/// The bytes of the distinct storages the tensors in `values` live in (tuples and lists looked
/// into; views of one storage counted once).
int64_t storage_bytes(const std::vector<const c10::IValue*>& values);

/// Runs `module` on `inputs` (one per placeholder, in order) and returns the flattened outputs.
/// Errors name the node: an op missing from the installed ATen, an ATen error, a value that does
/// not match its metadata.
Expected<std::vector<c10::IValue>> run_graph(const GraphModule& module,
                                             const std::vector<c10::IValue>& inputs,
                                             const RunOptions& options = {});

/// Deterministic inputs for every placeholder from its metadata: floating tensors from a normal
/// distribution, integer tensors inside the ranges their uses allow (embedding indices below the
/// table's rows, class targets below the class count), booleans, symbolic sizes' hints.
Expected<std::vector<c10::IValue>> random_inputs(const GraphModule& module, uint64_t seed);

}  // namespace remat::exec
