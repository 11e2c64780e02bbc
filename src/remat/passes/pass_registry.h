// Every graph pass by name, as `remat opt --passes=dce,cse` and the partitioners find them.
#pragma once

#include <string_view>
#include <vector>

#include "remat/passes/pass.h"
#include "remat/support/expected.h"

namespace remat::passes {

/// Every registered pass, in the order `remat opt --list` shows them.
const std::vector<PassInfo>& registered_passes();

/// The pass named `name`, or nullptr.
const PassInfo* find_pass(std::string_view name);

/// A comma-separated list of pass names ("dce,cse"), in order (empty: none); an error naming
/// each unknown or empty name and the passes there are.
Expected<std::vector<const PassInfo*>> parse_pass_list(std::string_view list);

}  // namespace remat::passes
