// Which inputs of a logged joint graph live as long as the model: PyTorch hands its partitioner
// `static_lifetime_input_indices` (the parameters and buffers), and a TORCH_TRACE log does not
// hold them; Dynamo's graph of the same compile names its inputs after what they are.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace remat::fxtext {

/// The indices of the joint's primals that are parameters or buffers: Dynamo's graph inputs named
/// `L_self_modules_fc1_parameters_weight_`, `..._buffers_running_mean_` (AOTAutograd's primals
/// are Dynamo's inputs, in order). nullopt without a Dynamo graph, or with one whose inputs are
/// not the joint's primals one for one.
std::optional<std::vector<int64_t>> static_input_indices(std::string_view dynamo_graph,
                                                         std::string_view joint_graph);

}  // namespace remat::fxtext
