#include "remat/ops/op_registry.h"

#include <absl/container/flat_hash_map.h>

#include "remat/ops/attention_flops.h"
#include "remat/ops/detail/op_tables.h"
#include "remat/ops/shape_rules.h"
#include "remat/support/assert.h"
#include "remat/support/saturating_math.h"
#include "remat/support/string_hash.h"

namespace remat {
namespace {

struct Registry {
  std::vector<OpInfo> ops;
  absl::flat_hash_map<std::string_view, const OpInfo*, StringViewHash, StringViewEq> by_target;

  Registry() {
    detail::add_pointwise_ops(ops);
    detail::add_view_ops(ops);
    detail::add_reduction_ops(ops);
    detail::add_nn_ops(ops);
    detail::add_factory_ops(ops);
    detail::add_backward_ops(ops);
    for (OpInfo& op : ops) {
      auto parsed = parse_schema(op.schema_text);
      REMAT_ASSERT(parsed.ok()) << "bad schema in the op table: " << op.schema_text << "\n"
                                << format_all(parsed.errors());
      op.schema = std::move(*parsed);
      op.target = op.schema.target();
    }
    for (const OpInfo& op : ops) {
      bool inserted = by_target.emplace(op.target, &op).second;
      REMAT_ASSERT(inserted) << "op registered twice: " << op.target;
    }
  }
};

const Registry& registry() {
  static const Registry r;
  return r;
}

}  // namespace

const OpInfo* find_op(std::string_view target) {
  if (target.starts_with("torch.ops.")) target.remove_prefix(10);
  const auto& map = registry().by_target;
  auto it = map.find(target);
  if (it != map.end()) return it->second;
  // An OpOverloadPacket (`aten.mm`) means its default overload.
  if (std::count(target.begin(), target.end(), '.') == 1) {
    std::string with_default = std::string(target) + ".default";
    it = map.find(std::string_view(with_default));
    if (it != map.end()) return it->second;
  }
  return nullptr;
}

const OpInfo* find_op(InternedString target) {
  // Per thread, so no lock: interned strings live forever, so their addresses are stable keys.
  thread_local absl::flat_hash_map<const void*, const OpInfo*> known;
  auto [it, fresh] = known.try_emplace(target.view().data(), nullptr);
  if (fresh) it->second = find_op(target.view());
  return it->second;
}

std::span<const OpInfo> all_ops() {
  return registry().ops;
}

Expected<InferredOutputs> infer_outputs(const OpInfo& op, std::span<const Argument> args,
                                        std::span<const Kwarg> kwargs) {
  auto call = bind(op.schema, args, kwargs);
  REMAT_TRY(call);
  try {
    return op.infer(*call);
  } catch (const shape_rules::InferError& e) {
    return error_message(op.target + ": " + e.what());
  }
}

bool node_is(const Node& node, OpCategory category) {
  const OpInfo* op = node_op(node);
  return op && op->is(category);
}

int64_t count_flops(const OpInfo& op, const BoundCall& call, const InferredOutputs& out) {
  if (op.flops) return op.flops(call, out);
  int64_t total = 0;
  for (const auto& v : out.values) {
    if (v) total = sat_add(total, v->numel().value_or(0));
  }
  return total;
}

int64_t flop_counter_flops(const Node& node) {
  if (std::optional<int64_t> attention = attention_flops(node)) return *attention;
  return node_is(node, OpCategory::ComputeIntensive) ? node_flops(node) : 0;
}

int64_t node_flops(const Node& node) {
  const OpInfo* op = node_op(node);
  if (!op) return 0;
  auto call = bind(op->schema, node.args(), node.kwargs());
  if (!call) return 0;
  for (size_t i = 0; i < call->size(); ++i) {
    const Argument& a = (*call)[i];
    if (a.is_node() && !a.as_node()->meta.tensor() && op->schema.arguments[i].is_tensor()) return 0;
  }
  if (!op->flops) {  // one FLOP per output element: no need to gather the outputs
    if (const TensorMeta* t = node.meta.tensor()) return t->numel().value_or(0);
    if (const auto* tuple = node.meta.tensor_tuple()) {
      int64_t total = 0;
      for (const auto& v : *tuple) total = sat_add(total, v ? v->numel().value_or(0) : 0);
      return total;
    }
  }
  InferredOutputs out;
  if (const TensorMeta* t = node.meta.tensor()) {
    out.values.emplace_back(*t);
  } else if (const auto* tuple = node.meta.tensor_tuple()) {
    out.values = *tuple;
    out.is_tuple = true;
  } else if (op->infer) {
    // No recorded value (torch.fx prints no annotation for a tuple, and PyTorch 1.13 recorded no
    // tensor_meta for one): the FLOPs do not depend on where the graph came from, so infer it.
    auto inferred = infer_outputs(*op, node.args(), node.kwargs());
    if (!inferred) return 0;
    out = std::move(*inferred);
  } else {
    return 0;
  }
  try {
    return count_flops(*op, *call, out);
  } catch (const shape_rules::InferError&) {
    return 0;  // arguments the rule cannot read: no FLOPs known
  }
}

std::string category_names(OpCategory c) {
  static constexpr std::pair<OpCategory, std::string_view> kNames[] = {
      {OpCategory::Pointwise, "pointwise"},
      {OpCategory::View, "view"},
      {OpCategory::Reduction, "reduction"},
      {OpCategory::Random, "random"},
      {OpCategory::ComputeIntensive, "compute-intensive"},
      {OpCategory::Recomputable, "recomputable"},
      {OpCategory::Factory, "factory"},
      {OpCategory::Backward, "backward"},
  };
  std::string out;
  for (auto [flag, name] : kNames) {
    if (!has(c, flag)) continue;
    if (!out.empty()) out += '|';
    out += name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace remat
