// Running remat-check (the executable that links libtorch) on a partition's graph files, and
// reading the result file it writes.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "remat/partition/extract.h"
#include "remat/records/memory_curve.h"
#include "remat/support/expected.h"

namespace remat::driver {

/// What `remat-check check JOINT --fw F --bw B --result FILE` found.
struct CheckOutcome {
  bool ok = true;  ///< every value within tolerance
  int64_t values = 0;
  int64_t beyond_tolerance = 0;
  double max_abs_error = 0;
  double max_rel_error = 0;
  std::string text;  ///< remat-check's report, a line per value
  /// The bytes the real tensors held at each call node of the forward, then the backward.
  struct Measured {
    std::string node;
    bool backward = false;
    int64_t live = 0;
  };
  std::vector<Measured> memory;
};

/// The measured memory as a curve on the memory timeline's steps, to draw beside the estimate:
/// each step takes the measurement at its node; steps without one (the graphs' inputs) the one
/// before, or the estimate's before the first.
records::TimelineCurve measured_curve(const ForwardBackward& graphs,
                                      const std::vector<CheckOutcome::Measured>& memory);

/// A result file (`remat check --result FILE`: values, beyond_tolerance, max_abs_error,
/// max_rel_error); an error naming `file` when `text` is not one. `text` of the outcome is empty.
Expected<CheckOutcome> read_check_result(std::string_view text, const std::string& file);

/// Runs `executable check JOINT --fw FORWARD --bw BACKWARD --result RESULT_FILE` and reads the
/// result file. An error when it could not run or failed for another reason than tolerance.
Expected<CheckOutcome> run_check(const std::string& executable, const std::string& joint,
                                 const std::string& forward, const std::string& backward,
                                 const std::string& result_file);

}  // namespace remat::driver
