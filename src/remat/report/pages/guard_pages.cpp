// Dynamo's guards: the code of each, one list per compile.
#include "remat/report/html.h"
#include "remat/report/log_json.h"
#include "remat/report/pages/page_handlers.h"

namespace remat::report {
namespace {

bool handles(const RecordContext& r, const Site&) {
  return r.record.event == "dynamo_guards";
}

Status handle(RecordContext& r, Site& site) {
  Json guards = parse_log_json(r.record.payload);
  if (!guards.is_array()) {
    ++site.result.fail_dynamo_guards_json;  // counted; --strict makes it an error
    return {};
  }
  std::string body = "<h1>Guards " + html_escape(site.dirs[r.dir].key) + "</h1>\n<ul>";
  for (const Json& g : guards) {
    std::string code = g.is_object() && g.contains("code") && g["code"].is_string()
                           ? g["code"].get<std::string>()
                           : g.dump();
    body += "<li><code>" + html_escape(code) + "</code></li>";
  }
  body += "</ul>";
  site.add_file(r.dir, site.numbered(r.folder, "dynamo_guards", ".html"),
                html_page("dynamo_guards", body, site.footer()),
                std::to_string(guards.size()) + " guards");
  return {};
}

}  // namespace

const PageHandler kGuards = {"dynamo guards", handles, handle};

}  // namespace remat::report
