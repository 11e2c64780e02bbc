// Compile ids (docs/spec/trace-log.md §A.6): [frame/frame_compile], attempts, compiled autograd.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace remat::tracelog {

struct CompileId {
  std::optional<int64_t> compiled_autograd_id;
  std::optional<int64_t> frame_id;
  std::optional<int64_t> frame_compile_id;
  std::optional<int64_t> attempt;

  /// `[0/0]`, `[0/1_1]` (attempt 1), `[!0/1/0]` (compiled autograd 0), `-` for missing parts.
  [[nodiscard]] std::string display() const;
  /// `-_0_0_0`: `<ca>_<frame>_<frame_compile>_<attempt>`, `-` for missing parts.
  [[nodiscard]] std::string directory_name() const;
  /// A frame compile id without an attempt counts as attempt 0 (old logs).
  [[nodiscard]] CompileId normalized() const;

  friend bool operator==(const CompileId&, const CompileId&) = default;
};

}  // namespace remat::tracelog
