#include "remat/trace/source_frames.h"

#include <fstream>
#include <map>
#include <mutex>
#include <vector>

namespace remat {
namespace {

// Source files read so far, one entry per line; empty when unreadable.
const std::string* source_line(const char* file, unsigned line) {
  static std::mutex mu;
  static std::map<std::string, std::vector<std::string>, std::less<>> files;
  std::lock_guard lock(mu);
  auto it = files.find(std::string_view(file));
  if (it == files.end()) {
    std::vector<std::string> lines;
    std::ifstream in(file);
    for (std::string l; std::getline(in, l);) lines.push_back(std::move(l));
    it = files.emplace(file, std::move(lines)).first;
  }
  if (line == 0 || line > it->second.size()) return nullptr;
  return &it->second[line - 1];
}

std::string_view strip(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::string short_function_name(std::string_view pretty) {
  if (pretty.find("<lambda") != std::string_view::npos) return "<lambda>";
  // Cut at the parameter list: the first '(' outside template brackets.
  int depth = 0;
  size_t end = pretty.size();
  for (size_t i = 0; i < pretty.size(); ++i) {
    char c = pretty[i];
    if (c == '<')
      ++depth;
    else if (c == '>')
      --depth;
    else if (c == '(' && depth == 0 && !pretty.substr(0, i).ends_with("operator")) {
      end = i;
      break;
    }
  }
  std::string_view head = pretty.substr(0, end);
  // The last qualified component, after the return type.
  depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < head.size(); ++i) {
    char c = head[i];
    if (c == '<')
      ++depth;
    else if (c == '>')
      --depth;
    else if (depth == 0 && c == ' ' && !head.substr(0, i).ends_with("operator"))
      start = i + 1;
    else if (depth == 0 && c == ':' && i + 1 < head.size() && head[i + 1] == ':')
      start = i + 2;
  }
  std::string name(head.substr(start));
  return name.empty() ? std::string(pretty) : name;
}

std::string traceback_frame(const std::source_location& loc) {
  std::string out = "  File \"";
  out += loc.file_name();
  out += "\", line ";
  out += std::to_string(loc.line());
  out += ", in ";
  out += short_function_name(loc.function_name());
  out += "\n    ";
  const std::string* code = source_line(loc.file_name(), loc.line());
  std::string_view text = code ? strip(*code) : std::string_view();
  out += text.empty() ? std::string_view("<source not available>") : text;
  out += '\n';
  return out;
}

}  // namespace remat
