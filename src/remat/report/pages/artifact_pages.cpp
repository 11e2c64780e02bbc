// Artifacts: JSON pretty-printed (a payload that is not JSON is written as it came, as tlparse
// does), text as it came; remat's partition record gets its page of tables and pictures, Inductor's
// kernel stack traces tlparse's readable page, graph executions are counted for the ranks.
#include <fmt/format.h>

#include <filesystem>

#include "remat/report/html.h"
#include "remat/report/log_json.h"
#include "remat/report/pages/page_handlers.h"
#include "remat/report/partition_html.h"
#include "remat/report/what_if.h"

namespace remat::report {
namespace {

namespace fs = std::filesystem;

// The artifact remat's compile writes with the partition report (`remat compile`).
constexpr std::string_view kPartitionArtifact = "remat_partition";
// Inductor's provenance artifact: kernel name -> the stack traces of the nodes it fuses.
constexpr std::string_view kKernelStackTraces = "inductor_provenance_tracking_kernel_stack_traces";

/// The kernel stack traces as tlparse's readable page shows them: a heading per kernel, each
/// trace preformatted (the strings spell newlines as `\n`).
std::string kernel_stack_traces_page(const Json& traces) {
  std::string html = "<html><body>\n";
  if (traces.is_object()) {
    for (const auto& [kernel, list] : traces.items()) {
      html += "<h3>" + html_escape(kernel) + "</h3>\n";
      if (!list.is_array()) continue;
      for (const Json& t : list) {
        if (!t.is_string()) continue;
        std::string text = t.get<std::string>();
        std::string decoded;
        for (size_t i = 0; i < text.size(); ++i) {
          if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == 'n') {
            decoded += '\n';
            ++i;
          } else {
            decoded += text[i];
          }
        }
        while (!decoded.empty() && decoded.back() == '\n') decoded.pop_back();
        html += "<pre>" + html_escape(decoded) + "</pre>\n";
      }
    }
  }
  return html + "</body></html>\n";
}

/// remat's partition record: its page (node names linked to the joint graph logged before it),
/// or, for a record it cannot read, a page that says why.
void partition_record_page(RecordContext& r, Site& site, const std::string& page) {
  CompileDir& d = site.dirs[r.dir];
  Expected<records::PartitionRecord> record = records::read_partition_record(
      r.record.payload, fmt::format("{}:{} (remat_partition)", site.log_path, r.record.lineno));
  std::string body;
  if (record) {
    std::optional<NodeLinks> links;
    const PendingJoint* joint = nullptr;
    for (const PendingJoint& g : site.joints) {
      if (g.dir != r.dir) continue;
      joint = &g;
      links.emplace();
      links->page = fs::path(g.html).filename().string();
      for (const GraphLine& n : g.nodes) links->line_of.try_emplace(n.name, n.line + 1);
    }
    body = partition_page(*record, d.key, links ? &*links : nullptr, kGlossaryLink);
    if (joint && site.options.what_if) {
      // The "what if" rows partition the joint graph: on a writer thread, like the rest.
      auto run = std::make_shared<records::PartitionRecord>(*record);
      run->charts.reset();
      size_t bytes = body.size() + joint->text.size() + d.dynamo_text.size();
      site.write_rendered(
          page,
          [body = std::move(body), run, joint_text = joint->text, dynamo = d.dynamo_text,
           log = site.log_path, key = d.key, footer = site.footer(), what_if = site.options.what_if,
           cache = site.what_if_cache]() mutable {
            WhatIfRequest request{joint_text, dynamo,
                                  static_cast<int64_t>(run->split_saved().activation_bytes)};
            body += what_if_html(cache->get(request, what_if), *run, log, key);
            return html_page("remat partition " + key, body, footer);
          },
          bytes);
      d.partition = std::move(*record);
      d.partition_page = page;
      return;
    }
    d.partition = std::move(*record);
    d.partition_page = page;
  } else {
    ++site.result.fail_parser;  // counted; --strict makes it an error
    body = "<h1>Partition " + html_escape(d.key) +
           "</h1>\n<p class=\"error\" id=\"record-error\">This partition record could not be "
           "read, so the compile's graphs are shown without its marks: <code>" +
           html_escape(record.errors().front().format()) + "</code></p>\n";
  }
  site.write(page, html_page("remat partition " + d.key, body, site.footer()));
}

bool handles(const RecordContext& r, const Site&) {
  return r.record.event == "artifact";
}

Status handle(RecordContext& r, Site& site) {
  const std::string& payload = r.record.payload;
  std::string name = r.meta_string("name"), encoding = r.meta_string("encoding");
  if (name.empty()) name = "artifact";
  if (encoding != "json") {
    std::string rel = site.numbered(r.folder, name, ".txt");
    r.payload_file = rel;
    site.add_file(r.dir, rel, payload);
    return {};
  }
  Json value = parse_log_json(payload);
  std::string rel = site.numbered(r.folder, name, ".json");
  r.payload_file = rel;
  std::optional<std::string> readable;
  std::string detail;
  if (name == kPartitionArtifact && (!value.is_discarded() || payload.size() > kMaxJsonBytes)) {
    // The partition as tables beside its JSON (the page sits in the compile's folder too).
    readable = site.numbered(r.folder, name, ".html");
    partition_record_page(r, site, *readable);
    if (site.dirs[r.dir].partition)
      detail = "the partition: saved activations, recomputations, pictures";
  } else if (name == "inductor_graph_execution") {
    if (value.is_object() && value.contains("graph") && value["graph"].is_string())
      site.result.executions.add(value["graph"].get<std::string>());
  } else if (name == kKernelStackTraces) {
    // tlparse's `<stem>_readable.html`: each kernel and the stack traces of the nodes it came
    // from. Like tlparse, the page takes a number of its own, so the JSON is listed one later.
    readable = site.numbered(r.folder, name, "_readable.html");
    site.write(*readable, kernel_stack_traces_page(value));
    ++site.counter;
  }
  site.add_file(
      r.dir, rel,
      value.is_discarded() ? payload : value.dump(2, ' ', false, Json::error_handler_t::replace),
      detail, std::move(readable));
  return {};
}

}  // namespace

const PageHandler kArtifacts = {"artifacts", handles, handle};

}  // namespace remat::report
