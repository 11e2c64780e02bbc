#include "remat/support/json_error_location.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace remat::json {
namespace {

/// Stops at the first syntax error and remembers where it was.
struct ErrorFinder : nlohmann::json_sax<nlohmann::json> {
  size_t position = 0;
  std::string message;
  bool failed = false;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t pos, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    failed = true;
    position = pos;
    message = ex.what();
    return false;
  }
};

/// nlohmann's message reads `[json.exception.parse_error.101] parse error at line 1, column 5:
/// syntax error while parsing value - invalid literal; last read: 'tru'`: keep the part after
/// the location.
std::string tidy(const std::string& what) {
  size_t colon = what.find(": ");
  std::string m = colon == std::string::npos ? what : what.substr(colon + 2);
  return m;
}

}  // namespace

void line_col(std::string_view text, size_t offset, int& line, int& col, std::string& source) {
  offset = std::min(offset, text.size());
  line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
  size_t start = 0;
  if (offset > 0) {
    size_t newline = text.rfind('\n', offset - 1);
    if (newline != std::string_view::npos) start = newline + 1;
  }
  size_t end = text.find('\n', start);
  if (end == std::string_view::npos) end = text.size();
  col = static_cast<int>(offset - start) + 1;
  source = std::string(text.substr(start, std::min<size_t>(end - start, 200)));
}

Diagnostic locate_syntax_error(std::string_view text, const std::string& file,
                               std::string_view fallback_message) {
  Diagnostic d;
  d.file = file;
  ErrorFinder finder;
  nlohmann::json::sax_parse(text.begin(), text.end(), &finder);
  if (!finder.failed) {
    d.message = "invalid JSON: " + std::string(fallback_message);
    return d;
  }
  // nlohmann reports the position one past the last character it read.
  size_t offset = finder.position > 0 ? finder.position - 1 : 0;
  line_col(text, offset, d.line, d.col, d.source_line);
  d.message = "invalid JSON: " + tidy(finder.message);
  return d;
}

}  // namespace remat::json
