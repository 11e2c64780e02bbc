#include "remat/passes/pass_registry.h"

#include <string>

#include "remat/passes/autograd_order.h"
#include "remat/passes/common_subexpressions.h"
#include "remat/passes/dead_code.h"
#include "remat/passes/recompute_tag_cleanup.h"
#include "remat/passes/rng_functionalization.h"

namespace remat::passes {

// One explicit list rather than self-registering statics: a static library drops the object
// files nothing references, and with them their registrations.
const std::vector<PassInfo>& registered_passes() {
  static const std::vector<PassInfo> all = {
      dead_code_pass(),
      common_subexpressions_pass(),
      recompute_tag_cleanup_pass(),
      default_recompute_tag_cleanup_pass(),
      autograd_order_pass(),
      raise_getitems_pass(),
      rng_functionalization_pass(),
  };
  return all;
}

const PassInfo* find_pass(std::string_view name) {
  for (const PassInfo& p : registered_passes())
    if (p.name == name) return &p;
  return nullptr;
}

Expected<std::vector<const PassInfo*>> parse_pass_list(std::string_view list) {
  std::vector<const PassInfo*> out;
  if (list.empty()) return out;  // no passes: the graph as it is
  Diagnostics errors;
  size_t at = 0;
  while (at <= list.size()) {
    size_t comma = list.find(',', at);
    std::string_view name =
        list.substr(at, comma == std::string_view::npos ? list.size() - at : comma - at);
    at = comma == std::string_view::npos ? list.size() + 1 : comma + 1;
    if (const PassInfo* p = find_pass(name)) {
      out.push_back(p);
      continue;
    }
    std::string known;
    for (const PassInfo& p : registered_passes()) known += (known.empty() ? "" : ", ") + p.name;
    errors.push_back(error_message((name.empty() ? std::string("an empty pass name")
                                                 : "no pass named '" + std::string(name) + "'") +
                                   " in '" + std::string(list) + "' (the passes: " + known + ")"));
  }
  if (!errors.empty()) return errors;
  return out;
}

}  // namespace remat::passes
