// The "what if" rows of a logged compile (report/what_if.h): its joint graph, read from the log's
// text, partitioned by PyTorch's knapsack and by remat's optimum at budgets 1, 0.8, 0.5, 0.3 of the
// min-cut's activation memory and at the memory the run used.
#pragma once

#include "remat/report/what_if.h"

namespace remat::driver {

/// The table for `request`; each optimum may take `seconds_per_solve` (a row says when its
/// solver stopped there).
report::WhatIfTable what_if(const report::WhatIfRequest& request, double seconds_per_solve);

}  // namespace remat::driver
