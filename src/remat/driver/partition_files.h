// What `remat partition` writes beside its report: the partition's folder (the two graphs as
// fxgraph-json and readable text, report.json, report.txt), the flow network that chose it, and
// the one-page HTML view. The CLI parses flags and prints; the files are written here.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/partition/partition_joint.h"
#include "remat/records/partition_record.h"
#include "remat/support/expected.h"

namespace remat::driver {

struct PartitionFiles {
  std::string out_dir;  ///< forward/backward .json and .txt, report.json, report.txt; empty: none
  bool overwrite = false;  ///< replace an out_dir remat wrote before (support/output_folder.h)
  std::vector<std::string> inputs;  ///< the files the run read: out_dir never holds them
  std::string flow;                 ///< the flow network as fxgraph-json/1#flow; empty: none
  std::string html;                 ///< the partition page with the joint graph; empty: none
  /// With html: another partition record of the joint and its name, shown against this one.
  std::optional<std::pair<records::PartitionRecord, std::string>> against;
  std::string version, command_line;  ///< the html page's footer: remat's, and what ran it
};

/// Writes what `files` asks for, each file whole or not at all; `name` is the joint's, as the
/// user gave it. An error when the flow network is asked for and no cut chose the partition.
Status write_partition_files(const GraphModule& joint, const partition::Partition& p,
                             const std::string& name, const PartitionFiles& files);

}  // namespace remat::driver
