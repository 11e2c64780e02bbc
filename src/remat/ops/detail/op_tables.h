// The op table, in parts; each part appends its ops. Only op_registry.cpp calls these.
#pragma once

#include <vector>

#include "remat/ops/op_info.h"

namespace remat::detail {

void add_pointwise_ops(std::vector<OpInfo>& ops);
void add_view_ops(std::vector<OpInfo>& ops);
void add_reduction_ops(std::vector<OpInfo>& ops);
void add_nn_ops(std::vector<OpInfo>& ops);
void add_factory_ops(std::vector<OpInfo>& ops);
void add_backward_ops(std::vector<OpInfo>& ops);

}  // namespace remat::detail
