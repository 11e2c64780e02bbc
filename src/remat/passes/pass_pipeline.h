// PassPipeline: registered passes run in order, each timed, each optionally followed by verify()
// and a look at the graph it left (the compile log, `--dump-passes`, `remat opt
// --print-after-all`). What each pass did comes back as its PassResult.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/ir/forward_backward.h"
#include "remat/ir/graph_module.h"
#include "remat/passes/pass.h"
#include "remat/support/expected.h"
#include "remat/support/stage_timer.h"

namespace remat::passes {

/// What one pass did to one graph (its time is the timer's lap of the same name).
struct PassRun {
  std::string name;
  std::string graph;  ///< over a partition: "forward" or "backward"; empty for a pair pass
  PassResult result;
};

struct PassOptions {
  /// verify() after every pass; a broken invariant is an error naming the pass that broke it.
  bool verify_each = false;
  /// Called after every pass with what it did and each graph it ran on ("forward" or
  /// "backward" over a partition, else empty).
  std::function<void(const PassRun&, std::string_view graph, const GraphModule&)> after_each;
};

class PassPipeline {
 public:
  explicit PassPipeline(PassOptions options = {}) : options_(std::move(options)) {}

  PassPipeline& add(const PassInfo& pass) {
    passes_.push_back(&pass);
    return *this;
  }
  /// A registered pass by name (the name must be registered).
  PassPipeline& add(std::string_view name);

  /// Runs every pass in order on `module`, each a lap of `timer` under its name. Stops at the
  /// first error: a pass's own, a pair pass (it needs a partition), or with verify_each a broken
  /// invariant.
  Expected<std::vector<PassRun>> run(GraphModule& module, StageTimer& timer) const;
  /// Over a partition: each graph pass on the forward, then on the backward; each pair pass on
  /// both together.
  Expected<std::vector<PassRun>> run(ForwardBackward& graphs, StageTimer& timer) const;

 private:
  Status after(const PassRun& run, std::string_view graph, const GraphModule& module) const;
  /// One graph pass on one graph ("forward", "backward" or empty), timed, recorded in `runs`.
  Status run_on(const PassInfo& pass, GraphModule& module, std::string_view graph,
                std::vector<PassRun>& runs, StageTimer& timer) const;

  PassOptions options_;
  std::vector<const PassInfo*> passes_;
};

/// The result of the pass named `name` among `runs` (the first such run), or nullptr.
const PassResult* result_of(const std::vector<PassRun>& runs, std::string_view name);

}  // namespace remat::passes
