// HTML building blocks of the report: escaping, the page frame, the shared style sheet.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace remat::report {

/// Text for element content and attribute values.
std::string html_escape(std::string_view text);

/// Whether a URL from a log may be a link's href: http(s) or relative (no scheme), never
/// `javascript:`, `data:` or any other scheme a browser would act on.
bool is_safe_link(std::string_view url);
/// The same, appended to `out` (the page builders' hot path: no temporary per piece).
void append_html_escaped(std::string& out, std::string_view text);
/// Element content only (a `<pre>`'s text, not an attribute): `&`, `<` and `>` escaped, quotes
/// kept, so that a graph's text (full of quoted annotations) stays its own size.
void append_html_text(std::string& out, std::string_view text);
/// `<script type="application/json" id="ID">` with the JSON text `json` for a page's script,
/// every `<` escaped (so no text from a log can close the element).
void append_script_json(std::string& out, std::string_view id, std::string_view json);
/// A complete page: title, the shared CSS, `body`, and the footer naming the tool and command.
std::string html_page(std::string_view title, std::string_view body, std::string_view footer);
/// The same page in pieces, for a body built in place: everything before the body ...
void append_page_head(std::string& out, std::string_view title);
/// ... and everything after it.
void append_page_tail(std::string& out, std::string_view footer);
/// "1.2 KB", "3.4 MB": sizes for listings.
std::string human_bytes(uint64_t bytes);
/// "1,284,928": a count with thousands separators.
std::string human_count(uint64_t n);
/// "640 FLOPs", "1.28 MFLOPs", "3.10 GFLOPs".
std::string human_flops(uint64_t flops);

/// A checkpoint region's colors (`ac_graph_id`), the same on every page: evenly spread hues.
std::string region_fill(int64_t id);
std::string region_stroke(int64_t id);

}  // namespace remat::report
