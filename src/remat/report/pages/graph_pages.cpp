// Graph text (docs/spec/trace-log.md §A.5): `<event>_<N>.txt` and its page, regions colored; a
// joint graph's page waits for its compile's end (finish_compile) to mark its partition.
#include <algorithm>
#include <filesystem>
#include <functional>

#include "remat/report/html.h"
#include "remat/report/pages/page_handlers.h"

namespace remat::report {
namespace {

bool is_graph_dump(std::string_view e) {
  static constexpr std::string_view kGraphs[] = {
      "dynamo_output_graph",      "optimize_ddp_split_graph", "optimize_ddp_split_child",
      "compiled_autograd_graph",  "aot_joint_graph",          "aot_forward_graph",
      "aot_backward_graph",       "aot_inference_graph",      "inductor_pre_grad_graph",
      "inductor_post_grad_graph", "dynamo_cpp_guards_str",    "graph_dump",
      "exported_program"};
  return std::ranges::find(kGraphs, e) != std::end(kGraphs);
}

/// FX graph text (the others are guard code and the exported program).
bool is_fx_graph(std::string_view e) {
  return e != "dynamo_cpp_guards_str" && e != "exported_program" && is_graph_dump(e);
}

bool handles(const RecordContext& r, const Site& site) {
  // Outside export mode tlparse does not read exported programs: their payload goes to
  // payloads/ like any record it has no page for.
  const std::string& e = r.record.event;
  return is_graph_dump(e) && (site.options.export_mode || e != "exported_program");
}

Status handle(RecordContext& r, Site& site) {
  const std::string& e = r.record.event;
  const std::string& payload = r.record.payload;
  std::string name = e;
  if (e == "optimize_ddp_split_child") name += "_" + r.meta_string("name");
  if (e == "graph_dump") name = r.meta_string("name").empty() ? e : r.meta_string("name");
  std::string stem = site.numbered(r.folder, name, "");
  if (e == "exported_program") site.exported_program = stem + ".txt";
  std::string detail = human_bytes(payload.size());
  std::optional<std::string> readable;
  CompileDir& d = site.dirs[r.dir];
  if (is_fx_graph(e)) {
    std::vector<GraphLine> nodes = graph_lines(payload);
    detail = std::to_string(nodes.size()) + " nodes, " + detail;
    readable = stem + ".html";
    std::string title = name + " " + d.key;
    if (e == "dynamo_output_graph" && site.options.what_if) d.dynamo_text = payload;
    if (e == "aot_joint_graph") {
      d.joint_digest = std::hash<std::string_view>{}(payload);
      site.joints.push_back(
          {r.dir, std::move(title), stem + ".txt", *readable, payload, std::move(nodes)});
    } else {
      site.write_graph_page(title, payload, nodes, std::nullopt, stem + ".txt", *readable);
      if (e == "aot_forward_graph" || e == "aot_backward_graph") {
        bool forward = e == "aot_forward_graph";
        auto& names = forward ? d.marks.forward : d.marks.backward;
        for (const GraphLine& g : nodes) names.insert(g.name);
        (forward ? d.forward_lines : d.backward_lines) = std::move(nodes);
        (forward ? d.forward_text : d.backward_text) = payload;
      }
    }
  }
  r.payload_file = stem + ".txt";
  site.add_file(r.dir, stem + ".txt", payload, detail, readable);
  return {};
}

}  // namespace

const PageHandler kGraphDumps = {"graph dumps", handles, handle};

}  // namespace remat::report
