// Code: Inductor's output code (highlighted, or as text with tlparse's `-p`) and dumped files.
#include <algorithm>
#include <filesystem>

#include "remat/report/html.h"
#include "remat/report/pages/page_handlers.h"
#include "remat/report/python_html.h"

namespace remat::report {
namespace {

namespace fs = std::filesystem;

bool handles_output_code(const RecordContext& r, const Site&) {
  return r.record.event == "inductor_output_code";
}

Status handle_output_code(RecordContext& r, Site& site) {
  const std::string& payload = r.record.payload;
  std::string filename = r.meta_string("filename");
  std::string stem = fs::path(filename).stem().string();
  std::string name = stem.empty() ? "inductor_output_code" : "inductor_output_code_" + stem;
  if (site.options.plain_text) {
    std::string rel = site.numbered(r.folder, name, ".txt");
    r.payload_file = rel;
    site.add_file(r.dir, rel, payload);
    return {};
  }
  std::string rel = site.numbered(r.folder, name, ".html");
  std::string body = "<h1>" + html_escape(filename.empty() ? "inductor output code" : filename) +
                     "</h1>\n" + highlight_python(payload);
  // An HTML page is not the payload: that goes to payloads/<md5>.txt, as tlparse does.
  site.add_file(r.dir, rel, html_page("inductor_output_code", body, site.footer()),
                std::to_string(std::count(payload.begin(), payload.end(), '\n') + 1) + " lines, " +
                    human_bytes(payload.size()));
  return {};
}

bool handles_dump_file(const RecordContext& r, const Site&) {
  return r.record.event == "dump_file";
}

Status handle_dump_file(RecordContext& r, Site& site) {
  std::string name = r.meta_string("name");
  std::string stem = fs::path(name).stem().string();
  if (stem.empty()) stem = "dump";
  site.add_file(
      r.dir, "dump_file/" + stem + ".html",
      html_page(name, "<h1>" + html_escape(name) + "</h1>\n" + highlight_python(r.record.payload),
                site.footer()));
  return {};
}

}  // namespace

const PageHandler kOutputCode = {"inductor output code", handles_output_code, handle_output_code};
const PageHandler kDumpFiles = {"dumped files", handles_dump_file, handle_dump_file};

}  // namespace remat::report
