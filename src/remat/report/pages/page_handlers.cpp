#include "remat/report/pages/page_handlers.h"

#include <array>

namespace remat::report {

std::span<const PageHandler> page_handlers() {
  // Export mode's handler first: in that mode it takes every record but the exported program
  // and the metrics.
  static const std::array<PageHandler, 9> kAll = {kExportRecords, kGraphDumps, kOutputCode,
                                                  kGuards,        kArtifacts,  kMetrics,
                                                  kLinks,         kDumpFiles,  kDynamoStart};
  return kAll;
}

}  // namespace remat::report
