#include "remat/support/assert.h"

#include <cstdio>
#include <cstdlib>

namespace remat::detail {

AssertionFailure::AssertionFailure(const char* condition, const char* file, int line) {
  stream_ << file << ':' << line << ": internal error: assertion `" << condition << "` failed";
  stream_ << ": ";
}

AssertionFailure::~AssertionFailure() {
  std::string message = stream_.str();
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace remat::detail
