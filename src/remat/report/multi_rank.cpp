#include "remat/report/multi_rank.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "remat/report/html.h"
#include "remat/support/file_io.h"

namespace remat::report {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

std::string join_ranks(const std::vector<int>& ranks) {
  std::string out;
  for (int r : ranks) out += (out.empty() ? "" : ", ") + std::to_string(r);
  return out;
}

/// Ranks grouped by the sequence each shows; a single group means they agree.
std::vector<DivergenceGroup> group_by(const std::map<int, std::string>& sequence_of) {
  std::map<std::string, std::vector<int>> groups;
  for (const auto& [rank, seq] : sequence_of) groups[seq].push_back(rank);
  std::vector<DivergenceGroup> out;
  for (auto& [seq, ranks] : groups) out.push_back({seq, ranks});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.ranks < b.ranks; });
  return out;
}

/// Each compile folder of a rank's report (sorted: read_dir's order is the file system's) with
/// the first `.json` artifact whose name starts with `prefix`.
std::vector<std::pair<std::string, fs::path>> artifacts_named(const fs::path& rank_dir,
                                                              std::string_view prefix) {
  std::vector<std::pair<std::string, fs::path>> out;
  std::error_code ec;
  for (const auto& folder : fs::directory_iterator(rank_dir, ec)) {
    if (!folder.is_directory()) continue;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(folder.path(), ec))
      if (f.path().extension() == ".json" && f.path().stem().string().starts_with(prefix))
        files.push_back(f.path());
    if (files.empty()) continue;
    std::sort(files.begin(), files.end());
    out.emplace_back(folder.path().filename().string(), files.front());
  }
  std::sort(out.begin(), out.end());
  return out;
}

Json read_json(const fs::path& p) {
  auto text = read_file(p.string());
  return text ? Json::parse(*text, nullptr, false) : Json();  // the rank sites remat wrote
}

/// `all_reduce`, `all_gather`...: the collective an op name stands for (tlparse's buckets).
std::optional<std::string> collective_kind(std::string op) {
  while (!op.empty() && op.back() == '_') op.pop_back();
  for (const char* name : {"all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all"})
    if (op.find(name) != std::string::npos) return std::string(name);
  if (op.find("reduce") != std::string::npos) return std::string("reduce");
  return std::nullopt;
}

/// Per graph of a rank: collectives the scheduler planned vs calls in the output code, and
/// collectives never waited on: rank_<n>/collectives_parity.json's report, listing the graphs
/// that disagree.
Json collectives_parity(const fs::path& rank_dir, const nlohmann::ordered_json& directory) {
  std::map<std::string, std::string> compile_of;  // folder -> compile id
  if (directory.is_object())
    for (const auto& [cid, entry] : directory.items())
      if (entry.contains("artifacts"))
        for (const auto& a : entry["artifacts"])
          if (a.contains("url") && a["url"].is_string()) {
            std::string url = a["url"].get<std::string>();
            if (size_t slash = url.find('/'); slash != std::string::npos)
              compile_of.try_emplace(url.substr(0, slash), cid);
          }
  static const std::regex kCall(
      R"(torch\s*\.\s*ops\s*\.\s*_?c10d_functional\s*\.\s*([A-Za-z0-9_]+)\s*\.\s*default\s*\()");
  static const std::regex kTag(R"(<[^>]*>)");
  static const std::regex kComment(R"(#[^\n]*)");
  Json graphs = Json::array();
  for (const auto& [folder, schedule] : artifacts_named(rank_dir, "inductor_collective_schedule")) {
    std::error_code ec;
    fs::path code;
    for (const auto& f : fs::directory_iterator(rank_dir / folder, ec))
      if (f.path().stem().string().starts_with("inductor_output_code") &&
          (code.empty() || f.path() < code))
        code = f.path();
    if (code.empty()) continue;
    std::map<std::string, size_t> planned, called;
    Json ops = read_json(schedule);
    if (ops.is_array())
      for (const Json& op : ops)
        if (op.is_string())
          if (auto k = collective_kind(op.get<std::string>())) ++planned[*k];
    auto text = read_file(code.string());
    if (!text) continue;
    // The page's markup (each tag a line break: the page's lines are spans) and Python comments
    // are not calls.
    std::string clean = std::regex_replace(*text, kTag, "\n");
    for (auto [entity, c] : {std::pair{"&quot;", "\""},
                             {"&#39;", "'"},
                             {"&lt;", "<"},
                             {"&gt;", ">"},
                             {"&amp;", "&"}}) {
      std::string_view e = entity;
      for (size_t at = 0; (at = clean.find(e, at)) != std::string::npos; ++at)
        clean.replace(at, e.size(), c);
    }
    clean = std::regex_replace(clean, kComment, "");
    size_t waits = 0, collectives = 0;
    for (auto it = std::sregex_iterator(clean.begin(), clean.end(), kCall);
         it != std::sregex_iterator(); ++it) {
      std::string op = (*it)[1];
      if (op == "wait_tensor") {
        ++waits;
      } else if (auto k = collective_kind(op)) {
        ++called[*k];
        ++collectives;
      }
    }
    std::set<std::string> kinds;
    for (const auto& [k, n] : planned) kinds.insert(k);
    for (const auto& [k, n] : called) kinds.insert(k);
    size_t offset = 0;
    for (const std::string& k : kinds) {
      size_t a = planned[k], b = called[k];
      offset += a > b ? a - b : b - a;
    }
    size_t missing_waits = collectives > waits ? collectives - waits : 0;
    if (offset > 0 || missing_waits > 0) {
      auto cid = compile_of.find(folder);
      graphs.push_back({{"graph", folder},
                        {"compile_id", cid == compile_of.end() ? "unknown" : cid->second},
                        {"offset", offset},
                        {"missing_waits", missing_waits}});
    }
  }
  Json report = {{"description",
                  "Difference of # of collectives in scheduler and inductor output code and "
                  "missing wait collectives"},
                 {"graphs", graphs}};
  return report;
}

/// The ranks grouped by the order they ran their compiled graphs in, and where they part.
void execution_order(MultiRankResult& r) {
  std::map<int, std::string> key;
  bool logged = false;
  for (const auto& [rank, rr] : r.ranks) {
    logged = logged || rr.executions.count > 0;
    key[rank] = std::to_string(rr.executions.count) + ":" + std::to_string(rr.executions.digest);
  }
  if (!logged) return;
  r.execution_groups = group_by(key);
  std::map<int, const GraphExecutions*> of;
  for (const auto& [rank, rr] : r.ranks) of[rank] = &rr.executions;
  if (r.execution_groups.size() > 1) {
    // The first execution the kept prefixes disagree on (or where one ends).
    const GraphExecutions* first = of.at(r.execution_groups.front().ranks.front());
    auto agree = [&](size_t i) {
      for (const DivergenceGroup& g : r.execution_groups) {
        const GraphExecutions* e = of.at(g.ranks.front());
        if (i >= e->first.size() || i >= first->first.size() || e->first[i] != first->first[i])
          return false;
      }
      return true;
    };
    size_t at = 0;
    while (agree(at)) ++at;
    r.execution_divergence_at = at;
  }
  for (DivergenceGroup& g : r.execution_groups) {
    const GraphExecutions& e = *of.at(g.ranks.front());
    size_t from = r.execution_divergence_at.value_or(0);
    std::string text = std::to_string(e.count) + (e.count == 1 ? " execution" : " executions");
    if (r.execution_divergence_at && from >= e.count) {
      text += "; none from #" + std::to_string(from + 1);
    } else if (r.execution_divergence_at && from >= e.first.size()) {
      text += "; differs past the first " + std::to_string(e.first.size()) + " (not kept)";
    } else if (r.execution_divergence_at) {
      text += "; from #" + std::to_string(from + 1) + ":";
      for (size_t i = from; i < e.first.size() && i < from + 8; ++i) text += " " + e.first[i];
      if (from + 8 < e.count) text += " ...";
    }
    g.sequence = std::move(text);
  }
}

std::string groups_table(const char* id, const std::vector<DivergenceGroup>& groups,
                         const char* what) {
  std::string out =
      std::string("<table id=\"") + id + "\"><tr><th>" + what + "</th><th>Ranks</th></tr>\n";
  for (const DivergenceGroup& g : groups)
    out += "<tr><td><code>" + html_escape(g.sequence.empty() ? "(none)" : g.sequence) +
           "</code></td><td>" + join_ranks(g.ranks) + "</td></tr>\n";
  return out + "</table>\n";
}

std::string landing_page(const MultiRankResult& r,
                         const std::map<int, std::vector<std::string>>& compile_ids,
                         bool runtime_trace, const ReportOptions& options) {
  std::string body =
      "<h1>Multi-rank report</h1>\n<p>" + std::to_string(r.ranks.size()) +
      " ranks of one run. Each rank's own report is in <code>rank_&lt;n&gt;/</code>.</p>\n";
  if (r.diverged()) {
    body +=
        "<div id=\"desync-warning\" class=\"status-fail\"><b>The ranks diverged.</b> Ranks that "
        "compile different "
        "graphs, hit the cache differently or schedule collectives in another order can hang or "
        "slow a "
        "distributed run:<ul>";
    if (r.compile_id_divergence)
      body += "<li id=\"divergence-compile-ids\">different compile ids</li>";
    if (r.cache_groups.size() > 1)
      body += "<li id=\"divergence-cache\">different cache hits and misses</li>";
    if (r.collective_groups.size() > 1)
      body += "<li id=\"divergence-collectives\">different collective schedules</li>";
    if (r.tensor_meta_groups.size() > 1)
      body += "<li id=\"divergence-tensor-meta\">different tensor metadata</li>";
    if (r.runtime_graph_counts_differ)
      body +=
          "<li id=\"divergence-runtime\">different numbers of graphs with runtime estimates</li>";
    if (r.execution_groups.size() > 1)
      body += "<li id=\"divergence-execution-order\">a different order of compiled graphs</li>";
    body += "</ul></div>\n";
  } else {
    body +=
        "<p id=\"no-divergence\" class=\"status-ok\">No divergence between the ranks was "
        "found.</p>\n";
  }
  body +=
      "<h2>Ranks</h2>\n<table id=\"ranks\"><tr><th>Rank</th><th>Compile "
      "ids</th><th>Artifacts</th><th>Records</th>"
      "<th>Bad lines</th></tr>\n";
  for (const auto& [rank, rr] : r.ranks) {
    std::string ids;
    for (const std::string& id : compile_ids.at(rank)) ids += (ids.empty() ? "" : " ") + id;
    body += "<tr id=\"rank-" + std::to_string(rank) + "\"><td><a href=\"rank_" +
            std::to_string(rank) + "/index.html\">Rank " + std::to_string(rank) +
            "</a></td><td><code>" + html_escape(ids) + "</code></td><td class=\"num\">" +
            std::to_string(rr.artifacts) + "</td><td class=\"num\">" + std::to_string(rr.stats.ok) +
            "</td><td class=\"num\">" + std::to_string(rr.stats.failures()) + "</td></tr>\n";
  }
  body += "</table>\n";
  if (r.cache_groups.size() > 1) {
    // Letters read in any font (the listing's marks are emoji).
    std::vector<DivergenceGroup> lettered = r.cache_groups;
    for (DivergenceGroup& g : lettered) {
      for (auto [mark, letter] : {std::pair{"\u2705", "H"}, {"\u274c", "M"}, {"\u2753", "B"}}) {
        std::string_view m = mark;
        for (size_t at = 0; (at = g.sequence.find(m, at)) != std::string::npos;)
          g.sequence.replace(at, m.size(), letter);
      }
    }
    body +=
        "<h2>Cache hits and misses</h2>\n<p>In artifact order (H hit, M miss, B bypass):</p>\n" +
        groups_table("cache-groups", lettered, "Sequence");
  }
  if (!r.execution_groups.empty()) {
    // tlparse's graph execution-order diagnostics, from Inductor's per-call artifacts.
    body += "<h2>Graph execution order</h2>\n";
    if (r.execution_groups.size() == 1) {
      body +=
          "<p id=\"execution-order-same\" class=\"status-ok\">Every rank ran its compiled graphs "
          "in the same order (" +
          html_escape(r.execution_groups.front().sequence) + ").</p>\n";
    } else {
      body +=
          "<p id=\"execution-order-differs\" class=\"status-fail\">The ranks ran their compiled "
          "graphs in different orders, "
          "first at execution " +
          std::to_string(*r.execution_divergence_at + 1) +
          ": a rank that runs another graph "
          "than its peers issues other collectives, and the run can hang.";
      if (r.collective_groups.size() > 1) body += " Their collective schedules differ too (below).";
      if (r.cache_groups.size() > 1) body += " So do their cache hits and misses (below).";
      body += "</p>\n" + groups_table("execution-groups", r.execution_groups, "Graphs run");
    }
  }
  if (r.collective_groups.size() > 1)
    body += "<h2>Collective schedules</h2>\n" +
            groups_table("collective-groups", r.collective_groups, "Collectives in order");
  if (r.tensor_meta_groups.size() > 1)
    body += "<h2>Tensor metadata</h2>\n" +
            groups_table("tensor-meta-groups", r.tensor_meta_groups, "Fingerprint");
  if (!r.runtime_deltas.empty()) {
    body +=
        "<h2>Estimated runtimes</h2>\n<table "
        "id=\"runtime-deltas\"><tr><th>Graph</th><th>Fastest</th><th>Slowest</th>"
        "<th>Delta</th></tr>\n";
    for (const RuntimeDelta& d : r.runtime_deltas) {
      char buf[160];
      std::snprintf(
          buf, sizeof buf,
          "<td>rank %d: %.3f ms</td><td>rank %d: %.3f ms</td><td class=\"num\">%.3f ms</td>",
          d.fastest_rank, d.fastest_ms, d.slowest_rank, d.slowest_ms, d.slowest_ms - d.fastest_ms);
      body += "<tr><td><code>" + html_escape(d.graph) + "</code></td>" + buf + "</tr>\n";
    }
    body += "</table>\n";
  }
  if (r.collectives_parity_problems > 0) {
    body += "<p id=\"collectives-parity\">" + std::to_string(r.collectives_parity_problems) +
            " graphs whose planned collectives differ from their output code or miss a wait: see "
            "each rank's "
            "<code>collectives_parity.json</code>.</p>\n";
  }
  // remat's addition: the partitions side by side.
  std::set<std::string> partitioned;
  for (const auto& [rank, rr] : r.ranks)
    for (const PartitionSummary& p : rr.partitions) partitioned.insert(p.compile_id);
  if (!partitioned.empty()) {
    body +=
        "<h2>What each rank saved and recomputed</h2>\n<table "
        "id=\"rank-partitions\"><tr><th>Compile id</th>";
    for (const auto& [rank, rr] : r.ranks) body += "<th>Rank " + std::to_string(rank) + "</th>";
    body += "</tr>\n";
    for (const std::string& cid : partitioned) {
      std::set<std::string> cells;
      std::string row;
      for (const auto& [rank, rr] : r.ranks) {
        auto p = std::find_if(rr.partitions.begin(), rr.partitions.end(),
                              [&](const auto& x) { return x.compile_id == cid; });
        std::string cell = "&mdash;";
        if (p != rr.partitions.end()) {
          uint64_t bytes = 0;
          std::string names;
          for (const auto& [name, b] : p->saved) {
            bytes += b;
            names += (names.empty() ? "" : ", ") + name;
          }
          cell = std::to_string(p->saved.size()) + " saved (" + human_bytes(bytes) + "), " +
                 std::to_string(p->recomputed.size()) + " recomputed<br><small><code>" +
                 html_escape(names) + "</code></small>";
        }
        cells.insert(cell);
        row += "<td>" + cell + "</td>";
      }
      bool differs = cells.size() > 1;
      body += std::string("<tr") + (differs ? " class=\"status-fail\"" : "") + "><td><code>" +
              html_escape(cid) + "</code>" + (differs ? " (ranks differ)" : "") + "</td>" + row +
              "</tr>\n";
    }
    body += "</table>\n";
  }
  body += "<h2>Traces</h2>\n<ul>";
  if (r.chromium_events > 0)
    body +=
        "<li><a href=\"chromium_events.json\">chromium_events.json</a>: every rank's events (one "
        "process per rank; "
        "open in Perfetto)</li>";
  if (runtime_trace)
    body +=
        "<li><a href=\"chromium_trace_with_runtime.json\">chromium_trace_with_runtime.json</a>: "
        "the estimated "
        "runtimes as a trace</li><li><a "
        "href=\"runtime_estimations.json\">runtime_estimations.json</a></li>";
  body += "</ul>\n";
  std::string footer = "Generated by remat " + html_escape(options.version) + " &middot; " +
                       html_escape(options.command_line);
  return html_page("multi-rank report", body, footer);
}

/// Each rank's report, written side by side: they share nothing, and each is a sequential read
/// with many file writes, so a thread per core (at most one per rank) takes the others' waits.
std::vector<std::optional<Expected<ReportResult>>> write_rank_reports(
    const std::vector<RankLog>& logs, const fs::path& out, const ReportOptions& options) {
  std::vector<std::optional<Expected<ReportResult>>> reports(logs.size());
  std::mutex progress_lock;
  ReportOptions rank_options = options;
  if (options.progress) {
    rank_options.progress = [&](uint64_t read, uint64_t total) {
      std::lock_guard<std::mutex> hold(progress_lock);
      options.progress(read, total);
    };
  }
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < logs.size();) {
      reports[i] = write_report(
          logs[i].path, (out / ("rank_" + std::to_string(logs[i].rank))).string(), rank_options);
    }
  };
  size_t threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), logs.size());
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return reports;
}

Expected<MultiRankResult> write_site(const std::vector<RankLog>& logs, const fs::path& out,
                                     const ReportOptions& options, bool strict) {
  MultiRankResult result;
  std::map<int, std::vector<std::string>> compile_ids;  // in log order
  std::map<int, std::string> cache_sequence;
  Json chromium = Json::array();
  for (const RankLog& log : logs) {
    fs::path dir = out / ("rank_" + std::to_string(log.rank));
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return file_error(dir.string(), "cannot create: " + ec.message());
  }
  std::vector<std::optional<Expected<ReportResult>>> reports =
      write_rank_reports(logs, out, options);
  for (size_t i = 0; i < logs.size(); ++i) {
    const RankLog& log = logs[i];
    fs::path dir = out / ("rank_" + std::to_string(log.rank));
    Expected<ReportResult>& r = *reports[i];
    REMAT_TRY(r);
    if (Status c = check_strictness(log.path, *r, strict, options.strict_compile_id); !c.ok())
      return c.errors();
    // Compile ids and the cache results in artifact order, from what the rank's report listed
    // (read in the file's order: the report lists compiles as they came).
    auto listing = read_file((dir / "compile_directory.json").string());
    nlohmann::ordered_json directory = listing
                                           ? nlohmann::ordered_json::parse(*listing, nullptr, false)
                                           : nlohmann::ordered_json();
    std::vector<std::pair<int64_t, std::string>> marks;
    cache_sequence[log.rank];
    compile_ids[log.rank];
    if (directory.is_object()) {
      for (const auto& [cid, entry] : directory.items()) {
        compile_ids[log.rank].push_back(cid);
        if (!entry.contains("artifacts")) continue;
        for (const auto& a : entry["artifacts"]) {
          std::string suffix = a.value("suffix", "");
          if (!suffix.empty() && a.contains("number"))
            marks.emplace_back(a["number"].get<int64_t>(), suffix);
        }
      }
    }
    std::sort(marks.begin(), marks.end());
    for (const auto& [n, s] : marks) cache_sequence[log.rank] += s;
    Json parity = collectives_parity(dir, directory);
    result.collectives_parity_problems += parity["graphs"].size();
    if (Status w =
            write_file_atomic((dir / "collectives_parity.json").string(), parity.dump(2) + "\n");
        !w.ok())
      return w.errors();
    Json events = read_json(dir / "chromium_events.json");
    if (events.is_array())
      for (Json& e : events) {
        if (e.is_object()) e["pid"] = log.rank;
        chromium.push_back(std::move(e));
      }
    result.ranks.emplace_back(log.rank, std::move(*r));
  }
  auto id_set = [&](int rank) {
    return std::set<std::string>(compile_ids[rank].begin(), compile_ids[rank].end());
  };
  for (const RankLog& log : logs)
    if (id_set(log.rank) != id_set(logs.front().rank)) result.compile_id_divergence = true;
  result.cache_groups = group_by(cache_sequence);
  execution_order(result);
  result.chromium_events = chromium.size();
  if (!chromium.empty()) {
    if (auto s =
            write_file_atomic((out / "chromium_events.json").string(), chromium.dump(2) + "\n");
        !s.ok())
      return s.errors();
  }

  // Collective schedules, runtime estimations and tensor metadata Inductor logged per graph.
  Json schedules = Json::array(), runtimes = Json::array();
  std::map<int, std::string> collective_sequence, tensor_meta;
  std::map<int, std::vector<std::pair<std::string, double>>> runtime_of;  // rank -> (graph, ns)
  for (const RankLog& log : logs) {
    fs::path dir = out / ("rank_" + std::to_string(log.rank));
    for (const auto& [graph, file] : artifacts_named(dir, "inductor_collective_schedule")) {
      Json ops = read_json(file);
      if (!ops.is_array() || ops.empty()) continue;
      schedules.push_back({{"rank", log.rank}, {"graph", graph}, {"ops", ops}});
      for (const Json& op : ops)
        collective_sequence[log.rank] +=
            (collective_sequence[log.rank].empty() ? "" : ",") + op.dump();
    }
    std::string fingerprints;
    for (const auto& [graph, file] : artifacts_named(dir, "inductor_runtime_and_tensor_meta")) {
      Json meta = read_json(file);
      if (meta.is_discarded()) continue;
      fingerprints += (fingerprints.empty() ? "" : ",") + meta.dump();
      if (!meta.contains("ops") || !meta["ops"].is_array() || meta["ops"].empty()) continue;
      double total = 0;
      for (const Json& op : meta["ops"]) total += op.value("estimated_runtime_ns", 0.0);
      runtime_of[log.rank].emplace_back(graph, total);
      runtimes.push_back({{"rank", log.rank}, {"graph", graph}, {"ops", meta["ops"]}});
    }
    if (!fingerprints.empty()) tensor_meta[log.rank] = fingerprints;
  }
  if (!schedules.empty()) {
    for (const RankLog& log : logs) collective_sequence[log.rank];
    result.collective_groups = group_by(collective_sequence);
    if (Status w = write_file_atomic((out / "collective_schedules.json").string(),
                                     schedules.dump(2) + "\n");
        !w.ok())
      return w.errors();
  }
  if (!tensor_meta.empty()) {
    for (const RankLog& log : logs) tensor_meta[log.rank];
    result.tensor_meta_groups = group_by(tensor_meta);
  }
  bool runtime_trace = !runtimes.empty();
  if (runtime_trace) {
    if (Status w =
            write_file_atomic((out / "runtime_estimations.json").string(), runtimes.dump(2) + "\n");
        !w.ok())
      return w.errors();
    // Each rank a process, each graph a thread, its ops back to back.
    Json trace = Json::array();
    for (const Json& g : runtimes) {
      int rank = g["rank"].get<int>();
      int64_t tid = static_cast<int64_t>(std::hash<std::string>{}(g["graph"].get<std::string>()) &
                                         0x7fffffff);
      trace.push_back({{"name", "thread_name"},
                       {"ph", "M"},
                       {"pid", rank},
                       {"tid", tid},
                       {"args", {{"name", "graph " + g["graph"].get<std::string>()}}}});
      uint64_t at = 0;
      for (const Json& op : g["ops"]) {
        double ns = op.value("estimated_runtime_ns", 0.0);
        uint64_t dur = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(ns / 1000.0)));
        trace.push_back({{"name", op.value("name", "")},
                         {"ph", "X"},
                         {"ts", at},
                         {"dur", dur},
                         {"pid", rank},
                         {"tid", tid},
                         {"cat", "runtime"},
                         {"args", {{"graph", g["graph"]}, {"rank", rank}, {"runtime_ns", ns}}}});
        at += dur;
      }
    }
    for (const auto& [rank, graphs] : runtime_of)
      trace.push_back({{"name", "process_name"},
                       {"ph", "M"},
                       {"pid", rank},
                       {"args", {{"name", "Rank " + std::to_string(rank)}}}});
    if (Status w = write_file_atomic((out / "chromium_trace_with_runtime.json").string(),
                                     trace.dump(2) + "\n");
        !w.ok())
      return w.errors();
    // Graph by graph (in folder order), the fastest and the slowest rank.
    size_t counts = runtime_of.begin()->second.size();
    for (const auto& [rank, graphs] : runtime_of)
      result.runtime_graph_counts_differ |= graphs.size() != counts;
    if (!result.runtime_graph_counts_differ) {
      for (size_t i = 0; i < counts; ++i) {
        RuntimeDelta d;
        d.graph = runtime_of.begin()->second[i].first;
        d.fastest_ms = INFINITY;
        d.slowest_ms = -INFINITY;
        for (const auto& [rank, graphs] : runtime_of) {
          double ms = graphs[i].second / 1e6;
          if (ms <= d.fastest_ms) d.fastest_ms = ms, d.fastest_rank = rank;
          if (ms >= d.slowest_ms) d.slowest_ms = ms, d.slowest_rank = rank;
        }
        result.runtime_deltas.push_back(d);
      }
    }
  }
  if (auto s = write_file_atomic((out / "index.html").string(),
                                 landing_page(result, compile_ids, runtime_trace, options));
      !s.ok())
    return s.errors();
  return result;
}

}  // namespace

// Far above any job's ranks; a larger number in a file name is not one.
constexpr int kMaxRank = 1 << 20;

Expected<std::vector<RankLog>> find_rank_logs(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return file_error(dir, "--all-ranks-html needs the folder of one run's per-rank logs");
  static const std::regex kName(R"(dedicated_log_torch_trace_rank_(\d+).*\.log)");
  std::vector<RankLog> logs;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::smatch m;
    std::string name = e.path().filename().string();
    if (!e.is_regular_file() || !std::regex_match(name, m, kName)) continue;
    int rank = 0;
    const std::string digits = m[1].str();
    if (auto [end, err] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
        err != std::errc() || end != digits.data() + digits.size() || rank > kMaxRank)
      return file_error(e.path().string(),
                        "rank " + digits.substr(0, 20) + (digits.size() > 20 ? "..." : "") +
                            " is not a rank number (0 to " + std::to_string(kMaxRank) + ")");
    for (const RankLog& l : logs)
      if (l.rank == rank)
        return file_error(dir, "two logs for rank " + std::to_string(rank) + ": " + l.path +
                                   " and " + e.path().string());
    logs.push_back({rank, e.path().string()});
  }
  if (logs.empty())
    return error_message(
        dir + ": no per-rank logs (dedicated_log_torch_trace_rank_<n>*.log) in this folder");
  std::sort(logs.begin(), logs.end(),
            [](const RankLog& a, const RankLog& b) { return a.rank < b.rank; });
  return logs;
}

Expected<MultiRankResult> write_multi_rank_report(const std::string& dir,
                                                  const std::string& out_dir,
                                                  const ReportOptions& options, bool overwrite,
                                                  bool strict) {
  auto logs = find_rank_logs(dir);
  REMAT_TRY(logs);
  std::optional<MultiRankResult> result;
  Status s = write_whole_folder(out_dir, overwrite, dir, [&](const std::string& temp) -> Status {
    auto r = write_site(*logs, temp, options, strict);
    REMAT_TRY(r);
    result = std::move(*r);
    return {};
  });
  if (!s.ok()) return s.errors();
  return std::move(*result);
}

}  // namespace remat::report
