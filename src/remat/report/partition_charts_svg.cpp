#include "remat/report/partition_charts_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <tuple>
#include <vector>

#include "remat/report/html.h"

namespace remat::report {
namespace {

/// A count or size as a whole number for labels (negative values, from bad input, show as 0).
uint64_t whole(double v) {
  return v > 0 && v < 9.2e18 ? static_cast<uint64_t>(v) : 0;
}

/// The drawing area of a chart and the data ranges it shows.
struct Plot {
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  double width = 960, height = 320, left = 84, right = 24, top = 16, bottom = 44;
  [[nodiscard]] double px(double x) const {
    return left + (x1 == x0 ? 0 : (x - x0) / (x1 - x0)) * (width - left - right);
  }
  [[nodiscard]] double py(double y) const {
    return height - bottom - (y1 == y0 ? 0 : (y - y0) / (y1 - y0)) * (height - top - bottom);
  }
};

/// About `count` round tick values (1, 2 or 5 times a power of ten apart) from `lo` to `hi`.
std::vector<double> ticks(double lo, double hi, int count) {
  if (!(hi > lo)) return {lo};
  double raw = (hi - lo) / count, power = std::pow(10.0, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  // Counted, not stepped: at 1e18 adding a small step to a double can leave it where it was.
  double first = std::ceil(lo / step) * step;
  double n = std::floor((hi * (1 + 1e-9) - first) / step);
  std::vector<double> out;
  for (int i = 0; i <= n && i <= 4 * count; ++i) out.push_back(first + i * step);
  return out;
}

/// Ticks for bytes: round in the unit the labels use (KB, MB, GB are powers of 1024), so that
/// they read 200 KB, 400 KB rather than 195.3 KB, 390.6 KB.
std::vector<double> byte_ticks(double lo, double hi, int count) {
  double unit = 1;
  while (hi / unit >= 1024 && unit < 1024.0 * 1024 * 1024) unit *= 1024;
  std::vector<double> out = ticks(lo / unit, hi / unit, count);
  for (double& t : out) t *= unit;
  return out;
}

/// [lo, hi] of `values` with a margin, so that points at the ends stay inside the plot.
std::pair<double, double> padded_range(const std::vector<double>& values) {
  auto [lo, hi] = std::minmax_element(values.begin(), values.end());
  double pad = *hi > *lo ? (*hi - *lo) * 0.08 : std::max(1.0, *hi * 0.1);
  return {std::max(0.0, *lo - pad), *hi + pad};
}

std::string svg_open(const Plot& p, std::string_view label) {
  return fmt::format(
      "<svg viewBox=\"0 0 {} {}\" width=\"100%\" role=\"img\" aria-label=\"{}\" "
      "preserveAspectRatio=\"xMinYMin meet\">\n",
      p.width, p.height, html_escape(label));
}

/// Grid, axes, tick labels and axis titles.
void axes(std::string& out, const Plot& p, const std::vector<double>& xs,
          const std::vector<double>& ys, const auto& x_label, const auto& y_label,
          std::string_view x_title, std::string_view y_title) {
  out += "<g class=\"grid\">";
  for (double y : ys)
    out += fmt::format("<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{:.1f}\" y2=\"{:.1f}\"/>", p.left,
                       p.width - p.right, p.py(y), p.py(y));
  out += "</g>\n<g class=\"axis\">";
  out += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>", p.left,
                     p.width - p.right, p.height - p.bottom);
  out += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>", p.left,
                     p.top, p.height - p.bottom);
  for (double x : xs)
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", p.px(x),
                       p.height - p.bottom + 16, html_escape(x_label(x)));
  for (double y : ys)
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>", p.left - 6,
                       p.py(y) + 4, html_escape(y_label(y)));
  out += fmt::format(
      "<text class=\"title\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
      (p.left + p.width - p.right) / 2, p.height - 6, html_escape(x_title));
  out += fmt::format(
      "<text class=\"title\" x=\"14\" y=\"{0:.1f}\" text-anchor=\"middle\" "
      "transform=\"rotate(-90 14 {0:.1f})\">{1}</text>",
      (p.top + p.height - p.bottom) / 2, html_escape(y_title));
  out += "</g>\n";
}

std::string link_open(const NodeLinks* links, std::string_view node) {
  if (links == nullptr) return "";
  std::optional<std::string> href = links->href(node);
  return href ? "<a href=\"" + html_escape(*href) + "\">" : "";
}
std::string link_close(const std::string& opened) {
  return opened.empty() ? "" : "</a>";
}

std::string bytes_text(double bytes) {
  return human_bytes(whole(bytes));
}

std::string no_data(std::string_view id, std::string_view title, std::string_view why) {
  return fmt::format(
      "<figure id=\"{}\" class=\"chart\"><figcaption>{}</figcaption><p class=\"meta\">"
      "{}</p></figure>\n",
      id, html_escape(title), html_escape(why));
}

/// What the memory timeline needs said under it: the curves that could not be drawn, and why this
/// partition's peak is above save everything's when it is (recomputing is meant to lower it).
std::string timeline_notes(const records::PartitionCharts& charts) {
  const records::TimelineCurve& mine = charts.memory.front();
  auto all = std::find_if(
      charts.memory.begin() + 1, charts.memory.end(),
      [](const records::TimelineCurve& c) { return c.label.starts_with("save everything"); });
  std::string out;
  if (all != charts.memory.end() && mine.peak_bytes > all->peak_bytes) {
    bool in_backward = mine.peak_step >= mine.forward_steps;
    std::string largest;
    for (const records::TimelineSample& s : mine.samples) {
      if (s.step != mine.peak_step) continue;
      for (const auto& [name, bytes] : s.largest)
        largest +=
            (largest.empty() ? "" : ", ") + name + " " + bytes_text(static_cast<double>(bytes));
    }
    out += fmt::format(
        "<p class=\"chart-note\" id=\"peak-above-save-everything\">This partition's estimated "
        "peak, {} while <code>{}</code> runs in the {}, is above save everything's ({}). "
        "{}{}</p>\n",
        bytes_text(static_cast<double>(mine.peak_bytes)), html_escape(mine.peak_node),
        in_backward ? "backward" : "forward", bytes_text(static_cast<double>(all->peak_bytes)),
        in_backward
            ? "The backward recomputes values while the gradients it has made are alive, and at "
              "this step they outweigh what save everything would still hold from the forward: "
              "saving the values recomputed around it (MUST_SAVE in a checkpoint policy, or a "
              "higher memory budget) lowers the peak."
            : "The forward keeps values save everything does not have (the random number "
              "generator's state for a recomputed random op, or a value saved in place of one "
              "it frees later).",
        largest.empty() ? "" : " Alive at the peak, the largest: " + html_escape(largest) + ".");
  }
  for (const std::string& n : charts.notes)
    out += "<p class=\"chart-note\">" + html_escape(n) + "</p>\n";
  return out;
}

}  // namespace

std::optional<std::string> NodeLinks::href(std::string_view node) const {
  auto at = line_of.find(std::string(node));
  if (at == line_of.end()) return std::nullopt;
  return page + "#L" + std::to_string(at->second);
}

std::string memory_timeline_figure(const records::PartitionCharts& charts, const NodeLinks* links) {
  constexpr std::string_view kTitle = "Memory over the step";
  const std::vector<records::TimelineCurve>& curves = charts.memory;
  if (curves.empty())
    return no_data("memory-timeline", kTitle, "This partition record has no memory curves.");
  Plot p;
  double max_steps = 1, max_bytes = 1;
  for (const records::TimelineCurve& c : curves) {
    max_steps = std::max(max_steps, static_cast<double>(c.steps) - 1);
    max_bytes = std::max(max_bytes, static_cast<double>(c.peak_bytes));
  }
  p.x1 = max_steps;
  p.y1 = max_bytes * 1.12;  // room above the highest peak for its label
  const records::TimelineCurve& mine = curves[0];
  double peak = static_cast<double>(mine.peak_bytes);
  double peak_step = static_cast<double>(mine.peak_step);
  std::string out = fmt::format(
      "<figure id=\"memory-timeline\" class=\"chart\" data-peak-bytes=\"{}\" "
      "data-peak-step=\"{}\" data-peak-node=\"{}\"><figcaption>{}: live tensor bytes while each "
      "node runs, the forward then the backward (the step's inputs throughout, every other storage "
      "until the last use of a value in it). Hover a "
      "point of this partition's curve for the node and what is alive.</figcaption>\n",
      mine.peak_bytes, mine.peak_step, html_escape(mine.peak_node), kTitle);
  out += svg_open(p, "memory over the step");
  axes(
      out, p, ticks(0, p.x1, 8), byte_ticks(0, max_bytes, 5),
      [](double x) { return human_count(whole(x)); }, bytes_text, "step", "live bytes");
  // Where this partition's backward starts. The phase names sit at the plot's foot, below the
  // curves (which start from the inputs' bytes), so that no peak label runs into them.
  double backward = static_cast<double>(mine.forward_steps);
  double phase_y = p.height - p.bottom - 6;
  out += fmt::format(
      "<g class=\"phase\"><line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>"
      "<text x=\"{3:.1f}\" y=\"{4:.1f}\" text-anchor=\"end\">forward</text>"
      "<text x=\"{5:.1f}\" y=\"{4:.1f}\">backward</text></g>\n",
      p.px(backward - 0.5), p.top, p.height - p.bottom, p.px(backward - 0.5) - 4, phase_y,
      p.px(backward - 0.5) + 4);
  // The others first, so that this partition's curve is drawn on top.
  for (size_t i = curves.size(); i-- > 0;) {
    out += fmt::format("<polyline class=\"curve c{}\" points=\"", i);
    for (const records::TimelineSample& s : curves[i].samples)
      fmt::format_to(std::back_inserter(out), "{:.1f},{:.1f} ", p.px(static_cast<double>(s.step)),
                     p.py(static_cast<double>(s.live)));
    out += "\"/>\n";
  }
  out += "<g class=\"points\">";
  for (const records::TimelineSample& s : mine.samples) {
    double step = static_cast<double>(s.step);
    std::string what = s.node.empty()
                           ? (step < backward ? "the forward's inputs" : "the backward's inputs")
                           : s.node + " (" + human_bytes(whole(static_cast<double>(s.bytes))) + ")";
    std::string tip = fmt::format("step {}: {}, {} live", human_count(s.step), what,
                                  bytes_text(static_cast<double>(s.live)));
    if (!s.largest.empty()) {
      tip += fmt::format(" in {} values; the largest:", human_count(s.alive));
      for (const auto& [name, bytes] : s.largest)
        tip += " " + name + " " + bytes_text(static_cast<double>(bytes)) + ",";
      tip.pop_back();
    }
    fmt::format_to(std::back_inserter(out), "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\"><title>",
                   p.px(step), p.py(static_cast<double>(s.live)));
    append_html_escaped(out, tip);
    out += "</title></circle>";
  }
  out += "</g>\n";
  std::string a = link_open(links, mine.peak_node);
  out += fmt::format(
      "<g id=\"memory-peak\">{}<circle class=\"peak\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\"><title>"
      "the peak: {} while {} runs</title></circle><text x=\"{:.1f}\" y=\"{:.1f}\" "
      "text-anchor=\"{}\">peak {} at {}</text>{}</g>\n",
      a, p.px(peak_step), p.py(peak), bytes_text(peak), html_escape(mine.peak_node),
      p.px(peak_step) + (peak_step > p.x1 / 2 ? -9 : 9), p.py(peak) - 8,
      peak_step > p.x1 / 2 ? "end" : "start", bytes_text(peak), html_escape(mine.peak_node),
      link_close(a));
  out += "</svg>\n<ul class=\"chart-legend\">";
  for (size_t i = 0; i < curves.size(); ++i) {
    out += fmt::format("<li><span class=\"swatch c{}\"></span>{}: peak {}</li>", i,
                       html_escape(curves[i].label),
                       bytes_text(static_cast<double>(curves[i].peak_bytes)));
  }
  out += "</ul>";
  out += timeline_notes(charts);
  out += "</figure>\n";
  return out;
}

std::string budget_curve_figure(const records::PartitionRecord& record) {
  constexpr std::string_view kTitle = "Memory budget";
  if (!record.charts || record.charts->budget.empty())
    return no_data("budget-curve", kTitle, "This partition record has no memory-budget sweep.");
  const records::PartitionCharts& charts = *record.charts;
  const std::vector<records::BudgetPoint>& points = charts.budget;
  std::optional<size_t> chosen = charts.chosen, knee = charts.knee;
  // Partitions off the min-cut's sweep mark their own point.
  bool own_point = record.strategy == "default" || record.strategy == "optimal";
  const std::vector<records::BudgetPoint>& optimum = charts.optimum;
  // The axis is activation memory (what the budget limits); records written before remat
  // counted it per point give the saved bytes, inputs included.
  bool activation = std::ranges::all_of(
      points, [](const records::BudgetPoint& b) { return b.activation_bytes.has_value(); });
  auto memory = [&](const records::BudgetPoint& b) {
    return static_cast<double>(activation ? *b.activation_bytes : b.saved_bytes);
  };
  double own_bytes = static_cast<double>(activation ? record.activation_bytes.value_or(0)
                                                    : record.saved_bytes_total);
  double own_flops = static_cast<double>(record.recompute_flops.value_or(0));
  std::string_view memory_words = activation ? "activation memory" : "saved bytes";
  // Both axes span what the points cover: the sweep's points often differ by little.
  std::vector<double> xs, ys;
  if (own_point) {
    xs.push_back(own_bytes);
    ys.push_back(own_flops);
  }
  for (const auto* list : {&points, &optimum}) {
    for (const records::BudgetPoint& pt : *list) {
      xs.push_back(memory(pt));
      ys.push_back(static_cast<double>(pt.recompute_flops));
    }
  }
  Plot p;
  p.left = 110;
  std::tie(p.x0, p.x1) = padded_range(xs);
  std::tie(p.y0, p.y1) = padded_range(ys);
  std::string out = fmt::format(
      "<figure id=\"budget-curve\" class=\"chart\" data-points=\"{}\" data-axis=\"{}\"{}{}>"
      "<figcaption>{}: what the min-cut keeps for the backward ({}) and what it recomputes as "
      "the memory budget goes from 0 to 1 (hover a point for its budget){}.</figcaption>\n",
      points.size(), activation ? "activation" : "saved",
      chosen ? fmt::format(" data-chosen=\"{}\"", *chosen) : "",
      knee ? fmt::format(" data-knee=\"{}\"", *knee) : "", kTitle,
      activation ? "activation memory: the storage kept beyond the inputs"
                 : "saved bytes, parameters and inputs included",
      optimum.empty() ? ""
                      : "; green squares, dotted: the optimum, the least recompute within each "
                        "point's memory");
  out += svg_open(p, std::string(memory_words) + " against recomputed FLOPs");
  axes(
      out, p, byte_ticks(p.x0, p.x1, 6), ticks(p.y0, p.y1, 5), bytes_text,
      [](double y) { return human_flops(whole(y)); }, memory_words, "recomputed FLOPs");
  // Where a sweep point sits on the plot.
  auto position = [&](const records::BudgetPoint& pt) {
    return std::pair{p.px(memory(pt)), p.py(static_cast<double>(pt.recompute_flops))};
  };
  // A line through `list`'s points.
  auto polyline = [&](std::string_view cls, const std::vector<records::BudgetPoint>& list) {
    std::string line = fmt::format("<polyline class=\"{}\" points=\"", cls);
    for (const records::BudgetPoint& pt : list) {
      auto [x, y] = position(pt);
      fmt::format_to(std::back_inserter(line), "{:.1f},{:.1f} ", x, y);
    }
    return line + "\"/>";
  };
  out += polyline("curve c0", points) + "\n<g class=\"budget-points\">";
  for (const records::BudgetPoint& pt : points) {
    auto [x, y] = position(pt);
    std::string kept = activation ? fmt::format("{} of activation memory ({} saved in {} values)",
                                                bytes_text(memory(pt)),
                                                bytes_text(static_cast<double>(pt.saved_bytes)),
                                                human_count(pt.saved_values))
                                  : fmt::format("saves {} ({} values)", bytes_text(memory(pt)),
                                                human_count(pt.saved_values));
    std::string tip =
        fmt::format("budget {:.2f}: {}, recomputes {} — {}", pt.budget, kept,
                    human_flops(whole(static_cast<double>(pt.recompute_flops))), pt.stage);
    out += fmt::format(
        "<circle class=\"budget-point\" data-budget=\"{:.2f}\" cx=\"{:.1f}\" cy=\"{:.1f}\" "
        "r=\"4\"><title>{}</title></circle>",
        pt.budget, x, y, html_escape(tip));
  }
  out += "</g>\n";
  if (!optimum.empty()) {
    // The yardstick: the least recompute at each sweep point's memory, dotted, below the sweep.
    out += "<g id=\"budget-optimum\">" + polyline("curve c2 optimum", optimum);
    for (const records::BudgetPoint& pt : optimum) {
      auto [x, y] = position(pt);
      std::string tip = fmt::format(
          "the optimum within budget {:.2f}'s memory: {} of activation memory, recomputes {}",
          pt.budget, bytes_text(memory(pt)),
          human_flops(whole(static_cast<double>(pt.recompute_flops))));
      out += fmt::format(
          "<rect class=\"optimum-point\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"6\" height=\"6\">"
          "<title>{}</title></rect>",
          x - 3, y - 3, html_escape(tip));
    }
    out += "</g>\n";
  }
  auto label = [&](double x, double y, std::string_view cls, std::string_view words, double dy) {
    bool right = x > (p.left + p.width - p.right) / 2;
    return fmt::format("<text class=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\">{}</text>",
                       cls, x + (right ? -10 : 10), y + dy, right ? "end" : "start",
                       html_escape(words));
  };
  if (knee && *knee < points.size()) {
    auto [x, y] = position(points[*knee]);
    out += fmt::format(
        "<g id=\"budget-knee\"><path class=\"knee\" d=\"M{0:.1f} {1:.1f} l7 7 l-7 7 l-7 -7 z\"/>{2}"
        "</g>\n",
        x, y - 7,
        label(x, y, "knee-label", fmt::format("knee (budget {:.2f})", points[*knee].budget), 18));
  }
  if (chosen && *chosen < points.size()) {
    auto [x, y] = position(points[*chosen]);
    out += fmt::format(
        "<g id=\"budget-chosen\"><circle class=\"chosen\" cx=\"{:.1f}\" cy=\"{:.1f}\" "
        "r=\"8\"/>{}</g>\n",
        x, y,
        label(x, y, "chosen-label",
              fmt::format("this partition (budget {:.2f})", points[*chosen].budget), -8));
  } else if (own_point) {
    double x = p.px(own_bytes), y = p.py(own_flops);
    out += fmt::format(
        "<g id=\"budget-chosen\"><circle class=\"chosen\" cx=\"{:.1f}\" cy=\"{:.1f}\" "
        "r=\"8\"><title>"
        "the {} partition: keeps {}, recomputes {}</title></circle>{}</g>\n",
        x, y, record.strategy, bytes_text(own_bytes), human_flops(whole(own_flops)),
        label(x, y, "chosen-label", "this partition (" + record.strategy + ")", -8));
  }
  out += "</svg></figure>\n";
  return out;
}

std::string region_map_figure(const records::RegionMap& map, const NodeLinks* links) {
  constexpr std::string_view kTitle = "Checkpoint regions";
  double nodes = static_cast<double>(map.nodes);
  if (map.nodes == 0)
    return no_data("region-map", kTitle, "This partition record has no region map.");
  // Spans by region id.
  std::map<int64_t, std::vector<const records::NodeSpan*>> regions;
  for (const records::RegionSpan& r : map.regions) regions[r.id].push_back(&r.span);
  // One band per region while they are few; many (a model of hundreds of checkpointed layers)
  // share lanes: a region goes in the first lane it does not overlap.
  constexpr size_t kBandsPerRegion = 12;
  bool packed = regions.size() > kBandsPerRegion;
  std::map<int64_t, size_t> lane_of;
  std::vector<size_t> lane_end;
  for (const auto& [id, spans] : regions) {
    size_t first = spans.front()->first, last = spans.front()->last;
    for (const records::NodeSpan* sp : spans) {
      first = std::min(first, sp->first);
      last = std::max(last, sp->last);
    }
    size_t lane = 0;
    if (packed) {
      while (lane < lane_end.size() && lane_end[lane] >= first) ++lane;
      if (lane == kBandsPerRegion) lane = kBandsPerRegion - 1;  // overlapping beyond: they overlap
    } else {
      lane = lane_end.size();
    }
    if (lane == lane_end.size()) lane_end.push_back(last);
    lane_end[lane] = std::max(lane_end[lane], last);
    lane_of[id] = lane;
  }
  constexpr double kRow = 22, kLabel = 120;
  Plot p;
  p.left = kLabel;
  p.x1 = nodes;
  p.top = 8;
  double rows = static_cast<double>(lane_end.size() + 2);
  p.height = p.top + kRow * rows + p.bottom;
  std::string out = fmt::format(
      "<figure id=\"region-map\" class=\"chart\" data-nodes=\"{}\" data-regions=\"{}\" "
      "data-saved=\"{}\" data-recomputed-spans=\"{}\"><figcaption>{}: the joint graph's nodes "
      "in order, {} checkpoint region (ac_graph_id), saved activations as ticks, recomputed runs "
      "shaded. Click a mark to go to its node on the joint graph's page.</figcaption>\n",
      map.nodes, regions.size(), map.saved.size(), map.recomputed.size(), kTitle,
      packed ? "a color per" : "one band per");
  out += svg_open(p, "checkpoint regions across the joint graph");
  double bottom = p.top + kRow * rows;
  out += "<g class=\"axis\">";
  out += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>", p.left,
                     p.width - p.right, bottom);
  for (double x : ticks(0, nodes, 8))
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>", p.px(x),
                       bottom + 16, human_count(whole(x)));
  out += fmt::format(
      "<text class=\"title\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">joint graph "
      "node</text></g>\n",
      (p.left + p.width - p.right) / 2, bottom + 36);
  // Runs less than a pixel apart are drawn as one (their title says how many).
  auto merged = [&](const std::vector<const records::NodeSpan*>& spans) {
    std::vector<std::pair<records::NodeSpan, size_t>> out_spans;
    for (const records::NodeSpan* sp : spans) {
      if (!out_spans.empty() && p.px(static_cast<double>(sp->first)) -
                                        p.px(static_cast<double>(out_spans.back().first.last + 1)) <
                                    1) {
        out_spans.back().first.last = std::max(out_spans.back().first.last, sp->last);
        out_spans.back().first.last_name = sp->last_name;
        ++out_spans.back().second;
      } else {
        out_spans.push_back({*sp, 1});
      }
    }
    return out_spans;
  };
  // Spans narrower than a pixel still show: at least one pixel wide.
  auto left_of = [&](size_t node) { return p.px(static_cast<double>(node)); };
  auto span_rect = [&](const records::NodeSpan& sp, double y, std::string_view attrs,
                       std::string_view tip) {
    double x = left_of(sp.first), w = std::max(1.0, left_of(sp.last + 1) - x);
    std::string a = link_open(links, sp.first_name);
    return fmt::format(
        "{}<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" {}>"
        "<title>{}</title></rect>{}",
        a, x, y, w, kRow - 6, attrs, html_escape(tip), link_close(a));
  };
  auto row_label = [&](double y, std::string_view words) {
    return fmt::format(
        "<text class=\"row-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>",
        p.left - 8, y + kRow / 2 + 1, html_escape(words));
  };
  auto nodes_text = [](const records::NodeSpan& sp) {
    return sp.last > sp.first ? fmt::format("nodes {}–{} ({} to {})", sp.first, sp.last,
                                            sp.first_name, sp.last_name)
                              : fmt::format("node {} ({})", sp.first, sp.first_name);
  };
  for (size_t lane = 0; lane < lane_end.size(); ++lane) {
    double y = p.top + kRow * static_cast<double>(lane);
    std::string label;
    for (const auto& [id, l] : lane_of)
      if (l == lane) label = label.empty() ? "region " + std::to_string(id) : "regions";
    out += row_label(y, label);
  }
  for (const auto& [id, spans] : regions) {
    double y = p.top + kRow * static_cast<double>(lane_of[id]);
    out += fmt::format("<g class=\"region\" data-ac-graph-id=\"{}\">", id);
    for (const auto& [sp, count] : merged(spans)) {
      out += span_rect(sp, y + 3,
                       fmt::format("fill=\"{}\" stroke=\"{}\"", region_fill(id), region_stroke(id)),
                       fmt::format("region {}: {}", id, nodes_text(sp)));
    }
    out += "</g>\n";
  }
  double y = p.top + kRow * static_cast<double>(lane_end.size());
  // Recomputed runs shade the region bands above them too.
  out += "<g class=\"recomputed\">" + row_label(y + kRow, "recomputed");
  std::vector<const records::NodeSpan*> recomputed;
  for (const records::NodeSpan& sp : map.recomputed) recomputed.push_back(&sp);
  for (const auto& [sp, count] : merged(recomputed)) {
    out += fmt::format(
        "<rect class=\"shade\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\"/>",
        left_of(sp.first), p.top, std::max(1.0, left_of(sp.last + 1) - left_of(sp.first)),
        y - p.top);
    std::string tip = "recomputed: " + nodes_text(sp);
    if (count > 1) tip += fmt::format(", in {} runs", count);
    out += span_rect(sp, y + kRow + 3, "class=\"run\"", tip);
  }
  out += "</g>\n<g class=\"saved\">" + row_label(y, "saved activations");
  // Ticks on one pixel are one mark (a long graph saves thousands of values).
  std::map<long, std::vector<const std::string*>> by_pixel;
  for (const auto& [index, name] : map.saved)
    by_pixel[std::lround(left_of(index))].push_back(&name);
  for (const auto& [x, values] : by_pixel) {
    const std::string& name = *values.front();
    std::string tip = values.size() == 1
                          ? "saved: " + name
                          : fmt::format("saved: {} and {} more here", name, values.size() - 1);
    std::string a = link_open(links, name);
    out += fmt::format(
        "{}<line class=\"tick\" x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\">"
        "<title>{}</title></line>{}",
        a, x, x, y + 2, y + kRow - 2, html_escape(tip), link_close(a));
  }
  out += "</g>\n</svg></figure>\n";
  return out;
}

}  // namespace remat::report
