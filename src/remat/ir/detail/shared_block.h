// The reference-counted blocks behind compound Argument values (Note [shared blocks] in
// argument.cpp), visible here so the hot read accessors can be inlined.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

namespace remat::detail {

struct Block {
  std::atomic<uint32_t> refs{1};
  /// False when no node is referenced inside (a shape list): input walks skip the block. Set
  /// when the block is made, and back to true once anything may have been written into it.
  bool may_hold_node = true;
};

template <class T>
struct Shared : Block {
  explicit Shared(T v) : value(std::move(v)) {}
  T value;
};

/// The value of a block stored as a `Block*` in a `void*`.
template <class T>
const T& block_value(const void* heap) {
  return static_cast<const Shared<T>*>(static_cast<const Block*>(heap))->value;
}

inline bool block_may_hold_node(const void* heap) {
  return static_cast<const Block*>(heap)->may_hold_node;
}

}  // namespace remat::detail
