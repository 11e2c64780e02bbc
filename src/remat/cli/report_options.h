// What `remat report` and `remat compile` share: report options for a log, the command line
// for the report's footer, the summary printed after a report.
#pragma once

#include <string>

#include "remat/report/report_builder.h"

namespace remat::cli {

/// Remembers the process's arguments (main calls it) for the footer of reports.
void set_command_line(int argc, char** argv);
/// `remat report trace -o out`, as typed (arguments quoted where they need it).
std::string app_command_line();

/// The version, command line, the log file's year (glog headers have none) and progress lines
/// on stderr for logs over 64 MB.
report::ReportOptions report_options_for(const std::string& log, std::string command_line);

/// `report: OUT/index.html (N compile ids, M artifacts)` and tlparse's Stats line, on stderr
/// when something was odd.
/// With `verbose`, tlparse's Stats line and every bad line, even when nothing failed.
void print_report_summary(const report::ReportResult& result, const std::string& log,
                          const std::string& out, bool verbose = false);

}  // namespace remat::cli
