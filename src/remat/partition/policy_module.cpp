#include "remat/partition/policy_module.h"

#include <fmt/format.h>

#include <map>

#include "remat/support/python_repr.h"

namespace remat::partition {
namespace {

// The module's code after its docstring and table: the same for every policy.
constexpr const char* kPolicyCode = R"py(
# Ops whose functional form is not their name without a trailing underscore.
FUNCTIONAL_FORMS = {"aten.lift_fresh.default": "aten.lift_fresh_copy.default"}

_entered = 0


def reset():
    """Start again at the first region: call it before torch.compile traces the model anew."""
    global _entered
    _entered = 0


def context_fn():
    """For torch.utils.checkpoint.checkpoint(fn, ..., use_reentrant=False, context_fn=context_fn):
    the policy of the next region the forward enters. A checkpoint entered under torch.no_grad()
    makes no region of the joint graph (HRM's cycles that only warm its state up): it takes none."""
    global _entered
    if not torch.is_grad_enabled():
        return create_selective_checkpoint_contexts(_outside_regions)
    region = _entered % len(REGIONS)
    _entered += 1
    return create_selective_checkpoint_contexts(policy_for(region))


def _outside_regions(ctx, op, *args, **kwargs):
    return PREFER_RECOMPUTE


def as_in_joint(op):
    """The op as the joint graph shows it: a policy sees the ops the model calls, the joint their
    functional forms (functionalization makes aten.add_.Tensor aten.add.Tensor)."""
    key = str(op)
    if key in FUNCTIONAL_FORMS:
        return FUNCTIONAL_FORMS[key]
    namespace, dot, rest = key.partition(".")
    name, dot2, overload = rest.partition(".")
    if dot and dot2 and name.endswith("_") and not name.endswith("__"):
        return f"{namespace}.{name[:-1]}.{overload}"
    return key


# What the policy found wrong while the model ran: a region that calls an op more often than the
# joint graph it was written for. Not arithmetic on one-number tensors the joint does not show
# (Longformer computes its chunk counts as tensors and reads them with item(): calls whose nodes
# die). Each message is also logged (not warned: torch.compile ignores every warning while it
# traces the model).
MISCOUNTED = []


def _on_numbers_only(args):
    tensors = [a for a in args if isinstance(a, torch.Tensor)]
    return bool(tensors) and all(t.dim() == 0 for t in tensors)


def policy_for(region):
    """The policy function of one region (0-based): MUST_SAVE for the calls in its "save" table,
    PREFER_RECOMPUTE for every other call, counted per op as selective checkpointing counts them."""
    table = REGIONS[region]
    seen = {False: collections.Counter(), True: collections.Counter()}

    def policy_fn(ctx, op, *args, **kwargs):
        key = as_in_joint(op)
        counter = seen[bool(getattr(ctx, "is_recompute", False))]
        index = counter[key]
        counter[key] += 1
        calls = table["calls"].get(key, 0)
        if index >= calls and not (calls == 0 and _on_numbers_only(args)):
            message = (f"{__name__}: region {region + 1} calls {key} more often than in the joint graph "
                       "this policy was written for: the policy may save other values than remat chose "
                       "(write it again with remat policy for this model)")
            if message not in MISCOUNTED:
                MISCOUNTED.append(message)
                logging.getLogger(__name__).warning(message)
        return MUST_SAVE if (key, index) in table["save"] else PREFER_RECOMPUTE

    return policy_fn
)py";

// The module holds data, never code: every name, op, path and message from the input is a
// repr()-style literal, or docstring text with its quotes, backslashes, line breaks and
// non-printable characters escaped, so that no input closes the docstring or a string.
std::string quoted(std::string_view s) {
  return python_str_repr(s);
}

std::string docstring_text(std::string_view s) {
  std::string r = python_str_repr(s);
  std::string_view inside = std::string_view(r).substr(1, r.size() - 2);
  std::string out;
  out.reserve(inside.size());
  for (char c : inside) {
    if (c == '"') out += '\\';  // `"""` never forms, nor a quote before the closing one
    out += c;
  }
  return out;
}

}  // namespace

std::string policy_module_text(const ReproducingPolicy& policy, const std::string& source) {
  std::string out;
  auto line = [&out](std::string_view text) {
    out += text;
    out += '\n';
  };
  line("\"\"\"A selective activation checkpointing policy written by remat (remat policy).");
  line("");
  line(fmt::format("It makes PyTorch's partitioner save what {} chose.", docstring_text(source)));
  line("Pass context_fn to every checkpoint of the model (the forward enters them in order) and");
  line("compile it: the policy keys the op calls torch.compile traces (eager PyTorch dispatches");
  line("some others, dropout's kernels for one, and the policy logs those, in MISCOUNTED too):");
  line("");
  line("    from torch.utils.checkpoint import checkpoint");
  line("    y = checkpoint(block, x, use_reentrant=False, context_fn=context_fn)");
  line("");
  line(
      fmt::format("The forward enters {} checkpoint region{} with gradients on; context_fn counts "
                  "them (reset()\n"
                  "starts again).",
                  policy.regions.size(), policy.regions.size() == 1 ? "" : "s"));
  line(fmt::format("{} op calls: {} MUST_SAVE, the others PREFER_RECOMPUTE.", policy.call_count(),
                   policy.saved_call_count()));
  if (policy.mismatches.empty()) {
    line(fmt::format("PyTorch's min-cut with it saves exactly the {} chosen values{}.",
                     policy.chosen.size(), docstring_text(rng_state_note(policy))));
  } else {
    line(fmt::format("PyTorch's min-cut with it decides {} of the chosen values otherwise:",
                     policy.mismatches.size()));
    for (const PolicyMismatch& m : policy.mismatches)
      line(fmt::format("    {} ({} instead of {}): {}", docstring_text(m.name),
                       m.predicted_saved ? "saved" : "not saved",
                       m.chosen_saved ? "saved" : "not saved", docstring_text(m.why)));
  }
  line("\"\"\"");
  line("import collections");
  line("import logging");
  line("");
  line("import torch");
  line("from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts");
  line("");
  line(
      "MUST_SAVE, PREFER_RECOMPUTE = CheckpointPolicy.MUST_SAVE, "
      "CheckpointPolicy.PREFER_RECOMPUTE");
  line("");
  line("# Per region, in the order the forward enters them: how often it calls each op, and the");
  line("# (op, call index) pairs that are MUST_SAVE, each with the joint graph's values it saves");
  line(
      "# (none: remat saves none of its values, and MUST_SAVE keeps PyTorch from recomputing it).");
  line("REGIONS = [");
  for (size_t r = 0; r < policy.regions.size(); ++r) {
    const PolicyRegion& region = policy.regions[r];
    std::map<std::string, int64_t> calls;
    for (const PolicyCall& c : region.calls) ++calls[c.op];
    line(fmt::format("    {{  # region {}: ac_graph_id {} in the joint graph", r + 1,
                     region.ac_graph_id));
    line("        \"calls\": {");
    for (const auto& [op, count] : calls)
      line(fmt::format("            {}: {},", quoted(op), count));
    line("        },");
    line("        \"save\": {");
    for (const PolicyCall& c : region.calls) {
      if (!c.save) continue;
      std::string values;  // a Python tuple's insides: ("a",) or ("a", "b")
      for (const std::string& v : c.saved) values += (values.empty() ? "" : " ") + quoted(v) + ",";
      if (c.saved.size() > 1) values.pop_back();
      line(fmt::format("            ({}, {}): ({}),", quoted(c.op), c.index, values));
    }
    line("        },");
    line("    },");
  }
  line("]");
  out += kPolicyCode;
  return out;
}

}  // namespace remat::partition
