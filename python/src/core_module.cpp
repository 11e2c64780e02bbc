// remat._core: the C++ library behind the `remat` Python package. Graphs cross the boundary as
// fxgraph-json text (python/remat/export.py writes it), so this file is wiring only: read,
// print, partition, log. Errors become remat._core.Error with remat's diagnostics as message.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "remat/driver/aot_records.h"
#include "remat/io/graph_json.h"
#include "remat/ops/aten_overloads.h"
#include "remat/partition/memory_budget.h"
#include "remat/partition/partition_charts.h"
#include "remat/partition/partition_joint.h"
#include "remat/partition/policy_module.h"
#include "remat/partition/reproducing_policy.h"
#include "remat/partition/validity.h"
#include "remat/print/printer.h"
#include "remat/print/readable_parser.h"
#include "remat/tracelog/trace_writer.h"

namespace py = pybind11;

namespace remat::python {
namespace {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class T>
T take(Expected<T> e) {
  if (!e) throw Error(format_all(e.errors()));
  return std::move(*e);
}

GraphModule read(const std::string& json, const std::string& what) {
  return take(read_graph_json(json, what));
}

std::string print(const std::string& graph_json, const std::string& style, bool include_stride,
                  bool include_device, bool expanded_def, bool colored,
                  const std::string& class_name) {
  PrintOptions o;
  if (!apply_style_name(style, o)) {
    std::string names;
    for (std::string_view n : style_names()) names += (names.empty() ? "" : ", ") + std::string(n);
    throw Error("print_readable: style must be one of " + names + ", not " + style);
  }
  // Recompute tags are remat's addition where the release printed none (they show only where
  // node.meta has them).
  if (o.tag_style == TagStyle::None) o.tag_style = TagStyle::Seed;
  GraphModule m = read(graph_json, "<graph>");
  o.include_stride = include_stride;
  o.include_device = include_device;
  o.expanded_def = expanded_def;
  o.colored = colored;
  o.class_name = class_name;
  return print_readable(m, o).text;
}

/// Targets no PyTorch release has (a misspelt overload, arguments that do not fit the schema).
/// Real ops outside remat's registry are partitioned as PyTorch does: never recomputed.
void refuse_unknown_ops(const GraphModule& joint) {
  std::string problems;
  for (const auto& [node, problem] : target_problems(joint.graph()))
    problems += "node " + node->name() + ": " + problem + "\n";
  if (!problems.empty()) throw Error(problems.substr(0, problems.size() - 1));
}

/// The min-cut's switches from a dict of torch._functorch.config's names (the Python side reads
/// them from the running PyTorch); a name remat does not know is an error, not ignored.
partition::MinCutConfig min_cut_config(const py::dict& switches) {
  partition::MinCutConfig config;
  const std::pair<const char*, bool partition::MinCutConfig::*> flags[] = {
      {"cse", &partition::MinCutConfig::cse},
      {"ban_recompute_used_far_apart", &partition::MinCutConfig::ban_recompute_used_far_apart},
      {"ban_recompute_long_fusible_chains",
       &partition::MinCutConfig::ban_recompute_long_fusible_chains},
      {"ban_recompute_materialized_backward",
       &partition::MinCutConfig::ban_recompute_materialized_backward},
      {"ban_recompute_not_in_allowlist", &partition::MinCutConfig::ban_recompute_not_in_allowlist},
      {"ban_recompute_reductions", &partition::MinCutConfig::ban_recompute_reductions},
      {"recompute_views", &partition::MinCutConfig::recompute_views},
      {"treat_parameters_as_free_to_save",
       &partition::MinCutConfig::treat_parameters_as_free_to_save},
      {"ban_recompute_unknown_ops", &partition::MinCutConfig::ban_recompute_unknown_ops},
  };
  for (const auto& [key, value] : switches) {
    const std::string name = py::str(key);
    auto flag = std::find_if(std::begin(flags), std::end(flags),
                             [&](const auto& f) { return name == f.first; });
    if (flag != std::end(flags)) {
      config.*(flag->second) = value.cast<bool>();
    } else if (name == "knapsack") {
      const std::string solver = py::str(value);
      std::optional<partition::KnapsackSolver> parsed = partition::parse_knapsack_solver(solver);
      if (!parsed) throw Error("partition: unknown knapsack solver " + solver);
      config.knapsack = *parsed;
    } else {
      throw Error("partition: unknown switch " + name);
    }
  }
  return config;
}

// A budget as Python gives it: PyTorch's fraction (a float) or a string remat parses ("0.5",
// "24MB").
partition::MemoryBudget memory_budget(const py::object& budget) {
  if (py::isinstance<py::str>(budget))
    return take(partition::parse_memory_budget(budget.cast<std::string>()));
  auto fraction = budget.cast<double>();
  if (!(fraction >= 0.0 && fraction <= 1.0)) throw Error("partition: budget must be in [0, 1]");
  return {fraction, std::nullopt};
}

py::dict partition(const std::string& joint_json, const std::string& strategy_name,
                   const py::object& budget_given, bool want_graphs, bool verify, bool charts,
                   const py::dict& switches, const py::object& knapsack, bool within_regions,
                   double time_limit, double gap) {
  std::optional<partition::Strategy> strategy = partition::parse_strategy(strategy_name);
  if (!strategy)
    throw Error("partition: strategy must be min-cut, default or optimal, not " + strategy_name);
  partition::MemoryBudget budget = memory_budget(budget_given);
  if (!(time_limit > 0)) throw Error("partition: time_limit must be a positive number of seconds");
  if (!(gap >= 0 && gap <= 1)) throw Error("partition: gap must be in [0, 1]");
  GraphModule joint = read(joint_json, "<joint graph>");
  refuse_unknown_ops(joint);
  partition::MinCutConfig config = min_cut_config(switches);
  // A Python knapsack solver: saved item indices from (memory, runtime, capacity). The partition
  // runs without the GIL; the call takes it, and a Python error is raised once C++ is done.
  std::optional<py::error_already_set> knapsack_error;
  if (!knapsack.is_none()) {
    config.knapsack_solver = [&](const std::vector<double>& memory,
                                 const std::vector<double>& runtime, double capacity) {
      partition::KnapsackResult r;
      py::gil_scoped_acquire gil;
      std::vector<bool> saved(memory.size(), false);
      try {
        for (py::handle i : knapsack(memory, runtime, capacity)) saved.at(i.cast<size_t>()) = true;
      } catch (py::error_already_set& e) {
        if (!knapsack_error) knapsack_error = std::move(e);
      }
      for (size_t i = 0; i < saved.size(); ++i) {
        if (saved[i]) {
          r.saved.push_back(static_cast<int>(i));
          r.value += runtime[i];
        }
      }
      for (size_t i = saved.size(); i-- > 0;)
        if (!saved[i]) r.recompute.push_back(static_cast<int>(i));
      return r;
    };
  }
  // Pure C++ from here: other Python threads may run meanwhile.
  Expected<partition::Partition> result = [&] {
    py::gil_scoped_release unlocked;
    partition::OptimalOptions optimal;
    optimal.within_regions = within_regions;
    optimal.time_limit_seconds = time_limit;
    optimal.relative_gap = gap;
    return partition::partition_for_budget(joint, *strategy, config, budget, optimal);
  }();
  if (knapsack_error) throw std::move(*knapsack_error);
  if (!result) throw Error(format_all(result.errors()));
  partition::Partition& p = *result;
  if (charts) {  // the report's pictures, in the record
    py::gil_scoped_release unlocked;
    auto c = partition::chart_partition(joint, p, *strategy, config);
    if (knapsack_error) throw std::move(*knapsack_error);
    if (!c) throw Error(format_all(c.errors()));
    p.report.charts = std::move(*c);
  }
  std::vector<std::string> violations;
  if (verify) {
    py::gil_scoped_release unlocked;
    violations = partition::check_validity(joint, p.graphs, p.report);
  }
  const partition::PartitionReport& r = p.report;
  py::list saved;
  for (const partition::SavedValue& v : r.saved_values) saved.append(v.name);
  py::dict out;
  out["saved"] = saved;
  out["saved_symints"] = r.saved_symints;
  out["stage"] = r.stage;
  out["saved_bytes"] = r.saved_bytes_total;
  out["activation_bytes"] = r.activation_bytes.value_or(0);
  out["recompute_flops"] = r.recompute_flops.value_or(0);
  out["peak_memory_bytes"] = r.peak_memory_bytes;
  out["report_json"] = r.json();
  out["report_text"] = r.text();
  out["violations"] = violations;
  out["merged"] = p.merged;
  out["rng_replayed"] = p.rng_replayed;
  // Each graph as PyTorch's extraction would cut it from the (merged) joint: its inputs, the
  // nodes it computes and its outputs, by name.
  for (const auto& [key, graph] :
       {std::pair{"forward", &p.graphs.forward}, std::pair{"backward", &p.graphs.backward}}) {
    py::list inputs, body, outputs;
    for (const Node* n : graph->graph().nodes()) {
      if (n->op() == OpKind::Placeholder) {
        inputs.append(n->name());
      } else if (n->op() != OpKind::Output) {
        body.append(n->name());
      } else if (!n->args().empty()) {
        for (const Argument& a : n->args()[0].is_sequence() ? n->args()[0].elements() : n->args())
          outputs.append(a.is_node() ? py::object(py::str(a.as_node()->name()))
                                     : py::object(py::none()));
      }
    }
    out[py::str(std::string(key) + "_inputs")] = inputs;
    out[py::str(std::string(key) + "_nodes")] = body;
    out[py::str(std::string(key) + "_outputs")] = outputs;
  }
  if (want_graphs) {
    out["forward_json"] = write_graph_json(p.graphs.forward);
    out["backward_json"] = write_graph_json(p.graphs.backward);
  }
  return out;
}

/// The selective-checkpointing policy that makes PyTorch's partitioner save `saved`.
py::dict checkpoint_policy(const std::string& joint_json, const std::vector<std::string>& saved,
                           const std::vector<std::string>& recomputed, const std::string& source,
                           const py::dict& switches) {
  GraphModule joint = read(joint_json, "<joint graph>");
  partition::MinCutConfig config = min_cut_config(switches);
  partition::ReproducingPolicy p = [&] {
    py::gil_scoped_release unlocked;
    return take(partition::reproducing_policy(joint, saved, recomputed, config));
  }();
  py::list mismatches;
  for (const partition::PolicyMismatch& m : p.mismatches)
    mismatches.append(py::make_tuple(m.name, m.chosen_saved, m.predicted_saved, m.why));
  py::dict out;
  out["text"] = partition::policy_module_text(p, source);
  out["mismatches"] = mismatches;
  out["predicted"] = p.predicted;
  out["regions"] = p.regions.size();
  out["calls"] = p.call_count();
  out["saved_calls"] = p.saved_call_count();
  return out;
}

/// The op calls selective checkpointing shows a policy, read off a joint graph: per region node,
/// (name, ac_graph_id, op as the joint shows it, call index or None, kind): kind "call" (the
/// policy's tag), "remade" (PREFER_RECOMPUTE whatever the policy says; a remade view that is no
/// call's output has no index) or "unseen" (no call: PREFER_RECOMPUTE).
py::list policy_calls(const std::string& joint_json) {
  GraphModule joint = read(joint_json, "<joint graph>");
  partition::RegionCalls found = partition::region_calls(joint);
  py::list out;
  std::unordered_set<const Node*> remade(found.remade.begin(), found.remade.end());
  for (const partition::RegionCalls::Call& c : found.calls) {
    for (const Node* n : c.nodes)
      out.append(py::make_tuple(n->name(), c.region, c.op, c.index, c.remade ? "remade" : "call"));
    for (const Node* n : c.nodes) remade.erase(n);
  }
  for (const Node* n : found.remade) {
    if (remade.contains(n))
      out.append(py::make_tuple(n->name(), *n->meta.ac_graph_id(), std::string(n->target().view()),
                                py::none(), "remade"));
  }
  for (const Node* n : found.unseen)
    out.append(py::make_tuple(n->name(), *n->meta.ac_graph_id(), std::string(n->target().view()),
                              py::none(), "unseen"));
  return out;
}

/// One process's TORCH_TRACE log for the PyTorch releases that write none (before 2.2): the
/// aot_* graph records and remat's partition record of each partition_fn call, as remat compile
/// writes them, so `remat report DIR` shows the reasons.
class TraceLog {
 public:
  explicit TraceLog(const std::string& dir) : writer_(take(tracelog::TraceWriter::create(dir))) {}

  void write_partition(int64_t frame_id, const std::string& joint_json, const std::string& fw_json,
                       const std::string& bw_json, const std::string& report_json) {
    if (!writer_) throw Error("trace log: already closed");
    // The graph records in tlparse's options; the report as partition() wrote it.
    GraphModule joint = read(joint_json, "<joint graph>"), fw = read(fw_json, "<forward graph>"),
                bw = read(bw_json, "<backward graph>");
    tracelog::CompileId id{std::nullopt, frame_id, 0, 0};
    driver::write_aot_records(*writer_, id, joint, fw, bw, nullptr);
    writer_->artifact("remat_partition", "json", id, report_json);
  }
  [[nodiscard]] std::string path() const { return writer_ ? writer_->path() : closed_path_; }
  std::string close() {
    if (!writer_) return closed_path_;
    closed_path_ = take(writer_->close());
    writer_.reset();
    return closed_path_;
  }

 private:
  std::unique_ptr<tracelog::TraceWriter> writer_;
  std::string closed_path_;
};

}  // namespace
}  // namespace remat::python

PYBIND11_MODULE(_core, m) {
  using namespace remat::python;
  m.doc() = "remat's C++ core: printer, parser, partitioners and trace log over fxgraph-json";
  py::register_exception<Error>(m, "Error", PyExc_ValueError);
  m.def("print_readable", &print, py::arg("graph_json"), py::arg("style") = "current",
        py::arg("include_stride") = false, py::arg("include_device") = false,
        py::arg("expanded_def") = false, py::arg("colored") = false, py::arg("class_name") = "",
        "torch.fx's print_readable text of an fxgraph-json graph, by remat's printer");
  m.def(
      "parse_readable",
      [](const std::string& text, const std::string& file) {
        return remat::write_graph_json(take(remat::parse_readable(text, file)));
      },
      py::arg("text"), py::arg("file") = "<text>", "fxgraph-json of printed torch.fx code");
  m.def(
      "parse_memory_budget",
      [](const std::string& text) {
        remat::partition::MemoryBudget b = take(remat::partition::parse_memory_budget(text));
        return py::make_tuple(b.fraction ? py::cast(*b.fraction) : py::none(),
                              b.bytes ? py::cast(*b.bytes) : py::none());
      },
      py::arg("text"), "(fraction, bytes), one of them None: '0.5' or '24MB' (K, M, G = 1024^n)");
  m.def("partition", &partition, py::arg("joint_json"), py::arg("strategy") = "min-cut",
        py::arg("budget") = 1.0, py::arg("graphs") = false, py::arg("verify") = false,
        py::arg("charts") = false, py::arg("switches") = py::dict(),
        py::arg("knapsack") = py::none(), py::arg("within_regions") = false,
        py::arg("time_limit") = 60.0, py::arg("gap") = 0.0,
        "partition a joint graph: the saved values in forward-output order, the report (with the "
        "numbers of the report's pictures when charts=True), and (graphs=True) remat's forward "
        "and backward graphs; switches: the min-cut's options by torch._functorch.config's names "
        "(ban_recompute_*, recompute_views, cse, ...) and knapsack (dp, greedy, ilp, "
        "dynamic_memory_budget_dp); knapsack: a callable (memory, runtime, capacity) -> saved "
        "indices that solves the memory budget's knapsack instead; within_regions: the optimum "
        "decides inside checkpoint regions only (what a policy can reproduce); time_limit "
        "(seconds) and gap (relative): when the optimum's solver stops with the best found");
  m.def("checkpoint_policy", &checkpoint_policy, py::arg("joint_json"), py::arg("saved"),
        py::arg("recomputed"), py::arg("source") = "remat", py::arg("switches") = py::dict(),
        "the policy module that makes PyTorch's partitioner save `saved` and recompute "
        "`recomputed` (joint node names): "
        "its text, and where PyTorch's min-cut with it would save otherwise (name, chosen, "
        "predicted, why)");
  m.def("policy_calls", &policy_calls, py::arg("joint_json"),
        "the op calls a selective-checkpointing policy sees in the joint's checkpoint regions: "
        "(node, ac_graph_id, op, call index or None, kind) per region node, kind 'call', "
        "'remade' (PREFER_RECOMPUTE whatever the policy says) or 'unseen'");
  py::class_<TraceLog>(m, "TraceLog")
      .def(py::init<const std::string&>(), py::arg("dir"))
      .def("write_partition", &TraceLog::write_partition, py::arg("frame_id"),
           py::arg("joint_json"), py::arg("forward_json"), py::arg("backward_json"),
           py::arg("report_json"))
      .def_property_readonly("path", &TraceLog::path)
      .def("close", &TraceLog::close);
  m.attr("__version__") = REMAT_VERSION;
}
