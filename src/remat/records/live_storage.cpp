#include "remat/records/live_storage.h"

#include <algorithm>

namespace remat::records {

LiveStorage::LiveStorage(size_t values, bool track_alive)
    : owner_(values, kNone),
      bytes_(values, 0),
      values_in_(values, 0),
      held_(values, false),
      dead_(values, false),
      track_alive_(track_alive) {}

void LiveStorage::set_bytes(size_t owner, int64_t bytes) {
  if (track_alive_ && bytes_[owner] > 0) alive_.erase({bytes_[owner], owner});
  live_ += bytes - bytes_[owner];
  bytes_[owner] = bytes;
  if (track_alive_ && bytes > 0) alive_.insert({bytes, owner});
}

void LiveStorage::hold(size_t value, int64_t bytes) {
  allocate(value, bytes);
  held_[value] = true;
}

void LiveStorage::allocate(size_t value, int64_t bytes) {
  owner_[value] = value;
  values_in_[value] = 1;
  set_bytes(value, std::max<int64_t>(0, bytes));
}

void LiveStorage::alias(size_t value, size_t base) {
  size_t owner = owner_[base];
  if (owner == kNone) {  // a view of a value never seen: it is its own (empty) storage
    allocate(value, 0);
    return;
  }
  owner_[value] = owner;
  ++values_in_[owner];
}

void LiveStorage::take_from(size_t value, size_t tuple, int64_t bytes) {
  size_t owner = owner_[tuple];
  if (owner != kNone && owner != tuple) {  // a getitem of a view's tuple (split): a view too
    alias(value, tuple);
    return;
  }
  if (owner != kNone) set_bytes(owner, bytes_[owner] - std::min(bytes, bytes_[owner]));
  allocate(value, bytes);
}

void LiveStorage::saved_view(size_t value, std::optional<size_t> base_here, bool base_held,
                             int64_t bytes) {
  if (base_here)
    alias(value, *base_here);
  else if (base_held)
    hold(value, 0);  // its base weighs from outside
  else
    allocate(value, bytes);
}

void LiveStorage::release(size_t value) {
  size_t owner = owner_[value];
  if (owner == kNone || dead_[value]) return;
  dead_[value] = true;
  if (held_[owner]) return;
  if (--values_in_[owner] == 0) set_bytes(owner, 0);
}

}  // namespace remat::records
