// CowPtr<T>: a shared, copy-on-write pointer, for rarely present cold data that copies often.
#pragma once

#include <memory>

namespace remat {

/// Copies share the pointee (a reference count); the first write through a shared copy copies
/// it. Null is the common, cheap case. Like any value, one copy is not written from two threads.
template <class T>
class CowPtr {
 public:
  const T* operator->() const { return p_.get(); }
  const T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  /// The pointee for writing: created on first use, copied first if another copy shares it.
  T& mutate() {
    if (!p_) {
      p_ = std::make_shared<T>();
    } else if (p_.use_count() > 1) {
      p_ = std::make_shared<T>(*p_);
    }
    return *p_;
  }

 private:
  std::shared_ptr<T> p_;
};

}  // namespace remat
