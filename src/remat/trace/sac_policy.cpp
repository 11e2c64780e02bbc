#include "remat/trace/sac_policy.h"

#include <algorithm>
#include <stdexcept>

#include "remat/ops/op_registry.h"

namespace remat::trace {

SacPolicy SacPolicy::recompute_all() {
  return SacPolicy([](const SacContext&) { return CheckpointPolicy::PreferRecompute; },
                   "recompute everything");
}

SacPolicy SacPolicy::from_fn(Fn fn, std::string description) {
  return SacPolicy(std::move(fn), std::move(description));
}

SacPolicy SacPolicy::from_bool(std::function<bool(const SacContext&)> fn, std::string description) {
  return SacPolicy(
      [fn = std::move(fn)](const SacContext& ctx) {
        return fn(ctx) ? CheckpointPolicy::MustSave : CheckpointPolicy::PreferRecompute;
      },
      std::move(description));
}

SacPolicy SacPolicy::save_ops(const std::vector<std::string>& targets) {
  std::vector<std::string> canonical;
  for (const std::string& t : targets) {
    std::string_view name = t;
    if (name.starts_with("torch.ops.")) name.remove_prefix(10);
    if (std::count(name.begin(), name.end(), '.') < 2) {
      throw std::invalid_argument("save_ops: " + t +
                                  " is an OpOverloadPacket; name an overload such as " +
                                  std::string(name) + ".default");
    }
    if (!find_op(name)) throw std::invalid_argument("save_ops: unknown op " + t);
    canonical.emplace_back(name);
  }
  std::string description = "save ";
  for (size_t i = 0; i < canonical.size(); ++i) description += (i ? ", " : "") + canonical[i];
  return SacPolicy(
      [canonical](const SacContext& ctx) {
        bool listed = std::find(canonical.begin(), canonical.end(), ctx.target) != canonical.end();
        return listed ? CheckpointPolicy::MustSave : CheckpointPolicy::PreferRecompute;
      },
      description);
}

SacPolicy SacPolicy::save_only_these_names(std::vector<std::string> names) {
  std::string description = "save only names";
  for (const auto& n : names) description += " " + n;
  return SacPolicy(
      [names = std::move(names)](const SacContext& ctx) {
        bool named = ctx.tensor_name &&
                     std::find(names.begin(), names.end(), *ctx.tensor_name) != names.end();
        return named ? CheckpointPolicy::MustSave : CheckpointPolicy::PreferRecompute;
      },
      description);
}

SacPolicy SacPolicy::save_all_but_these_names(std::vector<std::string> names) {
  std::string description = "save all but names";
  for (const auto& n : names) description += " " + n;
  return SacPolicy(
      [names = std::move(names)](const SacContext& ctx) {
        bool named = ctx.tensor_name &&
                     std::find(names.begin(), names.end(), *ctx.tensor_name) != names.end();
        return named ? CheckpointPolicy::PreferRecompute : CheckpointPolicy::MustSave;
      },
      description);
}

bool is_sac_ignored(std::string_view target) {
  return target == "aten.detach.default" || target == "prim.device.default";
}

}  // namespace remat::trace
