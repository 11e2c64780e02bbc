#include "testing/golden.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace remat::testing {

std::string tests_dir() {
  return REMAT_TESTS_DIR;
}
std::string data_path(const std::string& relative) {
  return tests_dir() + "/data/" + relative;
}

void expect_golden(const std::string& name, const std::string& actual) {
  std::filesystem::path path = std::filesystem::path(tests_dir()) / "golden" / name;
  const char* update = std::getenv("REMAT_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << path
                  << " (run the tests with REMAT_UPDATE_GOLDEN=1 to create it)";
  std::stringstream ss;
  ss << in.rdbuf();
  std::string expected = ss.str();
  if (expected == actual) return;
  std::istringstream e(expected), a(actual);
  std::string el, al;
  int line = 1;
  while (true) {
    bool he = static_cast<bool>(std::getline(e, el));
    bool ha = static_cast<bool>(std::getline(a, al));
    if (!he && !ha) break;
    if (!he || !ha || el != al) {
      ADD_FAILURE() << "output differs from golden " << path << " at line " << line
                    << "\n  expected: " << (he ? el : "<end of file>")
                    << "\n  actual:   " << (ha ? al : "<end of output>")
                    << "\n(REMAT_UPDATE_GOLDEN=1 rewrites it; review the diff)";
      return;
    }
    ++line;
  }
  ADD_FAILURE() << "output differs from golden " << path << " in trailing bytes";
}

}  // namespace remat::testing
