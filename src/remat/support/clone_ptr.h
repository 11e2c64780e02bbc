// ClonePtr<T>: an owning pointer that deep-copies, for rarely present cold data.
#pragma once

#include <memory>
#include <utility>

namespace remat {

/// Like std::unique_ptr, but copying copies the pointee. Null is the common, cheap case.
template <class T>
class ClonePtr {
 public:
  ClonePtr() = default;
  explicit ClonePtr(std::unique_ptr<T> p) : p_(std::move(p)) {}
  ClonePtr(const ClonePtr& other) : p_(other.p_ ? std::make_unique<T>(*other.p_) : nullptr) {}
  ClonePtr(ClonePtr&&) noexcept = default;
  ClonePtr& operator=(const ClonePtr& other) {
    if (this != &other) p_ = other.p_ ? std::make_unique<T>(*other.p_) : nullptr;
    return *this;
  }
  ClonePtr& operator=(ClonePtr&&) noexcept = default;

  T* get() const { return p_.get(); }
  T* operator->() const { return p_.get(); }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  /// The pointee, created on first use.
  T& ensure() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace remat
