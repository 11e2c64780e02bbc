#include "remat/records/partition_diff.h"

#include <algorithm>
#include <map>

namespace remat::records {
namespace {

struct Seen {
  Fate fate = Fate::Neither;
  const SavedValue* saved = nullptr;
  const RecomputedNode* recomputed = nullptr;
};

std::map<std::string_view, Seen> fates(const PartitionRecord& r) {
  std::map<std::string_view, Seen> out;
  for (const SavedValue& v : r.saved_values) out[v.name] = {Fate::Saved, &v, nullptr};
  for (const RecomputedNode& n : r.recomputed) {
    Seen& s = out[n.name];
    if (s.fate == Fate::Neither) s.fate = Fate::Recomputed;
    s.recomputed = &n;
  }
  return out;
}

/// Where a change sorts: saved -> recomputed (memory given back), recomputed -> saved, the rest.
int order_of(const FateChange& c) {
  if (c.before == Fate::Saved && c.after == Fate::Recomputed) return 0;
  if (c.before == Fate::Recomputed && c.after == Fate::Saved) return 1;
  return 2;
}

}  // namespace

std::string_view fate_name(Fate fate) {
  switch (fate) {
    case Fate::Saved:
      return "saved";
    case Fate::Recomputed:
      return "recomputed";
    case Fate::Neither:
      return "computed once";
  }
  return "?";
}

PartitionTotals totals_of(const PartitionRecord& r) {
  PartitionTotals t;
  int64_t activation_bytes = 0;
  for (const SavedValue& v : r.saved_values) {
    (v.input ? t.inputs : t.activations) += 1;
    if (!v.input) activation_bytes += v.bytes;
  }
  t.activation_bytes = r.activation_bytes.value_or(activation_bytes);
  t.recomputed = r.recomputed.size();
  t.recompute_flops = r.recompute_flops;
  t.peak_memory_bytes = r.peak_memory_bytes;
  return t;
}

PartitionDiff diff_partitions(const PartitionRecord& before, const PartitionRecord& after) {
  PartitionDiff d;
  d.before = totals_of(before);
  d.after = totals_of(after);
  std::map<std::string_view, Seen> a = fates(before), b = fates(after);
  std::map<std::string_view, std::pair<Seen, Seen>> both;
  for (const auto& [name, s] : a) both[name].first = s;
  for (const auto& [name, s] : b) both[name].second = s;
  for (const auto& [name, pair] : both) {
    const auto& [x, y] = pair;
    if (a.contains(name) && b.contains(name)) ++d.shared;
    if (x.fate == y.fate) continue;
    FateChange c;
    c.name = name;
    c.before = x.fate;
    c.after = y.fate;
    const SavedValue* saved = y.saved ? y.saved : x.saved;
    const RecomputedNode* recomputed = y.recomputed ? y.recomputed : x.recomputed;
    if (saved) {
      c.bytes = saved->bytes;
      c.input = saved->input;
    }
    if (recomputed) c.flops = recomputed->flops;
    // Why it is where it is now (a value computed once has no reason of its own).
    c.reason = y.saved ? y.saved->reason : y.recomputed ? y.recomputed->reason : "";
    d.changes.push_back(std::move(c));
  }
  std::stable_sort(d.changes.begin(), d.changes.end(),
                   [](const FateChange& l, const FateChange& r) {
                     if (order_of(l) != order_of(r)) return order_of(l) < order_of(r);
                     return l.bytes > r.bytes;
                   });
  return d;
}

std::vector<TotalRow> total_rows(const PartitionDiff& d) {
  using Unit = TotalRow::Unit;
  const PartitionTotals &a = d.before, &b = d.after;
  auto count = [](size_t n) { return static_cast<int64_t>(n); };
  std::vector<TotalRow> rows = {
      {"saved activations", count(a.activations), count(b.activations), Unit::Count},
      {"activation memory", a.activation_bytes, b.activation_bytes, Unit::Bytes},
      {"inputs also saved", count(a.inputs), count(b.inputs), Unit::Count},
      {"recomputed nodes", count(a.recomputed), count(b.recomputed), Unit::Count}};
  if (a.recompute_flops && b.recompute_flops)
    rows.push_back({"recompute cost", *a.recompute_flops, *b.recompute_flops, Unit::Flops});
  rows.push_back({"peak memory", a.peak_memory_bytes, b.peak_memory_bytes, Unit::Bytes});
  return rows;
}

}  // namespace remat::records
