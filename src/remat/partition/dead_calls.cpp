#include "remat/partition/dead_calls.h"

#include <algorithm>
#include <climits>
#include <optional>
#include <vector>

#include "remat/ir/naming.h"
#include "remat/partition/region_nodes.h"

namespace remat::partition::reading {

bool made_again_after(const ViewsMadeAgain& views_made_again, const Node& last) {
  auto changer = views_made_again.find({*last.meta.ac_graph_id(), last.target().view()});
  return changer != views_made_again.end() && last.is_before(changer->second);
}

StaleViewChains stale_view_chains(const Graph& g) {
  StaleViewChains out;
  auto base_of = [](const Node* n) { return fx_base_and_number(n->name()).first; };
  auto number = [](const Node* n) { return fx_base_and_number(n->name()).second; };
  std::unordered_map<std::string_view, std::vector<const Node*>> by_base;  // in graph order
  for (const Node* n : g.nodes()) by_base[base_of(n)].push_back(n);
  for (const Node* changed : g.nodes()) {
    if (!changed->meta.ac_graph_id() || changed->op() != OpKind::CallFunction ||
        is_alias(*changed) || changed->target().view() == "aten.detach.default" ||
        changed->target().view().ends_with("_scatter.default") ||
        changed->target().view() == "aten.copy.default" || !in_place_code(*changed) ||
        !has_in_place_form(*changed))
      continue;
    // The views read from it, one after the other: where it changed a view of a base, first the
    // write-back (a view of it as the base) and the changed view made again from that.
    std::vector<const Node*> chain;
    for (const Node* v = changed;;) {
      std::vector<const Node*> views;
      for (const Node* u : v->users())
        if (is_alias(*u) && first_input(*u) == v &&
            u->meta.ac_graph_id() == changed->meta.ac_graph_id())
          views.push_back(u);
      if (views.size() != 1) break;  // (two: no chain)
      chain.push_back(v = views[0]);
    }
    std::vector<const Node*> through = changed_view_chain(*changed, {});
    size_t remade = through.empty() ? 0 : through.size() - 1;  // the changed view's views
    const Node* write_back = nullptr;
    if (remade > 0) {
      if (chain.empty() || !same_shape(*chain[0], *through.back())) continue;
      write_back = chain[0];
      chain.erase(chain.begin());
    }
    if (chain.size() < remade + 2) continue;
    size_t m = chain.size() - remade;            // the model's view calls
    std::map<std::string_view, long long> next;  // the next free number of each base
    const Node* from = write_back ? write_back : changed;
    for (const Node* v : chain) {
      std::string_view base = base_of(v);
      if (next.contains(base)) continue;
      long long free = 0;
      for (const Node* u : by_base[base])
        if (u->is_before(from) || u == from) free = number(u) + 1;
      next[base] = free;
    }
    // The numbers each call takes, by base: the view call j its own node, then (not the last:
    // the chain is its remakes) the changed view's views and the calls' up to its own; the
    // in-place call (j = -1) the changed view's.
    auto takes = [&](long long j) {
      std::map<std::string_view, long long> t;
      if (j >= 0) ++t[base_of(chain[remade + j])];
      if (j + 1 < static_cast<long long>(m))
        for (size_t i = 0; i < remade + static_cast<size_t>(j + 1); ++i) ++t[base_of(chain[i])];
      return t;
    };
    // The live nodes of the chain's bases between the changed tensor and the chain, in order.
    std::vector<const Node*> live;
    for (const Node* n = from->next(); n != nullptr && n != chain[0]; n = n->next())
      if (next.contains(base_of(n))) live.push_back(n);
    auto bound = [&](size_t at, std::string_view base) {  // the next live number of `base`
      for (size_t k = at; k < live.size(); ++k)
        if (base_of(live[k]) == base) return number(live[k]);
      for (const Node* v : chain)
        if (base_of(v) == base) return number(v);
      return LLONG_MAX;
    };
    StaleViewChains found;
    auto place = [&](long long j) {
      for (auto [base, count] : takes(j))
        for (long long i = 0; i < count; ++i) found.numbered[base].insert(next[base]++);
    };
    long long j = remade > 0 ? -1 : 0;
    auto last = static_cast<long long>(m) - 1;
    for (size_t k = 0; k < live.size(); ++k) {
      for (; j < last; ++j) {
        auto t = takes(j);
        if (!std::ranges::all_of(
                t, [&](auto& c) { return next[c.first] + c.second <= bound(k, c.first); }))
          break;
        place(j);
        if (j >= 0) found.made_before.emplace(chain[remade + j], live[k]);
      }
      long long& free = next[base_of(live[k])];
      free = std::max(free, number(live[k]) + 1);
    }
    for (; j <= last; ++j) place(j);
    // The chain's remakes take the numbers right after: else the chain is not this.
    if (!std::ranges::all_of(next,
                             [&](auto& f) { return f.second == bound(live.size(), f.first); }))
      continue;
    out.made_before.merge(found.made_before);
    for (auto& [base, numbers] : found.numbered) out.numbered[base].merge(numbers);
  }
  return out;
}

DeadCallsAtEnds dead_calls_at_ends(const Graph& g, const ViewsMadeAgain& views_made_again,
                                   const StaleViewChains& stale) {
  std::unordered_map<std::string_view, std::vector<const Node*>> by_base;
  for (const Node* n : g.nodes()) by_base[fx_base_and_number(n->name()).first].push_back(n);
  auto number = [](const Node* n) { return fx_base_and_number(n->name()).second; };
  auto region = [](const Node* n) {
    return n->op() == OpKind::CallFunction ? n->meta.ac_graph_id() : std::nullopt;
  };
  // A run of regions for one base (no node of it outside them in between).
  struct Run {
    struct Part {
      const Node *first, *last;
      long long nodes;    // the base's nodes in the region
      long long skipped;  // the numbers skipped since the previous region (before the run: first)
      bool made_again = false;  // the numbers after `last` may be views made again
    };
    std::vector<Part> parts;
    std::optional<long long> after;  // the numbers skipped after it; none: no later node, or views
    long long before() const { return parts[0].skipped; }
    // The fewest skipped between two of its regions (none: views made again in each gap).
    std::optional<long long> between() const {
      std::optional<long long> b;
      for (size_t i = 1; i < parts.size(); ++i)
        if (!parts[i - 1].made_again) b = std::min(b.value_or(LLONG_MAX), parts[i].skipped);
      return b;
    }
    bool one_code() const {
      return std::ranges::all_of(parts, [&](const Part& p) { return p.nodes == parts[0].nodes; });
    }
    // The fewest and the most leading calls each region of one code may make.
    long long fewest() const { return after ? std::max(0LL, *between() - *after) : 0LL; }
    long long most() const { return std::min(before(), *between()); }
    // How many of the code before the run, leading, trailing and the code after the run made
    // dead calls if each region leads with `leading`.
    int sources(long long leading) const {
      long long trailing = *between() - leading;
      return (before() > leading) + (leading > 0) + (trailing > 0) + (after && *after > trailing);
    }
    // The leading calls that need the fewest sources, if one count does.
    std::optional<long long> simplest() const {
      std::optional<long long> best;
      int best_sources = 5;
      for (long long l = fewest(); l <= most(); ++l) {
        int n = sources(l);
        if (n < best_sources) {
          best = l;
          best_sources = n;
        } else if (n == best_sources) {
          best.reset();
        }
      }
      return best;
    }
    // Whether its dead calls' side is known, from FX's numbering alone: -1 leading, +1 trailing.
    int known_side() const {
      if (!between() || !one_code() || *between() == 0 || fewest() != most()) return 0;
      return most() == 0 ? 1 : most() == *between() ? -1 : 0;
    }
  };
  std::vector<Run> runs;
  for (auto& [base, nodes] : by_base) {
    // The numbers skipped before nodes[k] since nodes[k - 1], or since the first of the base.
    auto skipped = [&](size_t k) {
      long long from = k > 0 ? number(nodes[k - 1]) : (is_reserved_python_name(base) ? 0 : -1);
      return number(nodes[k]) - from - 1 - stale.between(base, from, number(nodes[k]));
    };
    Run run;
    auto close_run = [&](std::optional<long long> after) {
      if (run.parts.size() >= 2) {  // one region: nothing tells its dead calls apart
        for (Run::Part& p : run.parts) p.made_again = made_again_after(views_made_again, *p.last);
        if (!run.parts.back().made_again) run.after = after;
        runs.push_back(std::move(run));
      }
      run = Run{};
    };
    for (size_t k = 0; k < nodes.size(); ++k) {
      std::optional<int64_t> in = region(nodes[k]);
      if (!in) {
        if (!run.parts.empty()) close_run(skipped(k));
        continue;
      }
      if (k == 0 || region(nodes[k - 1]) != in)
        run.parts.push_back({nodes[k], nodes[k], 0, skipped(k)});
      run.parts.back().last = nodes[k];
      ++run.parts.back().nodes;
    }
    close_run(std::nullopt);
  }
  std::unordered_map<int64_t, int> side_votes;  // by region: the sum of its runs' known sides
  for (const Run& r : runs)
    for (const Run::Part& p : r.parts) side_votes[*p.first->meta.ac_graph_id()] += r.known_side();
  DeadCallsAtEnds out;
  for (const Run& r : runs) {
    int votes = 0;
    for (const Run::Part& p : r.parts) votes += side_votes[*p.first->meta.ac_graph_id()];
    bool trail = votes > 0;
    if (!r.between()) {  // every gap holds views made again: the run's first gap leads
      for (const Run::Part& p : r.parts)
        out.leading.emplace(p.first, std::min(r.before(), r.parts[1].skipped));
      continue;
    }
    if (!r.one_code() && trail) {
      // Each region trails with what was skipped after it; the last as the one before it did.
      for (size_t i = 0; i < r.parts.size(); ++i) {
        long long t = i + 1 < r.parts.size()
                          ? r.parts[i + 1].skipped
                          : std::min(r.after.value_or(LLONG_MAX), r.parts[i].skipped);
        out.leading.emplace(r.parts[i].first, 0);
        out.trailing.emplace(r.parts[i].last, t);
      }
      continue;
    }
    if (!r.one_code()) {
      // A region that makes fewer nodes of the op than another region of the run dropped calls
      // the other makes (Pegasus-X's last encoder layer computes the global tokens' branch and
      // reads none of it): it leads with as many of those as were skipped before it (not the
      // run's first: the code before the run may have made those), and trails with the rest as
      // far as were skipped after it.
      // (A gap the previous region trails into is not there to lead with.)
      long long most_nodes = 0, trailed = 0;
      for (const Run::Part& p : r.parts) most_nodes = std::max(most_nodes, p.nodes);
      for (size_t i = 0; i < r.parts.size(); ++i) {
        const Run::Part& p = r.parts[i];
        long long dropped = most_nodes - p.nodes;
        long long leading = i == 0 ? 0 : std::min(p.skipped - trailed, dropped);
        long long after =
            i + 1 < r.parts.size() ? r.parts[i + 1].skipped : r.after.value_or(dropped - leading);
        trailed = std::min(after, dropped - leading);
        out.leading.emplace(p.first, leading);
        out.trailing.emplace(p.last, trailed);
      }
      continue;
    }
    bool consistent = r.fewest() <= r.most();
    long long leading = r.most();
    if (consistent) leading = r.simplest().value_or(trail ? r.fewest() : r.most());
    long long trailing = consistent ? *r.between() - leading : 0;
    for (const Run::Part& p : r.parts) {
      out.leading.emplace(p.first, leading);
      out.trailing.emplace(p.last, trailing);
    }
  }
  return out;
}

}  // namespace remat::partition::reading
