// remat check FILE [--fw F --bw B]: runs graphs through libtorch and compares the numbers.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>

#include <unistd.h>

#include "remat/cli/commands.h"
#include "remat/cli/graph_files.h"
#include "remat/exec/numeric_check.h"
#include "remat/support/file_io.h"
#include "remat/support/saturating_math.h"

namespace remat::cli {

namespace {

struct CheckArgs {
  std::string joint, compile, fw, bw, device = "cpu", result_file;
  exec::CheckOptions options;
};

// The check runs the graph in real numbers: inputs that alone outgrow half of this machine's
// memory are refused up front, rather than left to the kernel's out-of-memory killer (a graph
// file from elsewhere may declare f32[1048576, 1048576]).
Status refuse_what_does_not_fit(const GraphModule& joint, const std::string& file) {
  int64_t inputs = 0;
  for (const Node* n : joint.graph().nodes()) {
    if (n->op() != OpKind::Placeholder) continue;
    if (const TensorMeta* t = n->meta.tensor())
      inputs = sat_add(inputs, t->estimated_nbytes().value_or(0));
  }
  long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  int64_t memory = pages > 0 && page > 0 ? sat_mul(pages, page) : kSaturated;
  if (inputs > memory / 2)
    return file_error(file, fmt::format("its inputs alone take {} bytes, more than half of this "
                                        "machine's memory ({} bytes): remat check runs the graph "
                                        "in real numbers",
                                        inputs, memory));
  return {};
}

Expected<int> run_check(const CheckArgs& a) {
  if (a.fw.empty() != a.bw.empty()) return error_message("check: --fw and --bw go together");
  if (a.options.measure_memory && a.fw.empty())
    return error_message("check: --memory measures a partition: give --fw and --bw");
  Expected<GraphModule> joint = load_graph(a.joint, BadTargets::Refuse, a.compile);
  REMAT_TRY(joint);
  REMAT_TRY(refuse_what_does_not_fit(*joint, a.joint));
  // Long checks say where they are, at most once a second.
  exec::CheckOptions options = a.options;
  options.progress = [last = std::chrono::steady_clock::now()](std::string_view graph, size_t done,
                                                               size_t total) mutable {
    auto now = std::chrono::steady_clock::now();
    if (now - last < std::chrono::seconds(1)) return;
    last = now;
    std::fprintf(stderr, "check: %.*s: node %zu of %zu\n", static_cast<int>(graph.size()),
                 graph.data(), done, total);
  };
  Expected<exec::CheckReport> result = exec::check_joint(*joint, options);
  if (result && !a.fw.empty()) {
    Expected<GraphModule> fw = load_graph(a.fw), bw = load_graph(a.bw);
    if (!fw || !bw) {
      return !fw ? fw.errors() : bw.errors();
    }
    result = exec::check_partition(*joint, *fw, *bw, options);
  }
  if (!result) {
    Diagnostics errors = result.errors();
    for (Diagnostic& d : errors) {
      if (d.file.empty())
        d.file = a.fw.empty() ? a.joint : a.joint + " (with " + a.fw + ", " + a.bw + ")";
    }
    return errors;
  }
  fmt::print("{}", result->text());
  if (auto peak = result->measured_peak(); peak != result->memory.end()) {
    fmt::print("memory: measured peak {} bytes at {} ({}), over {} nodes\n", peak->live, peak->node,
               peak->backward ? "backward" : "forward", result->memory.size());
  }
  if (!a.result_file.empty()) {
    REMAT_TRY(write_file_atomic(a.result_file, result->json()));
  }
  return result->ok() ? kExitOk : kExitCheckFailed;
}

}  // namespace

void add_check_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "check",
      "Run a joint graph through libtorch's ATen on deterministic random inputs: every value must "
      "match its metadata and every gradient must equal libtorch's own autograd of the joint's "
      "forward part. With --fw F --bw B, run the forward then the backward graph on the same "
      "inputs and compare every output and gradient with the joint's. Exit 1 beyond tolerance.");
  auto a = std::make_shared<CheckArgs>();
  cmd->add_option("joint", a->joint,
                  "the joint graph (fxgraph-json, readable text, or a TORCH_TRACE log)")
      ->required();
  add_compile_option(*cmd, a->compile);
  cmd->add_option("--fw", a->fw, "a partitioned forward graph");
  cmd->add_option("--bw", a->bw, "the matching backward graph");
  cmd->add_option("--seed", a->options.seed, "seed of the inputs, tangents and random ops");
  cmd->add_option("--atol", a->options.atol, "absolute tolerance")->check(CLI::NonNegativeNumber);
  cmd->add_option("--rtol", a->options.rtol, "relative tolerance")->check(CLI::NonNegativeNumber);
  cmd->add_option("--device", a->device,
                  "where to run: cpu (this libtorch has no GPU); a graph captured on a GPU runs "
                  "there with its "
                  "device arguments (cuda:0) mapped to the CPU")
      ->check(CLI::IsMember({"cpu"}));
  cmd->add_flag("--memory", a->options.measure_memory,
                "with --fw/--bw: measure the bytes the real tensors hold at each node (the step's "
                "inputs throughout, the forward's outputs through the backward, every other "
                "storage until its last use) and print the peak");
  cmd->add_option("--result", a->result_file,
                  "also write the outcome as JSON: {\"values\", \"beyond_tolerance\", "
                  "\"max_abs_error\", \"max_rel_error\"} (what remat compile reads)");
  run_verb(*cmd, a, exit_code, &run_check);
}

}  // namespace remat::cli
