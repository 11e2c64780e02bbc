#include "remat/report/report_builder.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "remat/report/site.h"
#include "remat/support/file_io.h"
#include "remat/support/output_folder.h"

namespace remat::report {

namespace fs = std::filesystem;

void GraphExecutions::add(std::string_view graph) {
  for (char c : graph) digest = (digest ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  digest =
      (digest ^ 0xffu) * 1099511628211ull;  // a separator no name holds: "ab","c" is not "a","bc"
  if (first.size() < kKept) first.emplace_back(graph);
  ++count;
}

Expected<std::string> resolve_log(const std::string& path, bool latest) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    if (!fs::exists(path, ec)) return file_error(path, "no such file or folder");
    return path;
  }
  std::vector<fs::path> logs;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".log") logs.push_back(entry.path());
  }
  if (logs.empty()) return file_error(path, "no .log file in this folder");
  std::sort(logs.begin(), logs.end());
  if (logs.size() == 1) return logs[0].string();
  if (!latest) {
    return file_error(path, std::to_string(logs.size()) +
                                " logs in this folder; name one, or pass --latest for the newest");
  }
  auto newest =
      std::max_element(logs.begin(), logs.end(), [](const fs::path& a, const fs::path& b) {
        std::error_code e;
        return fs::last_write_time(a, e) < fs::last_write_time(b, e);
      });
  return newest->string();
}

Status write_whole_folder(const std::string& out_dir, bool overwrite, const std::string& input,
                          const std::function<Status(const std::string&)>& fill) {
  Expected<OutputFolder> out = OutputFolder::start(out_dir, overwrite, {input});
  REMAT_TRY(out);
  if (Status s = fill(out->staging()); !s.ok()) return out->rename_in(s.errors());
  return out->commit();
}

Status check_strictness(const std::string& log_path, const ReportResult& r, bool strict,
                        bool strict_compile_id) {
  if (strict && r.stats.failures() + r.fail_parser + r.fail_dynamo_guards_json > 0) {
    Diagnostics errors;
    for (const std::string& p : r.problems) {
      size_t colon = std::min(p.find(": "), p.size());
      Diagnostic d;
      d.file = log_path;
      std::from_chars(p.data(), p.data() + colon, d.line);  // 0 when it is no number
      d.message = p.substr(std::min(colon + 2, p.size()));
      errors.push_back(std::move(d));
    }
    errors.push_back(error_message(
        log_path + ": --strict: " + r.stats.describe() +
        (r.fail_parser ? ", " + std::to_string(r.fail_parser) + " payloads no page could render"
                       : "") +
        (r.fail_dynamo_guards_json ? ", " + std::to_string(r.fail_dynamo_guards_json) +
                                         " dynamo_guards payloads that are not JSON"
                                   : "")));
    return errors;
  }
  if (strict_compile_id && r.without_compile_id > 0) {
    return error_message(log_path +
                         ": --strict-compile-id: " + std::to_string(r.without_compile_id) +
                         " records were logged outside any compile (no compile id)");
  }
  return {};
}

Expected<ReportResult> write_report_folder(const std::string& log_path, const std::string& out_dir,
                                           const ReportOptions& options, bool overwrite,
                                           bool strict) {
  std::optional<ReportResult> result;
  Status s =
      write_whole_folder(out_dir, overwrite, log_path, [&](const std::string& temp) -> Status {
        auto r = write_report(log_path, temp, options);
        REMAT_TRY(r);
        if (Status c = check_strictness(log_path, *r, strict, options.strict_compile_id); !c.ok())
          return c;
        result = std::move(*r);
        return {};
      });
  if (!s.ok()) return s.errors();
  return std::move(*result);
}

Expected<ReportResult> write_report(const std::string& log_path, const std::string& out_dir,
                                    const ReportOptions& options) {
  auto reader = tracelog::TraceReader::open(log_path);
  REMAT_TRY(reader);
  ReportResult result;
  Site site(out_dir, options, log_path, result);
  REMAT_TRY(site.open());
  tracelog::TraceRecord r;
  uint64_t next_progress = 64 << 20;
  while ((*reader)->next(r)) {
    REMAT_TRY(site.handle(r, **reader));
    if (options.progress && (*reader)->bytes_read() >= next_progress) {
      options.progress((*reader)->bytes_read(), (*reader)->file_size());
      next_progress += 64 << 20;
    }
  }
  REMAT_TRY(site.finish(**reader));
  result.stats = (*reader)->stats();
  result.unknown_fields = (*reader)->unknown_fields();
  result.problems = (*reader)->problems();
  std::sort(result.files.begin(), result.files.end());
  return result;
}

}  // namespace remat::report
