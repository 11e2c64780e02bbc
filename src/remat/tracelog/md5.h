// MD5 of log payloads (`has_payload`), through OpenSSL's EVP interface.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace remat::tracelog {

/// Incremental MD5: update() any number of times, then hex() once.
class Md5 {
 public:
  Md5();
  ~Md5();
  Md5(const Md5&) = delete;
  Md5& operator=(const Md5&) = delete;
  void update(std::string_view bytes);
  /// Lowercase hex digest; the object is reset for reuse.
  std::string hex();

 private:
  struct Context;
  std::unique_ptr<Context> ctx_;
};

/// Lowercase hex MD5 of `bytes`.
std::string md5_hex(std::string_view bytes);

}  // namespace remat::tracelog
