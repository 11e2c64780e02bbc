// Hand-built graphs that reproduce the examples of the specs (the seed's joint graph, ...).
#pragma once

#include <initializer_list>
#include <string>

#include "remat/ir/graph_module.h"

namespace remat::testing {

/// FakeTensor-style metadata (`val`): dtype, sizes, strides, device.
TensorMeta tensor(DType dtype, std::initializer_list<int64_t> sizes,
                  std::initializer_list<int64_t> strides, std::string_view device = "cpu");
/// A Python traceback with one frame, as node.meta["stack_trace"] holds it.
std::string traceback(std::string_view file, int line, std::string_view function,
                      std::string_view code);

/// The joint graph of the seed's example (`checkpoint(gn, torch.sin(x), y)` with
/// `gn = sigmoid(matmul(x, y))`, 4x4 inputs on cuda:0): 15 nodes, descriptors, pytree codegen,
/// PREFER_RECOMPUTE with ac_graph_id 2 on mm, sigmoid and detach.
GraphModule seed_joint_graph();

}  // namespace remat::testing
