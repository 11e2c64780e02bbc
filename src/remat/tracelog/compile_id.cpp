#include "remat/tracelog/compile_id.h"

namespace remat::tracelog {
namespace {
std::string part(const std::optional<int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}
}  // namespace

std::string CompileId::display() const {
  std::string out = "[";
  if (compiled_autograd_id) out += "!" + std::to_string(*compiled_autograd_id) + "/";
  out += part(frame_id) + "/" + part(frame_compile_id);
  if (attempt && *attempt != 0) out += "_" + std::to_string(*attempt);
  return out + "]";
}

std::string CompileId::directory_name() const {
  return part(compiled_autograd_id) + "_" + part(frame_id) + "_" + part(frame_compile_id) + "_" +
         part(attempt);
}

CompileId CompileId::normalized() const {
  CompileId c = *this;
  if (c.frame_compile_id && !c.attempt) c.attempt = 0;
  return c;
}

}  // namespace remat::tracelog
