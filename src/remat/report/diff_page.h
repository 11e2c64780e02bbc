// Two partitions of the same joint graph on one page: the totals side by side and every value
// that changed fate (records::diff_partitions), each reason linked to the glossary. The report
// writes one when a log partitions the same joint graph more than once (a recompile, two runs in
// one log, PyTorch's partition and remat's).
#pragma once

#include <string>
#include <string_view>

#include "remat/records/partition_diff.h"

namespace remat::report {

/// A total's magnitude in its unit, as the report prints it (`2.1 KB`, `1.28 MFLOPs`, `1,024`).
std::string total_text(int64_t value, records::TotalRow::Unit unit);

/// The page body. `before`/`after` name the two partitions (`[0/0]`, a file); `glossary` is
/// the glossary page the reasons link to.
std::string partition_diff_body(const records::PartitionDiff& diff, std::string_view before,
                                std::string_view after, std::string_view glossary);

}  // namespace remat::report
