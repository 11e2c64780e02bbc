// JSON from a log (payloads, metadata, stacks), parsed only when it nests at most kMaxJsonDepth
// levels: nlohmann's printer recurses once per level and a page indents every level, so a
// 131 KB payload nested 65,000 deep would overflow the stack, and one 20,000 deep would print
// 764 MB (docs/security.md). Deeper text, and very long text, is shown as the log holds it.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string_view>

namespace remat::report {

/// Far deeper than any JSON PyTorch logs (a few levels) and shallow enough for any stack.
inline constexpr size_t kMaxJsonDepth = 256;
/// A parsed document takes about ten times its text (nlohmann's values): a larger payload is
/// shown as the log holds it, so a report's memory stays near the size of its largest record.
inline constexpr size_t kMaxJsonBytes = size_t{32} << 20;

/// The deepest nesting of arrays and objects in `text` (strings skipped), stopping early once
/// past `limit`.
size_t json_depth(std::string_view text, size_t limit = kMaxJsonDepth);

/// `text` as JSON; a discarded value when it is no JSON, nests deeper than kMaxJsonDepth or is
/// longer than kMaxJsonBytes.
nlohmann::ordered_json parse_log_json(std::string_view text);

}  // namespace remat::report
