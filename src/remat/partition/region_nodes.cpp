#include "remat/partition/region_nodes.h"

#include <fmt/format.h>

#include <algorithm>
#include <regex>

#include "remat/ir/naming.h"
#include "remat/ops/aten_overloads.h"
#include "remat/ops/op_registry.h"
#include "remat/ops/shape_rules.h"
#include "remat/ops/storage_root.h"

namespace remat::partition::reading {

namespace {

// The ops unseen_op names: torch.utils.checkpoint's SAC_IGNORED_OPS.
constexpr std::string_view kUnseenOps[] = {
    "aten.detach.default",
    "prim.device.default",
    "aten.dim.default",
    "aten.is_contiguous.default",
    "aten.is_contiguous.memory_format",
    "aten.is_non_overlapping_and_dense.default",
    "aten.is_strides_like_format.default",
    "aten.numel.default",
    "aten.size.default",
    "aten.storage_offset.default",
    "aten.stride.default",
    "aten.sym_numel.default",
    "aten.sym_size.default",
    "aten.sym_storage_offset.default",
    "aten.sym_stride.default",
};

}  // namespace

bool unseen_op(std::string_view op) {
  return std::find(std::begin(kUnseenOps), std::end(kUnseenOps), op) != std::end(kUnseenOps);
}

std::string as_in_joint(std::string op) {
  if (op == "aten.lift_fresh.default") return "aten.lift_fresh_copy.default";
  size_t name_start = op.find('.');
  size_t name_end = name_start == std::string::npos ? name_start : op.find('.', name_start + 1);
  if (name_end == std::string::npos) return op;
  std::string_view name = std::string_view(op).substr(name_start + 1, name_end - name_start - 1);
  if (name.ends_with('_') && !name.ends_with("__")) op.erase(name_end - 1, 1);
  return op;
}

std::optional<std::string> original_aten(const Node& n) {
  for (const RawJsonField& f : n.meta.extras()) {
    if (f.key == "original_aten" && f.json.size() >= 2 && f.json.front() == '"' &&
        f.json.back() == '"')
      return as_in_joint(f.json.substr(1, f.json.size() - 2));
  }
  return std::nullopt;
}

const Node* first_input(const Node& n) {
  return !n.args().empty() && n.args()[0].is_node() ? n.args()[0].as_node() : nullptr;
}

bool is_alias(const Node& n) {
  return &alias_root(n) != &n && !is_getitem(n) && n.target().view() != "aten.detach.default";
}

bool same_shape(const Node& a, const Node& b) {
  const TensorMeta *x = a.meta.tensor(), *y = b.meta.tensor();
  return x && y && std::ranges::equal(x->sizes(), y->sizes());
}

NodeSet requiring_grad(const GraphModule& joint) {
  const Graph& g = joint.graph();
  NodeSet out(g);
  std::vector<Argument> outputs = joint.outputs();
  size_t at = num_forward_outputs(joint);
  for (const Node* p : g.placeholders()) {
    if (is_tangent(*p)) continue;
    if (at < outputs.size() && outputs[at].is_node()) out.insert(p);
    ++at;
  }
  for (const Node* n : g.nodes()) {
    if (n->op() != OpKind::CallFunction) continue;
    std::string_view target = n->target().view();
    if (target == "aten.detach.default" || target.ends_with("_like.default") ||
        node_is(*n, OpCategory::Factory) || target == "aten.lift_fresh_copy.default")
      continue;
    if (const TensorMeta* t = n->meta.tensor();
        t && !shape_rules::is_floating(t->dtype) && !shape_rules::is_complex(t->dtype))
      continue;
    auto inputs = n->input_nodes();
    if (std::ranges::any_of(inputs, [&](const Node* u) { return out.contains(u); })) out.insert(n);
  }
  return out;
}

std::pair<std::string_view, long long> fx_base_and_number(std::string_view name) {
  std::optional<FxName> n = split_fx_name(name);
  return n ? std::pair{n->base, n->number()} : std::pair{name, 0LL};
}

std::optional<std::string> previous_name(std::string_view name) {
  auto [base, number] = fx_base_and_number(name);
  if (number == 0) return std::nullopt;
  return number == 1 ? std::string(base) : fmt::format("{}_{}", base, number - 1);
}

bool named_like_remade(const Graph& g, const Node& n) {
  if (!is_alias(n)) return false;
  std::optional<std::string> previous = previous_name(n.name());
  return previous && g.find(*previous) == nullptr;
}

std::optional<fxtext::TracebackFrame> model_line(const Node& n) {
  if (n.meta.stack_trace.is_null()) return std::nullopt;
  return fxtext::innermost_frame(n.meta.stack_trace.view());
}

bool same_line(const Node& a, const Node& b) {
  std::optional<fxtext::TracebackFrame> x = model_line(a), y = model_line(b);
  return x && y && x->file == y->file && x->line == y->line;
}

bool in_place_code(const Node& n) {
  std::optional<fxtext::TracebackFrame> line = model_line(n);
  if (!line) return false;
  std::string_view code = line->code;
  // (`requires_grad_()` changes no value: no op.)
  static const std::regex in_place(
      R"(([-+*/%&|^@]|//|\*\*|<<|>>)=[^=]|\.(?!requires_grad_\()\w*[A-Za-z0-9]_\(|\]\s*=[^=])");
  return std::regex_search(code.begin(), code.end(), in_place);
}

bool has_in_place_form(const Node& n) {
  std::string_view target = n.target().view();
  size_t dot = target.find('.', target.find('.') + 1);
  if (!target.starts_with("aten.") || dot == std::string_view::npos) return false;
  std::string in_place = fmt::format("{}_{}", target.substr(0, dot), target.substr(dot));
  return aten_overload_known(in_place);
}

bool same_view(const Node& u, const Node& like) {
  return u.target() == like.target() && same_shape(u, like) &&
         std::ranges::equal(u.args().subspan(1), like.args().subspan(1)) &&
         std::ranges::equal(u.kwargs(), like.kwargs());
}

bool views_as(const Node& u, const Node& input, const Node& like) {
  return first_input(u) == &input && same_view(u, like);
}

std::vector<const Node*> changed_view_chain(const Node& op_node, const NewBases& new_bases) {
  const Node* changed = first_input(op_node);
  if (changed == nullptr || is_alias(op_node) || !is_alias(*changed) ||
      !same_shape(op_node, *changed) || !has_in_place_form(op_node))
    return {};
  std::vector<const Node*> chain;
  const Node* v = changed;
  for (; v != nullptr && is_alias(*v) && !new_bases.contains(v); v = first_input(*v))
    chain.push_back(v);
  if (chain.empty() || v == nullptr) return {};
  chain.push_back(v);
  return chain;
}

bool last_op_of_its_line(const Node& op_node) {
  for (const Node* m = op_node.next(); m != nullptr && same_line(*m, op_node); m = m->next()) {
    std::string_view target = m->target().view();
    if (m->op() == OpKind::CallFunction && !is_alias(*m) && !target.ends_with("_scatter.default") &&
        target != "aten.detach.default")
      return false;
  }
  return true;
}

bool views_changed_view_again(const Graph& g, const std::vector<const Node*>& chain,
                              const Node& n) {
  if (!same_shape(n, *chain.back())) return false;
  auto [base, number] = fx_base_and_number(n.name());
  const Node* after = g.find(fmt::format("{}_{}", base, number + 1));
  return after == nullptr ||
         (is_alias(*after) && first_input(*after) == &n && same_shape(*after, *chain.front()));
}

}  // namespace remat::partition::reading
