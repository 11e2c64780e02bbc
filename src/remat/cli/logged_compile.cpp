#include "remat/cli/logged_compile.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "remat/fxtext/graph_statements.h"
#include "remat/fxtext/static_inputs.h"
#include "remat/fxtext/text_scan.h"
#include "remat/support/file_io.h"
#include "remat/tracelog/glog_header.h"
#include "remat/tracelog/trace_reader.h"

namespace remat::cli {
namespace {

/// "3/0" from "[3/0]", "3/0" or " 3/0 ".
std::string bare_id(std::string_view id) {
  id = fxtext::trim(id);
  if (id.starts_with('[') && id.ends_with(']')) id = id.substr(1, id.size() - 2);
  return std::string(id);
}

/// A compile with a joint graph, for the listing.
struct Seen {
  std::string id;
  size_t nodes = 0, bytes = 0;
  uint64_t line = 0;
};

std::string listing(const std::vector<Seen>& seen) {
  std::string out;
  constexpr size_t kShown = 40;
  for (size_t i = 0; i < seen.size() && i < kShown; ++i) {
    out += fmt::format("\n  --compile {:<8} a joint graph of {} nodes ({} KB), line {}", seen[i].id,
                       seen[i].nodes, (seen[i].bytes + 1023) / 1024, seen[i].line);
  }
  if (seen.size() > kShown) out += fmt::format("\n  and {} more", seen.size() - kShown);
  return out;
}

}  // namespace

bool looks_like_trace_log(std::string_view text) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return false;
  std::string_view first = text.substr(start, text.find('\n', start) - start);
  tracelog::GlogHeader header;
  size_t json_start = 0;
  return tracelog::parse_glog_header(first, header, json_start);
}

Expected<LoggedCompile> logged_compile(const std::string& path, std::string_view compile) {
  auto reader = tracelog::TraceReader::open(path);
  REMAT_TRY(reader);
  std::string wanted = bare_id(compile);
  std::vector<Seen> seen;
  LoggedCompile picked;
  std::string dynamo;  // the picked compile's Dynamo graph
  std::string last_dynamo, last_dynamo_id;
  bool found = false;
  tracelog::TraceRecord r;
  while ((*reader)->next(r)) {
    if (!r.compile_id) continue;
    const std::string& e = r.event;
    if (e != "aot_joint_graph" && e != "aot_forward_graph" && e != "aot_backward_graph" &&
        e != "dynamo_output_graph")
      continue;
    std::string id = bare_id(r.compile_id->display());
    if (e == "dynamo_output_graph") {  // logged before its compile's joint graph
      if (wanted.empty() || id == wanted) {
        last_dynamo_id = id;
        last_dynamo = std::move(r.payload);
      }
      continue;
    }
    if (e == "aot_joint_graph") {
      if (std::ranges::any_of(seen, [&](const Seen& s) { return s.id == id; }))
        continue;  // logged again: the first is the one PyTorch partitioned first
      seen.push_back({id, fxtext::graph_lines(r.payload).size(), r.payload.size(), r.lineno});
    }
    // Without --compile the first joint's compile is kept, in case it is the only one.
    bool mine = wanted.empty() ? (seen.size() == 1 && seen[0].id == id) : id == wanted;
    if (!mine) continue;
    if (e == "aot_joint_graph") {
      found = true;
      if (last_dynamo_id == id) dynamo = std::move(last_dynamo);
      picked.id = id;
      picked.joint = std::move(r.payload);
      picked.joint_line = r.lineno;
    } else {
      (e == "aot_forward_graph" ? picked.forward : picked.backward) = std::move(r.payload);
    }
  }
  std::string file = display_name(path);
  if (seen.empty()) {
    return file_error(file,
                      "the log holds no aot_joint_graph (the joint graph PyTorch logs for a "
                      "training compile): log a training step under TORCH_TRACE, the forward and "
                      "loss.backward()");
  }
  // The compiles to choose from go to stderr before the error: a listing is longer than an
  // error message may be.
  auto list = [&](std::string_view what) {
    std::fprintf(stderr, "%s %s:%s\n", file.c_str(), std::string(what).c_str(),
                 listing(seen).c_str());
  };
  if (wanted.empty() && seen.size() > 1) {
    list(fmt::format("holds {} compiles with a joint graph", seen.size()));
    return file_error(file, "pick one of the compiles above with --compile");
  }
  if (!found) {
    list("holds joint graphs for these compiles");
    return file_error(file,
                      fmt::format("no compile {} with a joint graph in the log (listed above)",
                                  bare_id(compile).substr(0, 40)));
  }
  picked.static_inputs = fxtext::static_input_indices(dynamo, picked.joint);
  return picked;
}

Diagnostics in_log(Diagnostics errors, const std::string& log, const LoggedCompile& c) {
  for (Diagnostic& d : errors) {
    d.file = display_name(log);
    if (d.line > 0) d.line += static_cast<int>(c.joint_line);
    if (d.col > 0) ++d.col;  // the tab before each payload line
    if (d.line == 0 && d.message.find("compile") == std::string::npos)
      d.message = "compile " + c.id + "'s joint graph: " + d.message;
  }
  return errors;
}

}  // namespace remat::cli
