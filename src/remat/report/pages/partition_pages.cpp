// A compile's partition, once the compile is finished: the marks its joint graph pages show
// (from remat's record, or read off the forward and backward graphs PyTorch logged, with a page
// of their own), and those pages.
#include <algorithm>
#include <filesystem>

#include "remat/report/derived_partition.h"
#include "remat/report/html.h"
#include "remat/report/pages/page_handlers.h"
#include "remat/report/partition_html.h"

namespace remat::report {
namespace {

namespace fs = std::filesystem;

/// PyTorch's partition, read off its graphs: a page like remat's record gets, with the memory
/// timeline and the region map the text gives. Made on a writer thread (a tenth of a report's
/// time): it takes the compile's forward and backward graphs, which the compile drops next.
void derived_partition_page(Site& site, size_t di) {
  CompileDir& d = site.dirs[di];
  const PendingJoint* joint = nullptr;
  for (const PendingJoint& g : site.joints)
    if (g.dir == di && joint == nullptr) joint = &g;
  d.derived_page = d.anchor + "/pytorch_partition.html";
  d.derived = std::make_shared<records::PartitionRecord>();
  struct Inputs {
    PartitionMarks marks;
    std::string forward_text, backward_text;
    std::vector<GraphLine> forward_lines, backward_lines;
    std::optional<std::vector<GraphLine>> joint_nodes;
    std::string joint_page, key, footer;
    std::string joint_text, dynamo_text, log;  // for "what if", when the report makes it
  };
  auto in = std::make_shared<Inputs>(Inputs{
      d.marks, std::move(d.forward_text), std::move(d.backward_text), std::move(d.forward_lines),
      std::move(d.backward_lines), std::nullopt, "", d.key, site.footer(), "", "", ""});
  if (joint) {
    in->joint_nodes = joint->nodes;
    in->joint_page = fs::path(joint->html).filename().string();
    if (site.options.what_if) {
      in->joint_text = joint->text;
      in->dynamo_text = std::move(d.dynamo_text);
      in->log = site.log_path;
    }
  }
  d.marks.pictures = fs::path(d.derived_page).filename().string();  // for the joint graph's page
  size_t bytes = 2 * (in->forward_text.size() + in->backward_text.size());
  site.write_rendered(
      d.derived_page,
      [in, derived = d.derived, what_if = site.options.what_if, cache = site.what_if_cache] {
        records::PartitionRecord record =
            derived_record(in->marks, {in->forward_text, &in->forward_lines},
                           {in->backward_text, &in->backward_lines},
                           in->joint_nodes ? &*in->joint_nodes : nullptr);
        std::optional<NodeLinks> links;
        if (in->joint_nodes) {
          links.emplace();
          links->page = in->joint_page;
          for (const GraphLine& n : *in->joint_nodes)
            links->line_of.try_emplace(n.name, n.line + 1);
        }
        std::string body =
            partition_page(record, in->key, links ? &*links : nullptr, kGlossaryLink);
        if (what_if && !in->joint_text.empty()) {
          auto run_bytes = static_cast<int64_t>(record.split_saved().activation_bytes);
          WhatIfRequest request{in->joint_text, in->dynamo_text, run_bytes};
          body += what_if_html(cache->get(request, what_if), record, in->log, in->key);
        }
        std::string page = html_page("partition " + in->key, body, in->footer);
        record.charts.reset();  // the index needs its numbers, not its pictures
        *derived = std::move(record);
        return page;
      },
      bytes);
}

}  // namespace

void finish_compile(Site& site, size_t di) {
  CompileDir& d = site.dirs[di];
  if (!d.partition) {
    // PyTorch's own logs: what its partitioner did, read off the graphs it logged.
    if (!d.forward_lines.empty() && !d.backward_lines.empty()) {
      auto joint = std::ranges::find(site.joints, di, &PendingJoint::dir);
      d.marks = marks_read_off_graphs(
          {d.forward_text, &d.forward_lines}, {d.backward_text, &d.backward_lines},
          joint == site.joints.end() ? LoggedGraph{} : LoggedGraph{joint->text, &joint->nodes});
    }
  } else {
    PartitionMarks record = marks_from_record(*d.partition);
    record.forward = std::move(d.marks.forward);
    record.backward = std::move(d.marks.backward);
    d.marks = std::move(record);
    if (d.partition->charts) d.marks.pictures = fs::path(d.partition_page).filename().string();
  }
  bool has_marks = !d.marks.saved.empty() || !d.marks.recomputed.empty();
  if (has_marks)
    d.summary = PartitionSummary{d.key, d.marks.saved, d.marks.recomputed, d.marks.source};
  if (has_marks && !d.partition) derived_partition_page(site, di);
  for (PendingJoint& g : site.joints) {
    if (g.dir != di) continue;
    std::optional<PartitionMarks> marks;
    if (has_marks) {
      marks = d.marks;
      marks->glossary = kGlossaryLink;
    }
    site.write_graph_page(std::move(g.title), std::move(g.text), std::move(g.nodes),
                          std::move(marks), g.txt, g.html);
  }
  std::erase_if(site.joints, [&](const PendingJoint& g) { return g.dir == di; });
  // What a later record of this compile could still use is its summary and the partition record.
  // (Moved-from temporaries: `v = {}` would keep the vectors' capacity.)
  d.marks = PartitionMarks();
  d.forward_lines = std::vector<GraphLine>();
  d.backward_lines = std::vector<GraphLine>();
  d.forward_text = std::string();
  d.backward_text = std::string();
  d.dynamo_text = std::string();
}

}  // namespace remat::report
