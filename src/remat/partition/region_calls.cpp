#include "remat/partition/region_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <regex>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "remat/fxtext/traceback.h"
#include "remat/ir/naming.h"
#include "remat/ir/node_set.h"
#include "remat/ops/aten_overloads.h"
#include "remat/ops/op_registry.h"
#include "remat/ops/shape_rules.h"
#include "remat/ops/storage_root.h"

namespace remat::partition {
namespace {

// Ops selective checkpointing never hands a policy (torch.utils.checkpoint's SAC_IGNORED_OPS:
// detach, and the metadata queries of functional tensors): they take no call index, and PyTorch
// tags their nodes PREFER_RECOMPUTE.
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

bool unseen_op(std::string_view op) {
  return std::find(std::begin(kUnseenOps), std::end(kUnseenOps), op) != std::end(kUnseenOps);
}

/// An op as the joint graph shows it, the way a policy module keys it (its as_in_joint,
/// policy_module.cpp): an in-place op by its functional form (`aten.add_.Tensor` as
/// `aten.add.Tensor`), `aten.lift_fresh.default` as the lift_fresh_copy functionalization makes.
std::string as_in_joint(std::string op) {
  if (op == "aten.lift_fresh.default") return "aten.lift_fresh_copy.default";
  size_t name_start = op.find('.');
  size_t name_end = name_start == std::string::npos ? name_start : op.find('.', name_start + 1);
  if (name_end == std::string::npos) return op;
  std::string_view name = std::string_view(op).substr(name_start + 1, name_end - name_start - 1);
  if (name.ends_with('_') && !name.ends_with("__")) op.erase(name_end - 1, 1);
  return op;
}

/// The op the policy saw when PyTorch made this node (`original_aten` meta: a decomposition's
/// nodes all carry the op it decomposed), as the joint shows it, if the graph recorded it.
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

/// A view in functionalization's sense: an op whose schema returns an alias of its input
/// (transpose too), but not the detaches selective checkpointing makes of every call's output.
bool is_alias(const Node& n) {
  return &alias_root(n) != &n && !is_getitem(n) && n.target().view() != "aten.detach.default";
}

bool same_shape(const Node& a, const Node& b) {
  const TensorMeta *x = a.meta.tensor(), *y = b.meta.tensor();
  return x && y && std::ranges::equal(x->sizes(), y->sizes());
}

/// The forward values that require grad: the primals whose gradients the joint returns, and what
/// a differentiable op computes from one (a floating-point value; not a detach, a factory or a
/// `*_like` of one).
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

/// The base FX numbers `name` by (`view` for `view_2`), and its number there.
std::pair<std::string_view, long long> fx_base_and_number(std::string_view name) {
  std::optional<FxName> n = split_fx_name(name);
  return n ? std::pair{n->base, n->number()} : std::pair{name, 0LL};
}

/// The name FX gave the previous node made with `name`'s base: `view` for `view_1`, `view_1` for
/// `view_2`; none for a first one.
std::optional<std::string> previous_name(std::string_view name) {
  auto [base, number] = fx_base_and_number(name);
  if (number == 0) return std::nullopt;
  return number == 1 ? std::string(base) : fmt::format("{}_{}", base, number - 1);
}

/// Whether `n` may be a view functionalization made again after an in-place op changed its
/// tensor (RegionCalls::remade): the node the view's own call made right before it is no longer
/// in the graph. (region_calls also asks that the view's tensor was changed in place.)
bool named_like_remade(const Graph& g, const Node& n) {
  if (!is_alias(n)) return false;
  std::optional<std::string> previous = previous_name(n.name());
  return previous && g.find(*previous) == nullptr;
}

/// The line of the model that made `n`: its traceback's innermost frame, if it has one.
std::optional<fxtext::TracebackFrame> model_line(const Node& n) {
  if (n.meta.stack_trace.is_null()) return std::nullopt;
  std::vector<fxtext::TracebackFrame> frames = fxtext::parse_traceback(n.meta.stack_trace.view());
  if (frames.empty()) return std::nullopt;
  return frames.back();
}

/// Whether both nodes have a traceback, and it ends on the same line (a live graph's tracebacks
/// also mark each op's columns, which a printed one drops).
bool same_line(const Node& a, const Node& b) {
  std::optional<fxtext::TracebackFrame> x = model_line(a), y = model_line(b);
  return x && y && x->file == y->file && x->line == y->line;
}

/// Whether the Python line that made `n` changes a tensor in place: an augmented assignment
/// (`x += b`), an in-place method (`x.masked_fill_(m, v)`) or an item assignment (`x[i] = v`).
bool in_place_code(const Node& n) {
  std::optional<fxtext::TracebackFrame> line = model_line(n);
  if (!line) return false;
  std::string_view code = line->code;
  // (`requires_grad_()` changes no value: no op.)
  static const std::regex in_place(
      R"(([-+*/%&|^@]|//|\*\*|<<|>>)=[^=]|\.(?!requires_grad_\()\w*[A-Za-z0-9]_\(|\]\s*=[^=])");
  return std::regex_search(code.begin(), code.end(), in_place);
}

struct CallBuilder {
  RegionCalls::Call call;
  std::optional<int64_t> seq_nr;
  bool from_meta = false;     // `op` came from original_aten
  bool has_own_node = false;  // a node whose target is `op` itself
  bool wrote_back = false;    // an in-place change of a view, and the nodes that wrote it back
};

/// Whether `n` continues `call`: the same op call made it. Where the graph says which op made
/// each node (`original_aten`), consecutive nodes of one op with the same autograd sequence
/// number are one call, unless `n` is a second node of the op itself; otherwise every node is
/// its own call.
bool continues(const CallBuilder& call, const Node& n, int64_t region,
               const std::optional<std::string>& made_by) {
  if (!made_by || !call.from_meta || call.call.region != region || call.call.op != *made_by ||
      call.seq_nr != n.meta.seq_nr())
    return false;
  return !(call.has_own_node && n.target().view() == *made_by);
}

/// Whether ATen has an in-place form of `n`'s op (`aten.add_.Tensor` for `aten.add.Tensor`).
/// (An item assignment makes copy or index_put: copy_ and index_put_ are there too.)
bool has_in_place_form(const Node& n) {
  std::string_view target = n.target().view();
  size_t dot = target.find('.', target.find('.') + 1);
  if (!target.starts_with("aten.") || dot == std::string_view::npos) return false;
  std::string in_place = fmt::format("{}_{}", target.substr(0, dot), target.substr(dot));
  return aten_overload_known(in_place);
}

/// The write-backs of in-place changes of a view that stand for its base, each with the views the
/// change went through: the changed view, then those between it and the base, outermost first.
using NewBases = std::unordered_map<const Node*, std::vector<const Node*>>;

/// Whether `u` views `input` as `like` views its own: the same view op, of the same shape (a view
/// made again from a new base).
bool views_as(const Node& u, const Node& input, const Node& like) {
  return first_input(u) == &input && u.target() == like.target() && same_shape(u, like);
}

/// The view an in-place call changed, and the views between it and its base, outermost first
/// (the base itself last): where `op_node` is the functional form of an op that changed a view
/// in place (it takes the view first and keeps its shape); empty otherwise. A node that wrote an
/// earlier change back to the base (`new_bases`) stands for the base.
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

/// Whether no op after `op_node` on its line of the model computes something, views and their
/// write-backs aside: a line's in-place op is its last (`x[i] = f(x[i])`: f reads a view first,
/// the copy changes it).
bool last_op_of_its_line(const Node& op_node) {
  for (const Node* m = op_node.next(); m != nullptr && same_line(*m, op_node); m = m->next()) {
    std::string_view target = m->target().view();
    if (m->op() == OpKind::CallFunction && !is_alias(*m) && !target.ends_with("_scatter.default") &&
        target != "aten.detach.default")
      return false;
  }
  return true;
}

/// Whether `n`, of the base's shape, is a write-back the way its neighbour in FX's numbering shows
/// it (`view_17` for `view_16`): functionalization makes the changed view again from the new base
/// right after writing an in-place change back, so that node either died or views `n` in the
/// changed view's shape. (The sign of an in-place change a line's code hides, such as
/// nn.ReLU(inplace=True)'s, where the graph has no autograd sequence numbers: a printed one.)
bool views_changed_view_again(const Graph& g, const std::vector<const Node*>& chain,
                              const Node& n) {
  if (!same_shape(n, *chain.back())) return false;
  auto [base, number] = fx_base_and_number(n.name());
  const Node* after = g.find(fmt::format("{}_{}", base, number + 1));
  return after == nullptr ||
         (is_alias(*after) && first_input(*after) == &n && same_shape(*after, *chain.front()));
}

/// Whether `n` is one of the nodes the in-place change of a view (`call`, whose view chain is
/// `chain`) made to write the result back to the base and view it again: a view or a scatter of
/// the call's nodes or of the chain, made on the same line of the model (the same autograd
/// sequence number where the graph has them; else the same traceback, whose code changes a
/// tensor in place).
bool writes_back(const Graph& g, const CallBuilder& call, const std::vector<const Node*>& chain,
                 const Node& n) {
  if (chain.empty()) return false;
  if (!is_alias(n) && !n.target().view().ends_with("_scatter.default")) return false;
  auto ours = [&](const Node* u) {
    return std::ranges::find(call.call.nodes, u) != call.call.nodes.end() ||
           std::ranges::find(chain, u) != chain.end();
  };
  if (!std::ranges::any_of(n.input_nodes(), ours)) return false;
  const Node& op_node = *call.call.nodes.front();
  // It has the shape of the base or of a view on the way to it. (Tensors that need no gradient
  // share one autograd sequence number: Inkling's clamp of an index, then its expand.)
  if (!same_shape(n, op_node) &&
      std::ranges::none_of(chain, [&](const Node* v) { return same_shape(n, *v); }))
    return false;
  if (op_node.meta.seq_nr() && n.meta.seq_nr()) return op_node.meta.seq_nr() == n.meta.seq_nr();
  if (op_node.meta.stack_trace.is_null() || n.meta.stack_trace.is_null()) return true;
  if (!same_line(op_node, n)) return false;
  return in_place_code(n) ? last_op_of_its_line(op_node) : views_changed_view_again(g, chain, n);
}

/// The calls whose every node died that a region makes before the first node of an op in it
/// (`stack` before `stack_1`: Mamba's scan drops a state), keyed by that node. FX's numbering
/// shows the numbers skipped since the op's previous node, but not whether those calls were the
/// region's, the previous region's after its last node of the op (RWKV's loop drops its last
/// state) or the code's between them (the masks before the first layer). Regions that run one
/// layer's code call an op equally often, so each region of a run leads with as many as the
/// run's first: no more than were skipped before it, nor than between any two of its regions.
std::unordered_map<const Node*, long long> leading_dead_calls(const Graph& g) {
  std::unordered_map<std::string_view, std::vector<const Node*>> by_base;
  for (const Node* n : g.nodes()) by_base[fx_base_and_number(n->name()).first].push_back(n);
  auto number = [](const Node* n) { return fx_base_and_number(n->name()).second; };
  auto region = [](const Node* n) {
    return n->op() == OpKind::CallFunction ? n->meta.ac_graph_id() : std::nullopt;
  };
  std::unordered_map<const Node*, long long> out;
  for (auto& [base, nodes] : by_base) {
    // The numbers skipped before nodes[k] since nodes[k - 1], or since the first of the base.
    auto skipped = [&](size_t k) {
      return number(nodes[k]) -
             (k > 0 ? number(nodes[k - 1]) + 1 : (is_reserved_python_name(base) ? 1 : 0));
    };
    // The first node of the base in each region of a run (regions with no node between them).
    std::vector<size_t> firsts;
    auto close_run = [&] {
      if (firsts.size() < 2) return;  // one region: nothing tells its dead calls apart
      long long leading = skipped(firsts.front());
      for (size_t i = 1; i < firsts.size(); ++i) leading = std::min(leading, skipped(firsts[i]));
      for (size_t k : firsts) out.emplace(nodes[k], leading);
    };
    for (size_t k = 0; k < nodes.size(); ++k) {
      if (!region(nodes[k])) {
        close_run();
        firsts.clear();
      } else if (k == 0 || region(nodes[k - 1]) != region(nodes[k])) {
        firsts.push_back(k);
      }
    }
    close_run();
  }
  return out;
}

/// Reads the calls off the joint, node by node in the order PyTorch made them (region_calls).
class CallReader {
 public:
  explicit CallReader(const GraphModule& joint)
      : g_(joint.graph()),
        grad_(requiring_grad(joint)),
        remade_(g_),
        changed_(g_),
        leading_(leading_dead_calls(g_)),
        tracebacks_(std::ranges::any_of(g_.nodes(), [](const Node* n) {
          return n->meta.ac_graph_id() && !n->meta.stack_trace.is_null();
        })) {}

  RegionCalls read() && {
    for (const Node* n : g_.nodes()) {
      const Node*& last = last_of_base_[fx_base_and_number(n->name()).first];
      const Node* previous = std::exchange(last, n);
      if (n->op() == OpKind::CallFunction && n->meta.ac_graph_id()) visit(*n, previous);
    }
    close_last_call(nullptr);
    std::map<std::pair<int64_t, std::string>, int64_t> counts;
    for (CallBuilder& c : calls_) {
      c.call.index = counts[{c.call.region, c.call.op}]++;
      out_.calls.push_back(std::move(c.call));
    }
    return std::move(out_);
  }

 private:
  /// A region node; `previous`: the node made before it with the same name base.
  void visit(const Node& n, const Node* previous) {
    int64_t region = *n.meta.ac_graph_id();
    if (is_getitem(n) && !n.args().empty() && n.args()[0].is_node()) {
      auto parent = call_of_.find(n.args()[0].as_node());
      if (parent != call_of_.end()) return join(n, parent->second);
    }
    // (Selective checkpointing detaches a call's output inside the call: the detach's
    // original_aten is the call's op, its tag PREFER_RECOMPUTE.)
    if (n.target().view() == "aten.detach.default") return detaches_.push_back(&n);
    std::optional<std::string> made_by = original_aten(n);
    std::string op = made_by.value_or(std::string(n.target().view()));
    if (unseen_op(op)) return out_.unseen.push_back(&n);
    if (!calls_.empty() && calls_.back().call.region == region && !calls_.back().call.remade &&
        writes_back(g_, calls_.back(), chain_, n)) {
      for (const Node* d : detaches_) join(*d, calls_.size() - 1);  // made inside the call
      detaches_.clear();
      join(n, calls_.size() - 1);
      calls_.back().wrote_back = true;
      if (same_shape(n, *chain_.back())) new_bases_[&n].assign(chain_.begin(), chain_.end() - 1);
      return;
    }
    bool remade =
        (named_like_remade(g_, n) || continues_remade_chain(n)) && views_changed_tensor(n);
    if (remade) {
      out_.remade.push_back(&n);
      remade_.insert(&n);
      // A remade chain views the changed tensor again, view by view: only its last view is the
      // output of the call the chain was made for.
      if (views_last_remade(n)) {
        const Node* earlier = calls_.back().call.nodes.front();
        call_of_.erase(earlier);
        // The chain's earlier view is the changed view made again from the write-back, no call's
        // output; or the output of a view call whose own node died (MoE routers'
        // `mask.unsqueeze(-1).expand(...).reshape(...)` after `mask.scatter_`, HY-v4's transpose
        // of a tensor an item assignment changed): a dead call.
        if (remakes_changed_view(*earlier)) {
          calls_.pop_back();
        } else {
          calls_.back().call.nodes.clear();
          calls_.back().call.remade = false;
        }
      }
    }
    if (calls_.empty() || remade || !continues(calls_.back(), n, region, made_by)) {
      close_last_call(&n, remade);
      if (!remade) add_dead_calls(n, previous, op);
      changes_before_.emplace(&n, in_place_calls_);
      calls_.push_back({{region, op, 0, {}, remade}, n.meta.seq_nr(), made_by.has_value()});
      chain_ = changed_view_chain(n, new_bases_);
    }
    join(n, calls_.size() - 1);
    calls_.back().has_own_node = calls_.back().has_own_node || n.target().view() == op;
  }

  void join(const Node& n, size_t call) {
    calls_[call].call.nodes.push_back(&n);
    call_of_.emplace(&n, call);
  }

  /// Whether `v` is one of the views an in-place call changed (the changed view, or a view between
  /// it and its base) made again from the write-back: remade views from the new base down to `v`,
  /// each the same view op of the same shape as the chain's view at its depth.
  bool remakes_changed_view(const Node& v) const {
    size_t depth = 1;
    const Node* u = first_input(v);
    for (; u != nullptr && !new_bases_.contains(u); u = first_input(*u), ++depth)
      if (!remade_.contains(u)) return false;
    if (u == nullptr) return false;
    const std::vector<const Node*>& views = new_bases_.at(u);
    return depth <= views.size() && views_as(v, *first_input(v), *views[views.size() - depth]);
  }

  /// Whether a new base that `call` wrote back has a view like `v` (the same view op, of the same
  /// shape) that no view like `inner` (the chain's next view towards the changed one) reads: `v`,
  /// a view the call's change went through, made again to be read (not on the way to making the
  /// changed view again: LongT5's `scores += position_bias` through einsum's views).
  bool read_again(const CallBuilder& call, const Node& v, const Node& inner) const {
    for (const Node* base : call.call.nodes) {
      if (!new_bases_.contains(base)) continue;
      for (const Node* u : base->users())
        if (views_as(*u, *base, v) && std::ranges::none_of(u->users(), [&](const Node* w) {
              return views_as(*w, *u, inner);
            }))
          return true;
    }
    return false;
  }

  /// Whether `n` views the only node of the last call, a remade view.
  bool views_last_remade(const Node& n) const {
    return !calls_.empty() && calls_.back().call.remade && calls_.back().call.nodes.size() == 1 &&
           first_input(n) == calls_.back().call.nodes.front();
  }

  /// Whether `n` is the next view of a remade chain though FX numbered it right after the chain's
  /// last (the chain a detach makes: selective checkpointing detaches a call's output after the
  /// policy tagged the call, and functionalization makes that output anew first, from the changed
  /// base). A call of the model on the remade view comes after that detach, not right after.
  bool continues_remade_chain(const Node& n) const {
    return is_alias(n) && views_last_remade(n) && n.prev() == calls_.back().call.nodes.front();
  }

  /// An in-place call's op is the last of its line (`x[i] = f(y)`: f first): `next`, the node
  /// after it, comes from another.
  static bool changes_in_place(const Node& op_node, const Node* next) {
    return in_place_code(op_node) && (next == nullptr || !same_line(*next, op_node));
  }

  /// Whether `n`'s tensor was changed in place, as a remade view's was: through its views and
  /// detaches, it reads an in-place call's node. Without tracebacks, nothing tells: any may be.
  bool views_changed_tensor(const Node& n) const {
    if (!tracebacks_) return true;
    for (const Node* v = first_input(n); v != nullptr; v = first_input(*v)) {
      if (changed_.contains(v)) return true;
      if (!calls_.empty() && !calls_.back().call.nodes.empty() &&
          std::ranges::find(calls_.back().call.nodes, v) != calls_.back().call.nodes.end() &&
          changes_in_place(*calls_.back().call.nodes.front(), &n))
        return true;
      if (!is_alias(*v) && v->target().view() != "aten.detach.default") return false;
    }
    return false;
  }

  /// What the last call made after its own nodes: after an in-place change of a view whose result
  /// requires grad, autograd views the new base again, op by op from the base (calls the policy
  /// sees, whose nodes die); and functionalization makes the changed tensor's detach anew, in the
  /// first of those calls or else in the in-place call itself, but for the detach a remade view
  /// reads (`next_remade`: made with it, after a policy's tag). Every other detach is selective
  /// checkpointing's own. `next`: the node after the call's (none at the end).
  void close_last_call(const Node* next, bool next_remade = false) {
    if (!calls_.empty() && !calls_.back().call.nodes.empty()) {
      size_t changer = calls_.size() - 1;
      const Node* op_node = calls_[changer].call.nodes.front();
      bool in_place = changes_in_place(*op_node, next);
      if (in_place || calls_[changer].wrote_back) ++in_place_calls_;
      std::vector<const Node*> anew;
      if (in_place) {
        const std::vector<const Node*>& made = calls_[changer].call.nodes;
        std::erase_if(detaches_, [&](const Node* d) {
          bool of_ours = first_input(*d) != nullptr &&
                         std::ranges::find(made, first_input(*d)) != made.end() &&
                         !(next_remade && first_input(*next) == d);
          if (of_ours) anew.push_back(d);
          return of_ours;
        });
      }
      size_t owner = changer;
      if (calls_[changer].wrote_back && grad_.contains(op_node)) {
        int64_t region = calls_[changer].call.region;
        auto view_again = [&](size_t down_to) {
          for (size_t i = chain_.size() - 1; i-- > down_to;)
            calls_.push_back({{region, std::string(chain_[i]->target().view()), 0, {}, false}, {}});
        };
        view_again(0);
        if (calls_.size() - 1 > changer) owner = changer + 1;
        // A view the change went through that the model reads again is viewed again from the
        // base when it is (HY-v4's keys after `keys[..., :4] = ...`): the write-back's remade
        // view of it shows that read.
        for (size_t j = 1; j + 1 < chain_.size(); ++j)
          if (read_again(calls_[changer], *chain_[j], *chain_[j - 1])) view_again(j);
      }
      // A write-back shows an in-place change the code's line does not (nn.ReLU(inplace=True)).
      if (in_place || calls_[changer].wrote_back)
        for (const Node* m : calls_[changer].call.nodes) changed_.insert(m);
      calls_[changer].wrote_back = false;
      for (const Node* d : anew) join(*d, owner);
    }
    out_.unseen.insert(out_.unseen.end(), detaches_.begin(), detaches_.end());
    detaches_.clear();
  }

  /// Calls of an op whose every node died (an unused projection) leave their numbers unused: the
  /// calls between two nodes of one op in a region are as many as FX numbered between them, but
  /// for views after an in-place change (functionalization numbers the views it makes again);
  /// before its first node in the region, leading_dead_calls.
  void add_dead_calls(const Node& n, const Node* previous, const std::string& op) {
    if (n.target().view() != op) return;
    long long dead = 0;
    if (previous != nullptr && previous->meta.ac_graph_id()) {
      // After a node another call made (a write-back of an in-place change, in RWKV's loop), the
      // numbers count the views functionalization makes again, not calls.
      auto call = call_of_.find(previous);
      if (call == call_of_.end() || calls_[call->second].call.op != op) return;
    }
    if (previous != nullptr && previous->meta.ac_graph_id() == n.meta.ac_graph_id()) {
      auto changes = changes_before_.find(previous);
      if (is_alias(n) && (changes == changes_before_.end() || changes->second != in_place_calls_))
        return;
      dead = fx_base_and_number(n.name()).second - fx_base_and_number(previous->name()).second - 1;
    } else if (auto leading = leading_.find(&n); leading != leading_.end()) {
      dead = leading->second;  // the first node of its op in this region
    }
    for (long long i = 0; i < dead; ++i)
      calls_.push_back({{*n.meta.ac_graph_id(), op, 0, {}, false}, {}});
  }

  const Graph& g_;
  NodeSet grad_;  // requiring_grad
  NewBases new_bases_;
  NodeSet remade_;   // out_.remade
  NodeSet changed_;  // the nodes of in-place calls: the changed tensor, anew
  std::unordered_map<const Node*, long long> leading_;  // leading_dead_calls
  bool tracebacks_;
  std::vector<CallBuilder> calls_;
  std::unordered_map<const Node*, size_t> call_of_;
  std::vector<const Node*> chain_;     // the last call's changed_view_chain
  std::vector<const Node*> detaches_;  // since the last call's own nodes: whose they are is open
  int64_t in_place_calls_ = 0;
  std::unordered_map<std::string_view, const Node*> last_of_base_;
  std::unordered_map<const Node*, int64_t> changes_before_;  // in-place calls before a call
  RegionCalls out_;
};

}  // namespace

RegionCalls region_calls(const GraphModule& joint) {
  return CallReader(joint).read();
}

}  // namespace remat::partition
