// The report's pages, one handler per kind of TORCH_TRACE record, as tlparse keeps one parser per
// kind. Site::handle gives a record to the first handler whose `handles` is true; the handler
// writes its pages through the Site and returns its Status.
#pragma once

#include <span>
#include <string_view>

#include "remat/report/site.h"

namespace remat::report {

struct PageHandler {
  std::string_view name;
  bool (*handles)(const RecordContext& record, const Site& site);
  Status (*handle)(RecordContext& record, Site& site);
};

/// In the order they are asked.
std::span<const PageHandler> page_handlers();

/// Once a compile is finished (its compilation_metrics, or the end of the log): its partition
/// marks (from remat's record, or read off PyTorch's graphs, with their page), the pages of its
/// joint graphs, its summary; the graphs kept for the marks are freed (pages/partition_pages.cpp).
void finish_compile(Site& site, size_t dir);

// Each kind's handler, defined in the file of its kind.
extern const PageHandler kExportRecords;  // export_records.cpp: export mode's problems
extern const PageHandler kGraphDumps;     // graph_pages.cpp: graph text, with marks on joints
extern const PageHandler kOutputCode;     // code_pages.cpp: Inductor's output code
extern const PageHandler kDumpFiles;      // code_pages.cpp: dumped source files
extern const PageHandler kGuards;         // guard_pages.cpp: dynamo_guards
extern const PageHandler kArtifacts;      // artifact_pages.cpp: JSON and text artifacts
extern const PageHandler kMetrics;        // metrics_pages.cpp: compilation metrics, failures
extern const PageHandler kLinks;          // metrics_pages.cpp: links in a compile's listing
extern const PageHandler kDynamoStart;    // metrics_pages.cpp: the stack trie

}  // namespace remat::report
