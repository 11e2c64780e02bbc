// A compile's end and what surrounds it: its metrics page (with its files and stack), the
// failures and restarts it reports, the links it logs, and the stack trie of where it started.
#include "remat/report/html.h"
#include "remat/report/pages/page_handlers.h"

namespace remat::report {
namespace {

bool is_metrics(std::string_view e) {
  return e == "compilation_metrics" || e == "bwd_compilation_metrics" ||
         e == "aot_autograd_backward_compilation_metrics";
}

std::string metrics_page(const RecordContext& r, const CompileDir& d, const Site& site) {
  std::string body = "<h1>" + html_escape(r.record.event) + " " + html_escape(d.key) + "</h1>\n";
  body += "<h2>Output files</h2>\n<ul>";
  for (const OutputFile& f : d.files) {
    body += "<li><a href=\"../" + html_escape(f.readable_url.value_or(f.url)) + "\">" +
            html_escape(f.name) + "</a> (" + std::to_string(f.number) + ")</li>";
  }
  body += "</ul>\n";
  if (!d.stack.empty()) {
    body += "<h2>Stack</h2>\n<ul>";
    for (const std::string& f : d.stack) body += "<li><code>" + html_escape(f) + "</code></li>";
    body += "</ul>\n";
  }
  body += "<h2>Metrics</h2>\n<table><tr><th>metric</th><th>value</th></tr>\n";
  if (r.meta.is_object()) {
    for (const auto& [key, value] : r.meta.items()) {
      std::string v = value.is_string()
                          ? value.get<std::string>()
                          : value.dump(-1, ' ', false, Json::error_handler_t::replace);
      bool numeric = value.is_number();
      body += "<tr><td><code>" + html_escape(key) + "</code></td><td" +
              (numeric ? " class=\"num\"" : "") + ">" + html_escape(v) + "</td></tr>\n";
    }
  }
  body += "</table>\n";
  return html_page(r.record.event + " " + d.key, body, site.footer());
}

/// compilation_metrics' restarts and failure, as rows of failures_and_restarts.html.
void note_failures(const RecordContext& r, const std::string& page, Site& site) {
  CompileDir& d = site.dirs[r.dir];
  d.has_metrics = true;
  std::string link = "<a href=\"" + html_escape(page) + "\">" + html_escape(d.key) + "</a>";
  if (r.meta.contains("restart_reasons") && r.meta["restart_reasons"].is_array()) {
    for (const Json& reason : r.meta["restart_reasons"]) {
      site.failures.emplace_back(
          link, "<td>RestartAnalysis</td><td>" +
                    html_escape(reason.is_string() ? reason.get<std::string>() : reason.dump()) +
                    "</td><td></td>");
    }
  }
  std::string fail_type = r.meta_string("fail_type");
  if (fail_type.empty()) return;
  std::string source = r.meta_string("fail_user_frame_filename");
  int64_t line = r.meta.contains("fail_user_frame_lineno") &&
                         r.meta["fail_user_frame_lineno"].is_number_integer()
                     ? r.meta["fail_user_frame_lineno"].get<int64_t>()
                     : 0;
  d.failure = fail_type;
  site.failures.emplace_back(
      link, "<td>" + html_escape(fail_type) + "</td><td>" +
                html_escape(r.meta_string("fail_reason")) + "</td><td>" +
                html_escape(source.empty() ? "N/A" : source + ":" + std::to_string(line)) +
                "</td>");
}

bool handles_metrics(const RecordContext& r, const Site&) {
  return is_metrics(r.record.event);
}

Status handle_metrics(RecordContext& r, Site& site) {
  std::string page = site.numbered(r.folder, r.record.event, ".html");
  bool compile_ends = r.record.event == "compilation_metrics";
  if (compile_ends && r.meta.is_object()) note_failures(r, page, site);
  site.add_file(r.dir, page, metrics_page(r, site.dirs[r.dir], site));
  if (compile_ends) finish_compile(site, r.dir);
  return {};
}

bool handles_link(const RecordContext& r, const Site&) {
  return r.record.event == "link";
}

Status handle_link(RecordContext& r, Site& site) {
  OutputFile f;
  f.url = r.meta_string("url");
  f.name = r.meta_string("name");
  f.number = site.counter++;
  f.detail = "link";
  if (!is_safe_link(f.url)) {
    f.detail = "link not followed (only http, https and relative links): " + f.url.substr(0, 200);
    f.url = "#";
  }
  site.dirs[r.dir].files.push_back(std::move(f));
  return {};
}

bool handles_dynamo_start(const RecordContext& r, const Site&) {
  return r.record.event == "dynamo_start";
}

Status handle_dynamo_start(RecordContext& r, Site& site) {
  if (!r.meta.is_object() || !r.meta.contains("stack")) return {};
  std::vector<std::string> frames = site.frames_of(r.meta["stack"].dump(), r.reader);
  TrieNode* at = &site.trie;
  for (const std::string& f : frames) at = at->child(f);
  at->compiles.push_back(r.dir);
  site.dirs[r.dir].stack = std::move(frames);
  return {};
}

}  // namespace

const PageHandler kMetrics = {"compilation metrics", handles_metrics, handle_metrics};
const PageHandler kLinks = {"links", handles_link, handle_link};
const PageHandler kDynamoStart = {"dynamo start", handles_dynamo_start, handle_dynamo_start};

}  // namespace remat::report
