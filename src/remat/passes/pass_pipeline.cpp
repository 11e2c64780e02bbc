#include "remat/passes/pass_pipeline.h"

#include "remat/ir/verify.h"
#include "remat/passes/pass_registry.h"
#include "remat/support/assert.h"

namespace remat::passes {

PassPipeline& PassPipeline::add(std::string_view name) {
  const PassInfo* pass = find_pass(name);
  REMAT_ASSERT(pass != nullptr) << "no pass named " << name;
  return add(*pass);
}

Status PassPipeline::after(const PassRun& run, std::string_view graph,
                           const GraphModule& module) const {
  if (options_.verify_each) {
    Diagnostics problems = verify(module);
    if (!problems.empty()) {
      std::string where = graph.empty() ? "" : " (" + std::string(graph) + ")";
      for (Diagnostic& d : problems)
        d.message = "after the pass '" + run.name + "'" + where + ": " + d.message;
      return problems;
    }
  }
  if (options_.after_each) options_.after_each(run, graph, module);
  return {};
}

Status PassPipeline::run_on(const PassInfo& pass, GraphModule& module, std::string_view graph,
                            std::vector<PassRun>& runs, StageTimer& timer) const {
  auto result = pass.on_graph(module);
  timer.lap(pass.name);  // verify() and the callback are not the pass's time
  REMAT_TRY(result);
  runs.push_back({pass.name, std::string(graph), std::move(*result)});
  REMAT_TRY(after(runs.back(), graph, module));
  timer.skip();
  return {};
}

Expected<std::vector<PassRun>> PassPipeline::run(GraphModule& module, StageTimer& timer) const {
  std::vector<PassRun> runs;
  for (const PassInfo* pass : passes_) {
    if (pass->needs_pair())
      return error_message("the pass '" + pass->name +
                           "' needs a partition's forward and backward, not one graph");
    REMAT_TRY(run_on(*pass, module, "", runs, timer));
  }
  return runs;
}

Expected<std::vector<PassRun>> PassPipeline::run(ForwardBackward& graphs, StageTimer& timer) const {
  std::vector<PassRun> runs;
  for (const PassInfo* pass : passes_) {
    if (pass->needs_pair()) {
      auto result = pass->on_pair(graphs);
      timer.lap(pass->name);
      REMAT_TRY(result);
      runs.push_back({pass->name, "", std::move(*result)});
      REMAT_TRY(after(runs.back(), "forward", graphs.forward));
      REMAT_TRY(after(runs.back(), "backward", graphs.backward));
      timer.skip();
      continue;
    }
    REMAT_TRY(run_on(*pass, graphs.forward, "forward", runs, timer));
    REMAT_TRY(run_on(*pass, graphs.backward, "backward", runs, timer));
  }
  return runs;
}

const PassResult* result_of(const std::vector<PassRun>& runs, std::string_view name) {
  for (const PassRun& r : runs)
    if (r.name == name) return &r.result;
  return nullptr;
}

}  // namespace remat::passes
