// StageTimer: wall-clock time per named stage of a long job (the partitioner's passes, the
// compile pipeline), for progress output and compilation metrics; never for test assertions.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace remat {

struct StageTime {
  std::string name;
  double ms = 0;
  /// The name as an identifier (`flow network` -> `flow_network`), for metric keys.
  [[nodiscard]] std::string key() const {
    std::string k = name;
    for (char& c : k) c = c == ' ' ? '_' : c;
    return k;
  }
};

class StageTimer {
 public:
  StageTimer() : last_(Clock::now()) {}
  /// Ends the current stage under `name` and starts the next one.
  void lap(std::string name) {
    auto now = Clock::now();
    stages_.push_back(
        {std::move(name), std::chrono::duration<double, std::milli>(now - last_).count()});
    last_ = now;
  }
  /// Starts the next stage now, leaving the time since the last lap uncounted.
  void skip() { last_ = Clock::now(); }
  [[nodiscard]] const std::vector<StageTime>& stages() const { return stages_; }
  [[nodiscard]] std::vector<StageTime> take() { return std::move(stages_); }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point last_;
  std::vector<StageTime> stages_;
};

}  // namespace remat
