#include "remat/print/round_trip.h"

#include <fmt/format.h>

#include "remat/fxtext/text_scan.h"
#include "remat/print/printer.h"
#include "remat/print/readable_parser.h"

namespace remat {

std::string round_trip_problem(std::string_view text, std::string_view file) {
  Expected<GraphModule> m = parse_readable(text, std::string(file));
  if (!m) return format_all(m.errors());
  std::string printed = print_readable(*m, PrintOptions::as_read(*m)).text;
  if (printed == text) return "";
  std::vector<std::string_view> want = fxtext::split_lines(text),
                                got = fxtext::split_lines(printed);
  size_t i = 0;
  while (i < want.size() && i < got.size() && want[i] == got[i]) ++i;
  if (i == want.size() && i == got.size())
    return fmt::format("{}: prints back with different line endings", file);
  auto line = [](const std::vector<std::string_view>& lines, size_t k) {
    return k < lines.size() ? fmt::format("'{}'", lines[k]) : std::string("(end of text)");
  };
  return fmt::format("{}:{}: prints back differently: read {}, printed {}", file, i + 1,
                     line(want, i), line(got, i));
}

}  // namespace remat
