// LiveStorage: the bytes a schedule keeps alive, counted as storage, without a graph. partition/
// feeds it the IR's nodes (a value dies after its last use) and report/ the statements of the
// graph text PyTorch logged (a value dies on its `x = None` line), so that the two memory
// timelines of one partition are the same curve.
//
// The rules: an input its owner holds for the whole step (a parameter, the batch) is never
// freed; a view or detach adds no bytes and keeps its base's storage alive while it lives; a
// getitem takes its element's bytes over from the tuple (a tuple of unknown size gives none,
// and the getitem holds its own); a storage is freed when the last value in it dies.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace remat::records {

class LiveStorage {
 public:
  /// Values are numbered 0..values-1 by the caller. With `track_alive`, alive() lists the
  /// storages alive by size.
  explicit LiveStorage(size_t values, bool track_alive = false);

  /// Bytes held from outside the graph walked (inputs of the step it does not read).
  void add_outside(int64_t bytes) { live_ += bytes; }
  /// An input its owner holds for the whole step: release() never frees it.
  void hold(size_t value, int64_t bytes);
  /// A value with storage of its own: an input of this graph, or a statement's result.
  void allocate(size_t value, int64_t bytes);
  /// A view (or detach) of `base`: no bytes of its own.
  void alias(size_t value, size_t base);
  /// A getitem of `tuple` whose element weighs `bytes`.
  void take_from(size_t value, size_t tuple, int64_t bytes);
  /// An input of the backward that the forward saved as a view of another value, `base`: a view
  /// of it when this graph takes `base` as an input too (`base_here`, placed already), nothing
  /// when `base` is a step input held from outside (`base_held`), else storage of its own.
  void saved_view(size_t value, std::optional<size_t> base_here, bool base_held, int64_t bytes);
  /// `value` is dead; its storage is freed with the last value in it. A second call does nothing.
  void release(size_t value);

  [[nodiscard]] int64_t live() const { return live_; }
  /// The value whose storage `value` lives in (itself, unless a view); `value` when unseen.
  [[nodiscard]] size_t owner(size_t value) const {
    return owner_[value] == kNone ? value : owner_[value];
  }
  /// (bytes, the value that owns the storage), the smallest first; with track_alive only.
  [[nodiscard]] const std::set<std::pair<int64_t, size_t>>& alive() const { return alive_; }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  void set_bytes(size_t owner, int64_t bytes);

  std::vector<size_t> owner_;      // the value whose storage a value lives in; kNone: not yet
  std::vector<int64_t> bytes_;     // of an owner: what its storage holds now
  std::vector<size_t> values_in_;  // of an owner: values alive in its storage
  std::vector<bool> held_, dead_;
  bool track_alive_;
  std::set<std::pair<int64_t, size_t>> alive_;
  int64_t live_ = 0;
};

}  // namespace remat::records
