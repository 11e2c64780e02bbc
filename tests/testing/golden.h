// Golden-file checks for printed text; REMAT_UPDATE_GOLDEN=1 rewrites the expected files.
#pragma once

#include <string>

namespace remat::testing {

/// The repository's tests/ folder (set at build time).
std::string tests_dir();
/// tests/data/<relative>.
std::string data_path(const std::string& relative);

/// Compares `actual` with tests/golden/<name>; with REMAT_UPDATE_GOLDEN=1 in the environment the
/// file is (re)written instead. Reports a gtest failure showing the first differing line.
void expect_golden(const std::string& name, const std::string& actual);

}  // namespace remat::testing
