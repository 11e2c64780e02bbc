// Expected<T>: a value or the diagnostics that explain why there is none.
#pragma once

#include <utility>
#include <variant>

#include "remat/support/assert.h"
#include "remat/support/diagnostic.h"

namespace remat {

/// Result of an operation on user input. Holds a T, or one or more diagnostics (never zero).
template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}  // NOLINT: implicit on purpose
  Expected(Diagnostic error) : state_(Diagnostics{std::move(error)}) {}  // NOLINT
  Expected(Diagnostics errors) : state_(std::move(errors)) {             // NOLINT
    REMAT_ASSERT(!std::get<Diagnostics>(state_).empty()) << "an error needs a diagnostic";
  }

  [[nodiscard]] bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & {
    REMAT_ASSERT(ok()) << "value() on an error";
    return std::get<T>(state_);
  }
  const T& value() const& {
    REMAT_ASSERT(ok()) << "value() on an error";
    return std::get<T>(state_);
  }
  T&& value() && {
    REMAT_ASSERT(ok()) << "value() on an error";
    return std::get<T>(std::move(state_));
  }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  [[nodiscard]] const Diagnostics& errors() const {
    REMAT_ASSERT(!ok()) << "errors() on a value";
    return std::get<Diagnostics>(state_);
  }
  Diagnostics take_errors() && { return std::get<Diagnostics>(std::move(state_)); }

 private:
  std::variant<T, Diagnostics> state_;
};

/// Expected<void>: success, or diagnostics.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Diagnostic error) : errors_{std::move(error)} {}     // NOLINT
  Status(Diagnostics errors) : errors_(std::move(errors)) {}  // NOLINT
  [[nodiscard]] bool ok() const { return errors_.empty(); }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] const Diagnostics& errors() const { return errors_; }
  Diagnostics take_errors() && { return std::move(errors_); }

 private:
  Diagnostics errors_;
};

}  // namespace remat

/// Returns the errors of `result` (an Expected or a Status) from the enclosing function, which
/// returns an Expected or a Status, when it failed:
///   auto graph = load_graph_json(path);
///   REMAT_TRY(graph);
#define REMAT_TRY(result)                                                      \
  do {                                                                         \
    auto&& remat_try_result_ = (result);                                       \
    if (!remat_try_result_) return std::move(remat_try_result_).take_errors(); \
  } while (false)
