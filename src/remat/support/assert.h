// REMAT_ASSERT: programmer errors abort with file:line and a streamed context message.
#pragma once

#include <sstream>
#include <string_view>

namespace remat::detail {

/// Collects the `<<` context of a failed assertion and aborts when destroyed.
class AssertionFailure {
 public:
  AssertionFailure(const char* condition, const char* file, int line);
  AssertionFailure(const AssertionFailure&) = delete;
  AssertionFailure& operator=(const AssertionFailure&) = delete;
  [[noreturn]] ~AssertionFailure();

  template <class T>
  AssertionFailure& operator<<(const T& value) {
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
};

/// Lets `REMAT_ASSERT(c) << x` parse as one expression whose value is void.
struct AssertionVoidify {
  void operator&(const AssertionFailure&) {}
};

}  // namespace remat::detail

/// Aborts with the condition, file:line and streamed context when `cond` is false.
#define REMAT_ASSERT(cond)                       \
  (cond) ? (void)0                               \
         : ::remat::detail::AssertionVoidify() & \
               ::remat::detail::AssertionFailure(#cond, __FILE__, __LINE__)
