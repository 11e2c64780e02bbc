// Read printed torch.fx code and print it back in the style it was read in: the check that remat
// reads a release's text completely (every era, every graph a log holds).
#pragma once

#include <string>
#include <string_view>

namespace remat {

/// "" when `text` parses and prints back byte for byte; otherwise what went wrong: the parser's
/// errors (file:line:col), or the first line that printed differently.
std::string round_trip_problem(std::string_view text, std::string_view file);

}  // namespace remat
