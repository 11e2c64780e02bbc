#include "remat/cli/report_options.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cstdio>
#include <ctime>
#include <vector>

namespace remat::cli {
namespace {
std::vector<std::string>& arguments() {
  static std::vector<std::string> args;
  return args;
}
}  // namespace

void set_command_line(int argc, char** argv) {
  arguments().assign(argv, argv + argc);
  if (!arguments().empty()) arguments()[0] = "remat";
}

std::string app_command_line() {
  std::string out;
  for (const std::string& a : arguments()) {
    bool plain = !a.empty() && a.find_first_of(" \t\"'$\\") == std::string::npos;
    out += (out.empty() ? "" : " ") + (plain ? a : "'" + a + "'");
  }
  return out;
}

report::ReportOptions report_options_for(const std::string& log, std::string command_line) {
  report::ReportOptions o;
  o.version = REMAT_VERSION;
  o.command_line = std::move(command_line);
  struct stat st {};
  std::time_t when = ::stat(log.c_str(), &st) == 0 ? st.st_mtime : 0;
  std::tm tm{};
  localtime_r(&when, &tm);
  o.year = tm.tm_year + 1900;
  o.progress = [](uint64_t read, uint64_t total) {
    std::fprintf(stderr, "report: read %.0f of %.0f MB\n", static_cast<double>(read) / (1 << 20),
                 static_cast<double>(total) / (1 << 20));
  };
  return o;
}

void print_report_summary(const report::ReportResult& result, const std::string& log,
                          const std::string& out, bool verbose) {
  const tracelog::TraceStats& s = result.stats;
  if (verbose) std::fprintf(stderr, "%s: %s\n", log.c_str(), s.summary().c_str());
  if (verbose || s.failures() || result.fail_parser || result.fail_key_conflict) {
    std::fprintf(stderr, "%s: %s\n", log.c_str(), s.describe().c_str());
    for (const std::string& p : result.problems)
      std::fprintf(stderr, "%s:%s\n", log.c_str(), p.c_str());
  }
  if (!result.unknown_fields.empty()) {
    std::string fields;
    for (const std::string& f : result.unknown_fields) fields += (fields.empty() ? "" : ", ") + f;
    std::fprintf(stderr, "%s: unknown fields: %s (shown in raw.jsonl only)\n", log.c_str(),
                 fields.c_str());
  }
  if (result.compile_ids == 0)
    std::fprintf(stderr, "%s: no compile events (%s)\n", log.c_str(), s.describe().c_str());
  fmt::print("report: {}/index.html ({} artifacts, {} records, {} bad lines)\n", out,
             result.artifacts, s.ok, s.failures());
}

}  // namespace remat::cli
