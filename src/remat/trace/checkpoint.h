// checkpoint(): torch.utils.checkpoint for traced C++ code. Every op recorded while `fn` runs
// carries the region's `ac_graph_id` and the recompute policy its SAC policy picks.
#pragma once

#include <functional>
#include <memory>
#include <source_location>
#include <type_traits>
#include <utility>

#include "remat/trace/sac_policy.h"
#include "remat/trace/tracer.h"

namespace remat::trace {

/// A function paired with the selective-checkpointing policy its region uses:
/// `checkpoint(selective(policy, block), x)`.
template <class Fn>
struct Selective {
  SacPolicy policy;
  Fn fn;
};
template <class Fn>
Selective<std::decay_t<Fn>> selective(SacPolicy policy, Fn&& fn) {
  return {std::move(policy), std::forward<Fn>(fn)};
}

namespace detail {
template <class T>
struct IsSelective : std::false_type {};
template <class Fn>
struct IsSelective<Selective<Fn>> : std::true_type {};

// RAII region: closed even when fn throws.
class RegionGuard {
 public:
  RegionGuard(std::shared_ptr<const SacPolicy> policy, const std::source_location& loc)
      : tracer_(Tracer::current()) {
    tracer_.enter_region(std::move(policy), loc);
  }
  ~RegionGuard() { tracer_.exit_region(); }
  RegionGuard(const RegionGuard&) = delete;
  RegionGuard& operator=(const RegionGuard&) = delete;

 private:
  Tracer& tracer_;
};
}  // namespace detail

/// `Tensor h = checkpoint(gn, sin(x), y);` runs gn(sin(x), y) inside a new checkpoint region.
/// It is a class so that it can take the caller's source location after a parameter pack; it
/// converts to fn's result (or use `.get()`). Arguments are evaluated before the region opens,
/// as in Python: `sin` above is outside it.
template <class Fn, class... Args>
class checkpoint {  // NOLINT(readability-identifier-naming): reads as the torch function
  using Callable = std::decay_t<Fn>;
  static constexpr bool kSelective = detail::IsSelective<Callable>::value;

  static auto invoke(Fn& fn, Args&... args) {
    if constexpr (kSelective) {
      return std::invoke(fn.fn, std::forward<Args>(args)...);
    } else {
      return std::invoke(fn, std::forward<Args>(args)...);
    }
  }

 public:
  using Result = decltype(invoke(std::declval<Fn&>(), std::declval<Args&>()...));
  static_assert(!std::is_void_v<Result>, "the checkpointed function must return its outputs");

  checkpoint(Fn&& fn, Args&&... args, std::source_location loc = std::source_location::current())
      : result_(run(fn, args..., loc)) {}

  operator Result() && { return std::move(result_); }  // NOLINT: implicit on purpose
  Result get() && { return std::move(result_); }

 private:
  static Result run(Fn& fn, Args&... args, const std::source_location& loc) {
    std::shared_ptr<const SacPolicy> policy;
    if constexpr (kSelective) {
      policy = std::make_shared<const SacPolicy>(fn.policy);
    } else {
      policy = std::make_shared<const SacPolicy>(SacPolicy::recompute_all());
    }
    detail::RegionGuard region(std::move(policy), loc);
    return invoke(fn, args...);
  }

  Result result_;
};

template <class Fn, class... Args>
checkpoint(Fn&&, Args&&...) -> checkpoint<Fn, Args...>;

}  // namespace remat::trace
