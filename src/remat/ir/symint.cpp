#include "remat/ir/symint.h"

#include "remat/support/append_int.h"
#include "remat/support/assert.h"

namespace remat {

SymInt::SymInt(int64_t value) {
  REMAT_ASSERT(fits(value)) << "dimension " << value << " out of SymInt range";
  bits_ = static_cast<uint64_t>(value) << 1;
}

SymInt SymInt::symbolic(std::string_view expression) {
  InternedString interned(expression);
  SymInt s;
  s.bits_ = reinterpret_cast<uintptr_t>(&interned.str()) | 1U;
  return s;
}

int64_t SymInt::value() const {
  REMAT_ASSERT(!is_symbolic()) << "value() of symbolic dimension " << expression();
  return static_cast<int64_t>(bits_) >> 1;  // arithmetic shift keeps the sign
}

std::string_view SymInt::expression() const {
  if (!is_symbolic()) return {};
  return *reinterpret_cast<const std::string*>(bits_ & ~uint64_t{1});
}

std::string SymInt::to_string() const {
  return is_symbolic() ? std::string(expression()) : std::to_string(value());
}

void SymInt::append_to(std::string& out) const {
  if (is_symbolic())
    out += expression();
  else
    append_int(out, value());
}

std::string join_dims(std::span<const SymInt> dims) {
  std::string out;
  append_dims(out, dims);
  return out;
}

void append_dims(std::string& out, std::span<const SymInt> dims) {
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    dims[i].append_to(out);
  }
}

}  // namespace remat
