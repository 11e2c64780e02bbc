#include "remat/report/python_html.h"

#include <algorithm>

#include "remat/fxtext/python_lexer.h"
#include "remat/fxtext/text_scan.h"
#include "remat/report/html.h"

namespace remat::report {
namespace {

using fxtext::is_digit;
using fxtext::is_python_keyword;
constexpr auto ident_start = fxtext::is_identifier_start;
constexpr auto ident_char = fxtext::is_identifier_char;

void span(std::string& out, const char* cls, std::string_view text) {
  out += "<span class=\"";
  out += cls;
  out += "\">";
  append_html_escaped(out, text);
  out += "</span>";
}

}  // namespace

void append_python_line(std::string& out, std::string_view line) {
  size_t i = 0, plain = 0;  // line[plain, i) is text without a span, not yet written
  auto flush = [&] { append_html_escaped(out, line.substr(plain, i - plain)); };
  while (i < line.size()) {
    char c = line[i];
    if (c == '#') {
      flush();
      span(out, "c", line.substr(i));
      return;
    }
    if (c == '"' || c == '\'') {
      flush();
      size_t j = i + 1;
      while (j < line.size() && line[j] != c) j += line[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, line.size());
      span(out, "s", line.substr(i, j - i));
      i = plain = j;
      continue;
    }
    if (is_digit(c)) {
      flush();
      size_t j = i;
      while (j < line.size() && (ident_char(line[j]) || line[j] == '.')) ++j;
      span(out, "n", line.substr(i, j - i));
      i = plain = j;
      continue;
    }
    if (ident_start(c)) {
      size_t j = i;
      while (j < line.size() && ident_char(line[j])) ++j;
      std::string_view word = line.substr(i, j - i);
      if (word == "torch" && line.substr(j).starts_with(".ops.")) {
        // torch.ops.aten.mm.default: the op target as one token.
        flush();
        while (j < line.size() && (ident_char(line[j]) || line[j] == '.')) ++j;
        span(out, "op", line.substr(i, j - i));
        plain = j;
      } else if (is_python_keyword(word)) {
        flush();
        span(out, "k", word);
        plain = j;
      } else if (word == "self" || word == "torch" || word == "operator") {
        flush();
        span(out, "b", word);
        plain = j;
      }
      i = j;  // a plain word stays in the pending run
      continue;
    }
    ++i;
  }
  flush();
}

std::string highlight_python_line(std::string_view line) {
  std::string out;
  append_python_line(out, line);
  return out;
}

std::string highlight_python(std::string_view source) {
  std::string out = "<pre class=\"code\">";
  size_t start = 0, n = 0;
  while (start <= source.size()) {
    size_t nl = source.find('\n', start);
    std::string_view line =
        source.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (nl == std::string_view::npos && line.empty() && n > 0) break;
    ++n;
    out += "<span class=\"line\" id=\"L" + std::to_string(n) + "\"><span class=\"ln\">" +
           std::to_string(n) + "</span>";
    append_python_line(out, line);
    out += "</span>";
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out + "</pre>";
}

}  // namespace remat::report
