// SlotArena<T>: storage for many objects of one type in large chunks, slots reused after release.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <vector>

namespace remat {

/// Uninitialised slots for T, handed out in allocation order from chunks that grow geometrically
/// (a small graph costs one small chunk, a million-node one a few dozen). Objects made one after
/// another sit next to each other, and everything is freed in a few calls. The caller constructs
/// and destroys the objects (placement new, explicit destructor); the arena only owns memory.
template <class T>
class SlotArena {
 public:
  SlotArena() = default;
  SlotArena(const SlotArena&) = delete;
  SlotArena& operator=(const SlotArena&) = delete;
  ~SlotArena() {
    for (const Chunk& c : chunks_) std::allocator<T>().deallocate(c.base, c.capacity);
  }

  /// A slot for one T: a released one if any, else the next unused one.
  T* allocate() {
    if (!released_.empty()) {
      T* slot = released_.back();
      released_.pop_back();
      return slot;
    }
    if (chunks_.empty() || chunks_.back().used == chunks_.back().capacity) grow(0);
    Chunk& c = chunks_.back();
    return c.base + c.used++;
  }
  /// Gives back a slot whose object the caller has destroyed.
  void release(T* slot) { released_.push_back(slot); }
  /// Makes room for `n` more slots in one chunk.
  void reserve(size_t n) {
    size_t room = chunks_.empty() ? 0 : chunks_.back().capacity - chunks_.back().used;
    if (n > room + released_.size()) grow(n);
  }

 private:
  static constexpr size_t kFirstChunk = 16;
  static constexpr size_t kLargestChunk = 16384;
  struct Chunk {
    T* base;
    size_t capacity;
    size_t used;
  };
  void grow(size_t at_least) {
    size_t size =
        chunks_.empty() ? kFirstChunk : std::min(2 * chunks_.back().capacity, kLargestChunk);
    size = std::max(size, at_least);
    chunks_.push_back(Chunk{std::allocator<T>().allocate(size), size, 0});
  }

  std::vector<Chunk> chunks_;
  std::vector<T*> released_;
};

}  // namespace remat
