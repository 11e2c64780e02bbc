// PassPipeline: named graph passes run in order, each timed, each optionally followed by
// verify() (tests) and a dump of the graph it left (the compile log, `--dump-passes`).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"
#include "remat/support/stage_timer.h"

namespace remat {

struct PassOptions {
  /// verify() after every pass; a broken invariant is an error naming the pass that broke it.
  bool verify_each = false;
  /// Called after each pass that changed the graph, with the pass's name.
  std::function<void(std::string_view pass, const GraphModule&)> dump;
};

/// What one pass did (its time is the timer's lap of the same name).
struct PassRun {
  std::string name;
  bool changed = false;
};

class PassPipeline {
 public:
  /// A pass returns whether it changed the graph.
  using Pass = std::function<bool(GraphModule&)>;

  explicit PassPipeline(PassOptions options = {}) : options_(std::move(options)) {}

  PassPipeline& add(std::string name, Pass pass) {
    passes_.push_back({std::move(name), std::move(pass)});
    return *this;
  }

  /// Runs every pass in order, each a lap of `timer` under its name. Stops at the first pass
  /// after which verify() fails (with verify_each).
  Status run(GraphModule& module, StageTimer& timer);

  /// The passes run so far, in order.
  [[nodiscard]] const std::vector<PassRun>& runs() const { return runs_; }

 private:
  struct Named {
    std::string name;
    Pass pass;
  };
  PassOptions options_;
  std::vector<Named> passes_;
  std::vector<PassRun> runs_;
};

}  // namespace remat
