// Export mode (tlparse's `-e`): the problems torch.export met, each with its symbolic guard page;
// the other records' payloads go to payloads/ (export_pages.h renders the pages).
#include "remat/report/html.h"
#include "remat/report/pages/page_handlers.h"

namespace remat::report {
namespace {

bool handles(const RecordContext& r, const Site& site) {
  return site.options.export_mode && r.record.event != "exported_program" &&
         !kMetrics.handles(r, site);
}

Status handle(RecordContext& r, Site& site) {
  const std::string& e = r.record.event;
  if (e == "expression_created" || e == "create_unbacked_symbol") {
    index_sym_expr(e, r.meta, site.sym_exprs);
    site.raw_jsonl(r.record, std::nullopt);
    r.raw_written = true;
    return {};
  }
  if (e == "guard_added" && !has_symbolic_guard_page(e, r.meta)) {
    site.raw_jsonl(r.record, std::nullopt);  // a guard export did not evaluate: nothing to show
    r.raw_written = true;
    return {};
  }
  std::string page;
  if (has_symbolic_guard_page(e, r.meta)) {
    page = site.numbered(r.folder, "symbolic_guard_information", ".html");
    auto stack = [&](const char* key) {
      return r.meta.contains(key) ? site.frames_of(r.meta[key].dump(), r.reader)
                                  : std::vector<std::string>{};
    };
    site.add_file(
        r.dir, page,
        html_page("symbolic guard",
                  symbolic_guard_body(r.meta, stack("user_stack"), stack("stack"), site.sym_exprs),
                  site.footer()));
  }
  // Anything else keeps its payload in payloads/, as tlparse's export mode does.
  std::optional<ExportFailure> failure = export_failure(e, r.meta, page);
  if (!failure) return {};
  site.export_failures.push_back(std::move(*failure));
  site.raw_jsonl(r.record, std::nullopt);
  r.raw_written = true;
  return {};
}

}  // namespace

const PageHandler kExportRecords = {"export records", handles, handle};

}  // namespace remat::report
