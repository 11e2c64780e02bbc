#include "remat/tracelog/md5.h"

#include <openssl/evp.h>

#include "remat/support/assert.h"

namespace remat::tracelog {

struct Md5::Context {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(ctx); }
};

Md5::Md5() : ctx_(std::make_unique<Context>()) {
  REMAT_ASSERT(ctx_->ctx && EVP_DigestInit_ex(ctx_->ctx, EVP_md5(), nullptr) == 1)
      << "OpenSSL MD5 unavailable";
}
Md5::~Md5() = default;

void Md5::update(std::string_view bytes) {
  EVP_DigestUpdate(ctx_->ctx, bytes.data(), bytes.size());
}

std::string Md5::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_DigestFinal_ex(ctx_->ctx, digest, &size);
  EVP_DigestInit_ex(ctx_->ctx, EVP_md5(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

std::string md5_hex(std::string_view bytes) {
  Md5 md5;
  md5.update(bytes);
  return md5.hex();
}

}  // namespace remat::tracelog
