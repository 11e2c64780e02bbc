// Where malformed JSON goes wrong, as line and column, for diagnostics.
#pragma once

#include <string_view>

#include "remat/support/diagnostic.h"

namespace remat::json {

/// A diagnostic for text that failed to parse as JSON: file:line:col, the message of the first
/// syntax error, and the offending line. (simdjson reports no position, so the text is re-read
/// by nlohmann's parser, which does; this runs only on failure.)
Diagnostic locate_syntax_error(std::string_view text, const std::string& file,
                               std::string_view fallback_message);

/// 1-based line and column of byte `offset` in `text`, and that line's text.
void line_col(std::string_view text, size_t offset, int& line, int& col, std::string& source);

}  // namespace remat::json
