#include "remat/report/glossary.h"

#include <array>

#include "remat/report/html.h"

namespace remat::report {
namespace {

// What lifts the soft bans, said once for every entry that needs it.
constexpr std::string_view kLowerBudget =
    "Lower the memory budget below 1 (<code>torch._functorch.config.activation_memory_budget</code>"
    ", <code>remat partition --budget</code>): the far-apart, fusible-chain, materialized-backward "
    "and reduction bans go first, the allowlist next. A recompute tag from a checkpoint policy "
    "(<code>PREFER_RECOMPUTE</code>, <code>MUST_RECOMPUTE</code>) overrides every ban.";

// The order matters: the first entry whose opening words a reason starts with is its entry.
constexpr std::array<GlossaryEntry, 24> kEntries = {{
    // Why a value is saved.
    {"cheapest-cut-banned", "cheapest cut: recomputing it is banned",
     "cheapest cut: recomputing it is banned",
     "The value lies on the cheapest cut (see below), and a ban keeps it from being recomputed "
     "(its reason is in the partition page's table of bans): the backward has to get it from the "
     "forward.",
     kLowerBudget},
    {"cheapest-cut", "cheapest cut", "cheapest cut: saving it costs less than recomputing",
     "The min-cut partitioner prices every forward value by the memory saving it costs and cuts "
     "the joint graph where the total is smallest: everything the backward needs is then either "
     "saved or recomputed from what is saved. This value lies on that cut: saving it is cheaper "
     "than saving what it would be recomputed from.",
     "To recompute it instead, lower the memory budget "
     "(<code>torch._functorch.config.activation_memory_budget</code>, <code>remat partition "
     "--budget</code>), or put it in a checkpoint region whose policy returns "
     "<code>PREFER_RECOMPUTE</code> for its op."},
    {"optimum", "the optimum at this budget", "the optimum at this budget",
     "<code>remat partition --strategy optimal</code> solved an integer program over every "
     "forward value (save it, or recompute it from what is saved) for the least recomputed FLOPs "
     "whose activation memory fits the budget; this value is saved in that solution. The "
     "partition's notes say whether the solver proved the optimum or stopped at its time limit "
     "(and how far from the optimum it may be).",
     "To recompute it, lower the budget; to make PyTorch save the same set, partition with "
     "<code>--within-regions</code> and write a policy with <code>remat policy</code> "
     "(<code>docs/partitioner.md</code>, a policy that reproduces it)."},
    {"offloaded", "offloaded to host memory", "offloaded to host memory",
     "<code>remat partition --strategy optimal --offload-bandwidth</code> let the optimum keep "
     "saved values in host memory instead of the device's: they leave the activation memory, and "
     "cost the time to move them out and back, weighed against recomputing at "
     "<code>--flops-per-second</code>. Moving this value costs less than recomputing it or "
     "keeping it within the budget.",
     "A slower link (or a faster device) makes offloading dearer; PyTorch 2.13 offloads what "
     "<code>torch._functorch.config.enable_activation_offloading</code> and a node's "
     "<code>should_offload</code> mark, not what a checkpoint policy tags."},
    {"must-save", "marked MUST_SAVE", "marked MUST_SAVE",
     "A checkpoint policy (<code>torch.utils.checkpoint.create_selective_checkpoint_contexts</code>"
     ") returned <code>MUST_SAVE</code> for this op: the partitioner saves it whatever it costs, "
     "and never recomputes it.",
     "Return <code>PREFER_RECOMPUTE</code> for the op from the policy (remat's zoo: another "
     "<code>--policy</code>) to let the partitioner choose. At a memory budget of 0 only the "
     "inputs are saved, MUST_SAVE values included."},
    {"primal", "a primal the backward reads", "a primal the backward reads",
     "An input of the step (a parameter or the batch) that the backward reads. Its owner keeps it "
     "alive anyway, so saving it costs no activation memory.",
     "Nothing: it is not activation memory. The pages fold these under &ldquo;inputs the "
     "backward reads anyway&rdquo;."},
    {"region-boundary", "boundary between checkpoint regions",
     "boundary between checkpoint regions (tag clean-up made it MUST_SAVE)",
     "PyTorch's recompute-tag clean-up makes a value MUST_SAVE when one checkpoint region "
     "computes it and another region (or code outside any) reads it, so that each region is "
     "recomputed from its own inputs, as eager activation checkpointing does.",
     "Checkpoint larger blocks (one region over several layers) to save fewer boundaries; fewer, "
     "smaller regions recompute less."},
    {"region-input", "checkpoint-region input", "checkpoint-region input",
     "The default partition saves the inputs of every checkpoint region (the tag clean-up makes "
     "them MUST_SAVE), as eager checkpointing keeps each region's inputs.",
     "The min-cut partitioner (torch.compile's default for training) lets the cut decide instead; "
     "larger regions save fewer inputs."},
    {"recompute-input", "read by a node the backward recomputes",
     "read by a node the backward recomputes",
     "The default partition recomputes the tagged nodes and saves what they read from outside "
     "their region.",
     "The min-cut partitioner lets the cut decide instead."},
    {"read-by-backward", "read by the backward", "read by the backward",
     "The backward reads this forward value; the partitioner recorded no more specific reason.",
     "See the partition's notes and the joint graph's page for the nodes that read it."},
    {"backward-input", "an input of the backward graph",
     "an input of the backward graph (read off PyTorch's graphs)",
     "Read off the graphs PyTorch logged: the forward returns this value to the backward. PyTorch "
     "logs no reason with its partition.",
     "For the partitioner's reason for every value, compile with <code>remat.partition_fn</code> "
     "as the partition function and log with <code>TORCH_TRACE</code>: remat logs a "
     "<code>remat_partition</code> record with the reasons (the same saved set as PyTorch's)."},
    // Why a node is recomputed.
    {"tagged", "tagged ", "tagged PREFER_RECOMPUTE / MUST_RECOMPUTE",
     "The node is inside a checkpoint region (<code>torch.utils.checkpoint</code>) whose policy "
     "tagged it for recomputation: the backward computes it again instead of keeping it from the "
     "forward.",
     "To save it instead, return <code>MUST_SAVE</code> (or <code>PREFER_SAVE</code>) for its op "
     "from the region's policy (<code>create_selective_checkpoint_contexts</code>; remat's zoo: "
     "<code>--policy save-matmuls</code>, <code>save-ops:OP</code>), or take it out of the "
     "region."},
    {"cheaper-to-recompute", "cheaper to recompute", "cheaper to recompute from saved values",
     "Not tagged, but on the backward's side of the cheapest cut: recomputing it from saved "
     "values costs less memory than saving it. Usually a view or a cheap pointwise op.",
     "Saving it would cost memory and spare little compute. A policy returning "
     "<code>MUST_SAVE</code> for its op forces it."},
    {"view", "a view", "a view: recomputing it is free",
     "A view moves no data, so recomputing it costs nothing; PyTorch never bans recomputing a "
     "view, even one marked MUST_SAVE.",
     "Nothing: a recomputed view is free."},
    {"both-graphs", "computed by both the forward and the backward",
     "computed by both graphs (read off PyTorch's graphs)",
     "Read off the graphs PyTorch logged: the node is computed in the forward and again in the "
     "backward. PyTorch logs no reason with its partition.",
     "For the partitioner's reason, compile with <code>remat.partition_fn</code> and log with "
     "<code>TORCH_TRACE</code>."},
    // Why recomputing a node is banned.
    {"primal-input", "primal input", "primal input",
     "The step's inputs are never recomputed: nothing computes them.", "Nothing to change."},
    {"allowlist", "not in the recomputable-ops allowlist", "not in the recomputable-ops allowlist",
     "PyTorch recomputes only the ops on its allowlist (pointwise ops, views and a few cheap "
     "others); matmuls, convolutions and the rest are saved when the backward needs them.",
     kLowerBudget},
    {"materialized", "its output is materialized in the backward",
     "its output is materialized in the backward",
     "A backward op reads this value itself, not through ops that could fuse with it: "
     "recomputing it would write it to memory in the backward all the same.",
     kLowerBudget},
    {"far-apart", "used far apart from", "used far apart from &hellip;",
     "A node much later in the graph reads this value: recomputing it there would keep its "
     "inputs alive all that time.",
     kLowerBudget},
    {"fusible-chain", "ends a long chain of fusible ops", "ends a long chain of fusible ops",
     "Recomputing the end of a long chain of fusible ops would recompute the whole chain.",
     kLowerBudget},
    {"random", "random op", "random op",
     "Recomputing a random op draws new random numbers, so the backward would see other values. "
     "Inside a checkpoint region PyTorch saves the generator's state and replays it (the "
     "partition's notes name each such op).",
     "Tag it in a checkpoint region to have it recomputed with the saved generator state."},
    {"compute-intensive", "compute-intensive op", "compute-intensive op",
     "A matmul or a convolution: recomputing it costs more than saving it spares.", kLowerBudget},
    {"registry", "outside remat's op registry", "outside remat's op registry",
     "remat does not know this op, so it cannot tell whether recomputing it is safe (it may be "
     "random or in-place): it is saved, as PyTorch treats ops it cannot classify.",
     "Tell us: remat's op registry (<code>src/remat/ops/</code>) lists every op it knows."},
    {"reduction", "reduction op", "reduction op (output under a quarter of its inputs)",
     "Its output is under a quarter of its inputs' size: saving the small output beats "
     "recomputing it from the large inputs.",
     kLowerBudget},
}};

}  // namespace

std::span<const GlossaryEntry> glossary() {
  return kEntries;
}

const GlossaryEntry* glossary_entry(std::string_view reason) {
  for (const GlossaryEntry& e : kEntries)
    if (reason.starts_with(e.opening)) return &e;
  return nullptr;
}

std::string reason_html(std::string_view reason, std::string_view glossary_page) {
  const GlossaryEntry* e = glossary_entry(reason);
  if (e == nullptr) return html_escape(reason);
  return "<a class=\"why\" href=\"" + html_escape(glossary_page) + "#" + std::string(e->id) +
         "\">" + html_escape(reason) + "</a>";
}

std::string glossary_body() {
  std::string out =
      "<h1 id=\"glossary\">Why a value is saved or recomputed</h1>\n<p>The reasons the "
      "partitioner gives on the partition pages and beside the joint graphs, in plain words, "
      "each with what to change to get the other choice.</p>\n";
  auto section = [&](std::string_view title, std::string_view first, std::string_view end) {
    out += "<h2>" + std::string(title) + "</h2>\n<dl class=\"glossary\">\n";
    bool in = false;
    for (const GlossaryEntry& e : kEntries) {
      if (e.id == first) in = true;
      if (e.id == end) in = false;
      if (!in) continue;
      out += "<dt id=\"" + std::string(e.id) + "\">" + std::string(e.term) + "</dt>\n<dd>" +
             std::string(e.meaning) + "<br><b>What to do:</b> " + std::string(e.action) + "</dd>\n";
    }
    out += "</dl>\n";
  };
  section("Why a value is saved", "cheapest-cut-banned", "tagged");
  section("Why a node is recomputed", "tagged", "primal-input");
  section("Why recomputing a node is banned", "primal-input", "");
  return out;
}

}  // namespace remat::report
