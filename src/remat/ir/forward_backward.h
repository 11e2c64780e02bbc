// A partition's two graphs: what the forward computes and returns for the backward, and the
// backward that reads it (AOTAutograd's fw_module and bw_module).
#pragma once

#include <string>
#include <vector>

#include "remat/ir/graph_module.h"

namespace remat {

struct ForwardBackward {
  GraphModule forward;   ///< primals -> forward outputs + saved tensors + saved symints
  GraphModule backward;  ///< saved symints + saved tensors + tangents -> gradients
  std::vector<std::string> saved_values;   ///< tensors the forward returns for the backward
  std::vector<std::string> saved_symints;  ///< symbolic sizes it returns for the backward
  /// Saved values that wait in host memory: off the device after their last use in the forward,
  /// back just before their first use in the backward (the optimum's offload).
  std::vector<std::string> offloaded;
};

}  // namespace remat
