#include "remat/ir/pass_pipeline.h"

#include "remat/ir/verify.h"

namespace remat {

Status PassPipeline::run(GraphModule& module, StageTimer& timer) {
  for (const Named& p : passes_) {
    bool changed = p.pass(module);
    timer.lap(p.name);  // the dump and verify() are not the pass's time
    runs_.push_back({p.name, changed});
    if (options_.verify_each) {
      Diagnostics problems = verify(module);
      if (!problems.empty()) {
        for (Diagnostic& d : problems) d.message = "after the pass '" + p.name + "': " + d.message;
        return problems;
      }
    }
    if (changed && options_.dump) options_.dump(p.name, module);
    timer.skip();
  }
  return {};
}

}  // namespace remat
