// compile(): the main job as one call. Trace a zoo model, build its joint graph, partition it,
// check the partition's numbers through remat-check (libtorch), then write the TORCH_TRACE log
// PyTorch would write for that compile and its HTML report. `remat compile` is this call plus
// its flags.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/models/model_zoo.h"
#include "remat/partition/partition_charts.h"
#include "remat/partition/partition_joint.h"
#include "remat/report/report_builder.h"
#include "remat/support/expected.h"
#include "remat/support/stage_timer.h"

namespace remat::driver {

struct CompileOptions {
  std::string model = "gpt2";  ///< a zoo model (models::all_models())
  models::ModelOptions model_options;
  partition::Strategy strategy = partition::Strategy::MinCut;
  partition::MinCutConfig config;
  /// Where graphs/, trace/ and report/ go (created; earlier logs in trace/ are replaced).
  std::string out_dir;
  /// Write graphs/ (joint, forward, backward as fxgraph-json) though no check reads them.
  bool graph_files = false;
  /// Log the joint graph after each partitioner pass that changed it (`remat_pass_NAME`).
  bool log_passes = false;
  /// The report's pictures (memory over time, the budget curve, the region map): two more
  /// partitions and the memory-budget sweep, in the partition record.
  bool charts = true;
  partition::ChartOptions chart_options;
  /// remat-check, the executable that links libtorch; empty: the numeric check is skipped,
  /// and `check_skipped` is what the summary says.
  std::string check_executable;
  std::string check_skipped = "skipped";
  /// The report's options (version, command line for its footer, progress) for the log.
  std::function<report::ReportOptions(const std::string& log)> report_options;
  /// Called as each stage ends: its name, a one-line summary, its milliseconds.
  std::function<void(std::string_view stage, std::string_view detail, double ms)> progress;
};

/// The numeric check of the partition against the joint graph.
struct NumericCheck {
  bool ran = false;
  bool ok = true;  ///< every value within tolerance (true when it did not run)
  int64_t values = 0;
  double max_abs_error = 0;
  std::string summary;  ///< `12 values, max abs error 1e-07`, or why it did not run
  std::string details;  ///< remat-check's report, a line per value
};

struct CompileResult {
  GraphModule forward, joint;
  partition::Partition partition;
  NumericCheck check;
  std::vector<StageTime> stages;  ///< trace, joint graph, partition, ... report
  std::string log_path, report_dir;
  std::string graphs_dir;  ///< where the graph files went; empty when none were written
  size_t report_records = 0, report_artifacts = 0;
};

/// Runs the whole job. Bad options, a model that does not trace, an unbounded cut, a file that
/// cannot be written are errors; values beyond tolerance are not (see `check.ok`).
Expected<CompileResult> compile(const CompileOptions& options);

/// "628 nodes: 30 inputs, 598 ops": the values a graph defines (the output node is none), as
/// the report's graph pages count them.
std::string node_counts(const GraphModule& m);

}  // namespace remat::driver
