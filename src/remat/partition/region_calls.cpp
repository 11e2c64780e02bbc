#include "remat/partition/region_calls.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "remat/ir/node_set.h"
#include "remat/ops/storage_root.h"
#include "remat/partition/dead_calls.h"
#include "remat/partition/region_nodes.h"

namespace remat::partition {
namespace {

using namespace reading;  // NOLINT(google-build-using-namespace): the reading's own pieces

struct CallBuilder {
  RegionCalls::Call call;
  std::optional<int64_t> seq_nr;
  bool from_meta = false;     // `op` came from original_aten
  bool has_own_node = false;  // a node whose target is `op` itself
  bool wrote_back = false;    // an in-place change of a view, and the nodes that wrote it back
  const Node* dead_view = nullptr;  // the remade view whose call's own node died, if that's this
  const Node* before = nullptr;     // made right before the call of this later node
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

/// Whether FX numbered `n` right after the call's last node of its op since the op's own, if it
/// has one: a write-back's nodes are made one after the other. (Tensors that need no gradient share
/// one autograd sequence number: Longformer's mask of its windows, whose view after an item
/// assignment is sliced again, views of the write-back numbered later.)
bool numbered_next(const CallBuilder& call, const Node& n) {
  auto [base, number] = fx_base_and_number(n.name());
  const Node& op_node = *call.call.nodes.front();
  for (auto m = call.call.nodes.rbegin(); m != call.call.nodes.rend(); ++m)
    if (auto [b, k] = fx_base_and_number((*m)->name()); b == base && !(*m)->is_before(&op_node))
      return number == k + 1;
  return true;
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
  if (op_node.meta.seq_nr() && n.meta.seq_nr())
    return op_node.meta.seq_nr() == n.meta.seq_nr() && numbered_next(call, n);
  if (op_node.meta.stack_trace.is_null() || n.meta.stack_trace.is_null()) return true;
  if (!same_line(op_node, n)) return false;
  return in_place_code(n) ? last_op_of_its_line(op_node) : views_changed_view_again(g, chain, n);
}

/// Reads the calls off the joint, node by node in the order PyTorch made them (region_calls).
class CallReader {
 public:
  /// `views_made_again`: a first reading's (its dead calls at regions' ends are not read yet);
  /// `stale`: the joint's stale_view_chains, which both readings share.
  CallReader(const GraphModule& joint, const ViewsMadeAgain& views_made_again,
             const StaleViewChains& stale)
      : g_(joint.graph()),
        grad_(requiring_grad(joint)),
        remade_(g_),
        changed_(g_),
        stale_(stale),
        dead_at_ends_(dead_calls_at_ends(g_, views_made_again, stale_)),
        tracebacks_(std::ranges::any_of(g_.nodes(), [](const Node* n) {
          return n->meta.ac_graph_id() && !n->meta.stack_trace.is_null();
        })) {
    // By (the first view like a view's tensor, or the tensor; op): the first views like each.
    std::map<std::pair<const Node*, std::string_view>, std::vector<const Node*>> views_of;
    for (const Node* n : g_.nodes()) {
      if (!is_alias(*n) || !n->meta.ac_graph_id()) continue;
      view_ops_[&alias_root(*n)].push_back(n);
      const Node* in = first_input(*n);
      if (auto like = first_like_.find(in); like != first_like_.end()) in = like->second;
      const Node*& first = first_like_[n];
      first = n;
      std::vector<const Node*>& earlier = views_of[{in, n->target().view()}];
      auto like = std::ranges::find_if(earlier, [&](const Node* e) { return same_view(*n, *e); });
      if (like != earlier.end())
        first = *like;
      else
        earlier.push_back(n);
    }
  }

  RegionCalls read() && {
    visit_all();
    add_trailing_dead_calls();
    place_calls_made_before();
    std::map<std::pair<int64_t, std::string>, int64_t> counts;
    for (CallBuilder& c : calls_) {
      c.call.index = counts[{c.call.region, c.call.op}]++;
      out_.calls.push_back(std::move(c.call));
    }
    return std::move(out_);
  }

  ViewsMadeAgain views_made_again() && {
    visit_all();
    return std::move(views_made_again_);
  }

 private:
  void visit_all() {
    for (const Node* n : g_.nodes()) {
      const Node*& last = last_of_base_[fx_base_and_number(n->name()).first];
      const Node* previous = std::exchange(last, n);
      if (n->op() == OpKind::CallFunction && n->meta.ac_graph_id()) visit(*n, previous);
    }
    close_last_call(nullptr);
  }

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
    if (synced_by_next_in_place(n)) return synced_.push_back(&n);
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
        // of a tensor an item assignment changed): a dead call; unless it and the chain's views
        // before it are made again like a view the model holds, which earlier calls made
        // (Longformer's `input_tensor`, a view and a transpose read by `new_ones`, made again for
        // each slice of it): no calls (not so a view made anew like one that was not read:
        // ChunkedDelta's `attn[..., i, :i]` read, then assigned).
        if (remakes_changed_view(*earlier)) {
          calls_.pop_back();
          remade_chain_.of_calls = false;
        } else if (remakes_a_held_view(*earlier)) {
          calls_.pop_back();
          remade_chain_.of_calls = false;
          auto of_chain = [&](const CallBuilder& c) {
            return c.dead_view != nullptr && std::ranges::any_of(remade_chain_.views, [&](auto& v) {
                     return v.first == c.dead_view;
                   });
          };
          auto first = std::ranges::find_if(calls_, of_chain);
          size_t at = static_cast<size_t>(first - calls_.begin());
          std::erase_if(calls_, of_chain);
          renumber_calls_from(at);
        } else {
          calls_.back().call.nodes.clear();
          calls_.back().call.remade = false;
          calls_.back().dead_view = earlier;
        }
      } else {
        close_remade_chain();
      }
      remade_chain_.views.emplace_back(&n, previous);
    }
    if (calls_.empty() || remade || !continues(calls_.back(), n, region, made_by)) {
      close_last_call(&n, remade);
      if (!remade) {
        close_remade_chain();
        add_dead_calls(n, previous, op);
      }
      changes_before_.emplace(&n, in_place_changes_[n.target().view()]);
      calls_.push_back({{region, op, 0, {}, remade}, n.meta.seq_nr(), made_by.has_value()});
      if (remade && remade_chain_.views.size() == 1) remade_chain_.first_call = calls_.size() - 1;
      chain_ = changed_view_chain(n, new_bases_);
    }
    join(n, calls_.size() - 1);
    for (const Node* v : synced_) join(*v, calls_.size() - 1);
    synced_.clear();
    calls_.back().has_own_node = calls_.back().has_own_node || n.target().view() == op;
  }

  /// Whether `n` views again, from the write-back of an earlier in-place change, a tensor the
  /// in-place op right after it changes or reads (Longformer's `attn_scores += diagonal_mask`,
  /// both views of tensors changed by item assignments): functionalization brings those views up
  /// to date inside the in-place call, whose nodes they are.
  bool synced_by_next_in_place(const Node& n) const {
    if (!is_alias(n) || !tracebacks_) return false;
    const Node* x = n.next();
    while (x != nullptr && is_alias(*x) && x->meta.ac_graph_id() == n.meta.ac_graph_id())
      x = x->next();
    if (x == nullptr || x->meta.ac_graph_id() != n.meta.ac_graph_id() || is_alias(*x) ||
        !in_place_code(*x) || !has_in_place_form(*x) || !last_op_of_its_line(*x) ||
        x->target().view().ends_with("_scatter.default") ||
        x->target().view() == "aten.copy.default")
      return false;
    const Node* root = &n;
    while (is_alias(*root) && !new_bases_.contains(root)) root = first_input(*root);
    if (!new_bases_.contains(root)) return false;
    for (const Node* in : x->input_nodes())
      for (const Node* v = in; v != nullptr && is_alias(*v); v = first_input(*v))
        if (v == &n) return true;
    return false;
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

  /// Whether a new base that `call` wrote back has, down the chain of views the change went
  /// through (`chain_`, each view like the chain's at its depth), a view like `chain_[j]` that no
  /// view like `chain_[j - 1]` (the next towards the changed one) reads: a view the change went
  /// through, made again to be read (not on the way to making the changed view again: LongT5's
  /// `scores += position_bias` through einsum's views; Longformer's `input_tensor`, sliced after
  /// an item assignment to another slice, and changed in place by `attn_scores += ...`).
  /// Returns the first of those views made again (the read happens there), or none.
  const Node* read_again(const CallBuilder& call, size_t j) const {
    for (const Node* base : call.call.nodes) {
      if (!new_bases_.contains(base)) continue;
      std::vector<std::pair<const Node*, const Node*>> level{{base, nullptr}};  // with its top
      for (size_t i = chain_.size() - 1; i-- > j;) {
        std::vector<std::pair<const Node*, const Node*>> below;
        for (auto [p, top] : level)
          for (const Node* u : p->users())
            if (views_as(*u, *p, *chain_[i])) below.emplace_back(u, top ? top : u);
        level = std::move(below);
      }
      for (auto [u, top] : level)
        if (std::ranges::none_of(u->users(),
                                 [&](const Node* w) { return views_as(*w, *u, *chain_[j - 1]); }))
          return top;
    }
    return nullptr;
  }

  /// Whether `v` is made again like an earlier remade view that is read as a value (the same view
  /// op with the same arguments and shape, of the same tensor or of an earlier view like `v`'s).
  bool remakes_a_held_view(const Node& v) const {
    const Node* like = first_like_.at(&v);
    return like != &v && remade_.contains(like) &&
           std::ranges::any_of(like->users(), [](const Node* u) { return !is_alias(*u); });
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
  /// after it, comes from another; or the line goes on from the changed tensor anew, which
  /// functionalization detaches (PhiMoE's `torch.empty_like(g).exponential_().log()`: a call's
  /// own output is detached for no later op of the forward).
  static bool changes_in_place(const Node& op_node, const Node* next) {
    if (!in_place_code(op_node) || !has_in_place_form(op_node)) return false;
    if (next == nullptr || !same_line(*next, op_node)) return true;
    const Node* read = first_input(*next);
    return read != nullptr && read->target().view() == "aten.detach.default" &&
           first_input(*read) == &op_node;
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
      if (in_place || calls_[changer].wrote_back) count_views_made_again(calls_[changer]);
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
        auto view_again = [&](size_t down_to, const Node* before) {
          for (size_t i = chain_.size() - 1; i-- > down_to;) {
            calls_.push_back({{region, std::string(chain_[i]->target().view()), 0, {}, false}, {}});
            calls_.back().before = before;
          }
        };
        view_again(0, nullptr);
        if (calls_.size() - 1 > changer) owner = changer + 1;
        // A view the change went through that the model reads again is viewed again from the
        // base when it is (HY-v4's keys after `keys[..., :4] = ...`; Longformer's `input_tensor`
        // sliced after an item assignment to a slice of it): the write-back's remade view of it
        // shows that read. Where an in-place op changes it (`attn_scores += ...`, maybe much
        // later), that op's call brings it up to date: the calls come right before it.
        for (size_t j = 1; j + 1 < chain_.size(); ++j)
          if (const Node* read = read_again(calls_[changer], j))
            view_again(j, synced_by_next_in_place(*read) ? read : nullptr);
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

  /// The dead calls a region makes after an op's last node in it (dead_calls_at_ends), last in
  /// the region (after every live call of the op); but not where the region's in-place calls may
  /// have made views of the op again after that node (the numbers are those views). The last node
  /// may be a remade view whose call died (a chain's first view).
  void add_trailing_dead_calls() {
    std::map<int64_t, std::vector<std::string>> dead;  // by region: each dead call's op
    for (const Node* n : g_.nodes()) {
      auto t = dead_at_ends_.trailing.find(n);
      if (t == dead_at_ends_.trailing.end() || t->second == 0 || is_getitem(*n) ||
          unseen_op(n->target().view()) || made_again_after(views_made_again_, *n))
        continue;
      std::string op(n->target().view());
      if (original_aten(*n).value_or(op) != op) continue;  // a node of another op's call
      dead[*n->meta.ac_graph_id()].insert(dead[*n->meta.ac_graph_id()].end(), t->second, op);
    }
    std::vector<CallBuilder> calls;
    for (size_t i = 0; i < calls_.size(); ++i) {
      int64_t region = calls_[i].call.region;
      calls.push_back(std::move(calls_[i]));
      if (i + 1 < calls_.size() && calls_[i + 1].call.region == region) continue;
      for (std::string& op : dead[region])
        calls.push_back({{region, std::move(op), 0, {}, false}, {}});
      dead.erase(region);
    }
    calls_ = std::move(calls);
  }

  /// Moves the calls made before a later node's where that node's call is (CallBuilder::before):
  /// the dead calls of stale view chains' earlier views, where their numbers put them
  /// (StaleViewChains), and the views autograd makes again when the model reads a view an
  /// in-place change went through.
  void place_calls_made_before() {
    for (CallBuilder& c : calls_)
      if (c.dead_view)
        if (auto at = stale_.made_before.find(c.dead_view); at != stale_.made_before.end())
          c.before = at->second;
    std::vector<CallBuilder> moved, kept;
    for (CallBuilder& c : calls_) (c.before ? moved : kept).push_back(std::move(c));
    if (moved.empty()) {
      calls_ = std::move(kept);
      return;
    }
    std::ranges::stable_sort(moved, [](const CallBuilder& a, const CallBuilder& b) {
      return a.before != b.before && a.before->is_before(b.before);
    });
    calls_.clear();
    auto next = moved.begin();
    for (CallBuilder& c : kept) {
      for (; next != moved.end() && !c.call.nodes.empty() &&
             !c.call.nodes.front()->is_before(next->before);
           ++next)
        calls_.push_back(std::move(*next));
      calls_.push_back(std::move(c));
    }
    for (; next != moved.end(); ++next) calls_.push_back(std::move(*next));
  }

  /// A chain of remade views of calls ends (the next node is no view of its last):
  /// functionalization made each view again for every later call of the chain (Bailing-hybrid's
  /// `core_attn_out.reshape(...)[:, :, :n].transpose(1, 2).contiguous()`: the reshape's view three
  /// times), so FX numbered the j-th of m views once for its call and m - j times more. The
  /// numbers skipped before those are calls of the view's op whose every node died (the dead
  /// state update before the reshape), where the chain views the changed tensor anew (the detach
  /// functionalization makes of it) with one view of each op; a chain that makes the changed view
  /// again from the write-back (`attn[..., i, :i]` read after `attn[..., i - 1, :i - 1] = ...`)
  /// numbers more views than these.
  void close_remade_chain() {
    size_t m = remade_chain_.views.size(), first_call = remade_chain_.first_call;
    std::vector<CallBuilder> before_chain;
    std::map<std::string_view, int> views_of_base;
    for (auto [view, before] : remade_chain_.views)
      ++views_of_base[fx_base_and_number(view->name()).first];
    const Node* read = m > 0 ? first_input(*remade_chain_.views[0].first) : nullptr;
    bool anew = read != nullptr && read->target().view() == "aten.detach.default";
    for (size_t j = 0; j < m && remade_chain_.of_calls; ++j) {
      auto [view, before] = remade_chain_.views[j];
      long long taken = static_cast<long long>(m - j + 1);
      numbered_.emplace(view, std::pair{before, taken});
      anew = anew && views_of_base[fx_base_and_number(view->name()).first] == 1;
      if (!anew) continue;
      const Node* q = before;
      for (auto r = numbered_.find(q); r != numbered_.end(); r = numbered_.find(q)) {
        taken += r->second.second;
        q = r->second.first;
      }
      if (q == nullptr || q->meta.ac_graph_id() != view->meta.ac_graph_id()) continue;
      auto call = call_of_.find(q);
      if (call == call_of_.end() || calls_[call->second].call.op != view->target().view()) continue;
      long long dead =
          fx_base_and_number(view->name()).second - fx_base_and_number(q->name()).second - taken;
      for (long long i = 0; i < dead; ++i)
        before_chain.push_back(
            {{*view->meta.ac_graph_id(), std::string(view->target().view()), 0, {}, false}, {}});
    }
    remade_chain_ = {};
    if (before_chain.empty()) return;
    // (They come before the chain's calls: shift those.)
    size_t at = std::min(first_call, calls_.size());
    calls_.insert(calls_.begin() + static_cast<std::ptrdiff_t>(at), before_chain.begin(),
                  before_chain.end());
    renumber_calls_from(at + before_chain.size());
  }

  /// call_of_ again for the calls from `at` on, after calls before them came or went.
  void renumber_calls_from(size_t at) {
    for (size_t i = at; i < calls_.size(); ++i)
      for (const Node* n : calls_[i].call.nodes) call_of_[n] = i;
  }

  /// Counts an in-place call in in_place_changes_ for each view op of the tensor it changed in its
  /// region, before and after (views of the base and of the nodes that wrote the change back).
  void count_views_made_again(const CallBuilder& call) {
    std::vector<std::string_view> ops;
    auto add_views_of = [&](const Node& n) {
      if (auto views = view_ops_.find(&alias_root(n)); views != view_ops_.end())
        for (const Node* v : views->second)
          if (v->meta.ac_graph_id() == call.call.region) ops.push_back(v->target().view());
    };
    if (const Node* changed = first_input(*call.call.nodes.front())) add_views_of(*changed);
    for (const Node* m : call.call.nodes) add_views_of(*m);
    std::ranges::sort(ops);
    auto [end, _] = std::ranges::unique(ops);
    for (auto op = ops.begin(); op != end; ++op) {
      ++in_place_changes_[*op];
      views_made_again_[{call.call.region, *op}] = call.call.nodes.front();
    }
  }

  /// Calls of an op whose every node died (an unused projection) leave their numbers unused: the
  /// calls between two nodes of one op in a region are as many as FX numbered between them, but
  /// for views after an in-place change (functionalization numbers the views it makes again);
  /// before its first node in the region, dead_calls_at_ends.
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
      if (is_alias(n) && (changes == changes_before_.end() ||
                          changes->second != in_place_changes_[n.target().view()]))
        return;
      auto [base, number] = fx_base_and_number(n.name());
      long long from = fx_base_and_number(previous->name()).second;
      dead = number - from - 1 - stale_.between(base, from, number);
    } else if (auto leading = dead_at_ends_.leading.find(&n);
               leading != dead_at_ends_.leading.end()) {
      dead = leading->second;  // the first node of its op in this region
    }
    for (long long i = 0; i < dead; ++i)
      calls_.push_back({{*n.meta.ac_graph_id(), op, 0, {}, false}, {}});
  }

  const Graph& g_;
  NodeSet grad_;  // requiring_grad
  struct RemadeChain {
    std::vector<std::pair<const Node*, const Node*>> views;  // each with its op's node before it
    bool of_calls = true;   // each view a call's output (none the changed view made again)
    size_t first_call = 0;  // in calls_: the call of its first view
  } remade_chain_;          // the remade views since the last call of the model's
  // By remade view of a call: its op's node before it, and the numbers FX gave its call and remakes
  std::unordered_map<const Node*, std::pair<const Node*, long long>> numbered_;
  NewBases new_bases_;
  NodeSet remade_;   // out_.remade
  NodeSet changed_;  // the nodes of in-place calls: the changed tensor, anew
  const StaleViewChains& stale_;
  DeadCallsAtEnds dead_at_ends_;
  bool tracebacks_;
  std::vector<CallBuilder> calls_;
  std::unordered_map<const Node*, size_t> call_of_;
  std::vector<const Node*> chain_;     // the last call's changed_view_chain
  std::vector<const Node*> detaches_;  // since the last call's own nodes: whose they are is open
  std::vector<const Node*> synced_;    // views the next call, in place, brings up to date
  // By view op: the in-place calls so far that changed a tensor with a view of that op, which
  // functionalization may have made again (numbering it).
  std::unordered_map<std::string_view, int64_t> in_place_changes_;
  std::unordered_map<const Node*, std::vector<const Node*>> view_ops_;  // region views by root
  std::unordered_map<const Node*, const Node*> first_like_;  // each region view: the first like it
  ViewsMadeAgain views_made_again_;
  std::unordered_map<std::string_view, const Node*> last_of_base_;
  // in_place_changes_ of a call's op before it
  std::unordered_map<const Node*, int64_t> changes_before_;
  RegionCalls out_;
};

}  // namespace

RegionCalls region_calls(const GraphModule& joint) {
  StaleViewChains stale = stale_view_chains(joint.graph());
  return CallReader(joint, CallReader(joint, {}, stale).views_made_again(), stale).read();
}

}  // namespace remat::partition
