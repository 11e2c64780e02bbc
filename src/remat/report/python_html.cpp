#include "remat/report/python_html.h"

#include <array>
#include <cctype>

#include "remat/report/html.h"

namespace remat::report {
namespace {

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
    "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
    "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield"};

bool is_keyword(std::string_view w) {
  for (std::string_view k : kKeywords) {
    if (k == w) return true;
  }
  return false;
}
bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

void span(std::string& out, const char* cls, std::string_view text) {
  out += "<span class=\"";
  out += cls;
  out += "\">";
  out += html_escape(text);
  out += "</span>";
}

}  // namespace

std::string highlight_python_line(std::string_view line) {
  std::string out;
  size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == '#') {
      span(out, "c", line.substr(i));
      break;
    }
    if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < line.size() && line[j] != c) j += line[j] == '\\' ? 2 : 1;
      j = std::min(j + 1, line.size());
      span(out, "s", line.substr(i, j - i));
      i = j;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t j = i;
      while (j < line.size() && (ident_char(line[j]) || line[j] == '.')) ++j;
      span(out, "n", line.substr(i, j - i));
      i = j;
      continue;
    }
    if (ident_start(c)) {
      size_t j = i;
      while (j < line.size() && ident_char(line[j])) ++j;
      std::string_view word = line.substr(i, j - i);
      if (word == "torch" && line.substr(j).starts_with(".ops.")) {
        // torch.ops.aten.mm.default: the op target as one token.
        while (j < line.size() && (ident_char(line[j]) || line[j] == '.')) ++j;
        span(out, "op", line.substr(i, j - i));
      } else if (is_keyword(word)) {
        span(out, "k", word);
      } else if (word == "self" || word == "torch" || word == "operator") {
        span(out, "b", word);
      } else {
        out += html_escape(word);
      }
      i = j;
      continue;
    }
    out += html_escape(std::string_view(&line[i], 1));
    ++i;
  }
  return out;
}

std::string highlight_python(std::string_view source) {
  std::string out = "<pre class=\"code\">";
  size_t start = 0, n = 0;
  while (start <= source.size()) {
    size_t nl = source.find('\n', start);
    std::string_view line = source.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (nl == std::string_view::npos && line.empty() && n > 0) break;
    ++n;
    out += "<span class=\"line\" id=\"L" + std::to_string(n) + "\"><span class=\"ln\">" + std::to_string(n) + "</span>";
    out += highlight_python_line(line);
    out += "</span>";
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  return out + "</pre>";
}

}  // namespace remat::report
