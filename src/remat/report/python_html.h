// Python source as highlighted HTML (the report's graph and code pages): keywords, strings,
// numbers, comments, `torch.ops` targets.
#pragma once

#include <string>
#include <string_view>

namespace remat::report {

/// One line of Python (no newline) as HTML spans. A string left open at the end of the line
/// stays a string to its end.
std::string highlight_python_line(std::string_view line);
/// The same, appended to `out`.
void append_python_line(std::string& out, std::string_view line);

/// A whole file as `<pre class="code">` with numbered, anchored lines (`id="L<n>"`).
std::string highlight_python(std::string_view source);

}  // namespace remat::report
