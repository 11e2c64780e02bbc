// GraphModule: a graph plus what torch.fx keeps beside it (class name, submodules, codegen).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "remat/ir/graph.h"
#include "remat/ir/raw_json.h"
#include "remat/ir/text_style.h"
#include "remat/support/expected.h"

namespace remat {

/// How `forward` binds its inputs: one parameter per placeholder, or pytree (`_PyTreeCodeGen`:
/// `forward(self, primals, tangents)` flattened into the placeholders).
enum class CodegenKind : uint8_t { Plain, Pytree };

struct Codegen {
  CodegenKind kind = CodegenKind::Plain;
  std::vector<std::string> in_args;  ///< the original argument names for Pytree
  /// Pytree only: whether an input spec flattens the arguments (`fx_pytree.tree_flatten_spec`)
  /// and an output spec unflattens the result (`pytree.tree_unflatten`); each may be absent.
  bool in_spec = true;
  bool out_spec = true;
  friend bool operator==(const Codegen&, const Codegen&) = default;
};

class GraphModule;

struct Submodule {
  std::string name;
  std::unique_ptr<GraphModule> module;
};

/// A graph and its module-level information: the class name printed by print_readable,
/// nested submodules (HOP bodies such as `wrap_body_0`) in registration order, the codegen
/// kind, and the joint/partition counts that AOTAutograd attaches.
class GraphModule {
 public:
  GraphModule() : graph_(std::make_unique<Graph>()) {}
  GraphModule(GraphModule&&) noexcept = default;
  GraphModule& operator=(GraphModule&&) noexcept = default;
  /// A deep copy (graph, submodules, metadata).
  [[nodiscard]] GraphModule clone() const;

  Graph& graph() { return *graph_; }
  [[nodiscard]] const Graph& graph() const { return *graph_; }

  std::string graph_name;  ///< free text naming the graph (file provenance)
  std::string class_name;  ///< `class X(torch.nn.Module)`; empty: use graph_name or GraphModule
  /// Text after the printed module in the text it was read from, printed again after it:
  /// Inductor's pre/post-grad graph artifacts end with `\n\n # graph id: N`.
  std::string trailer;
  /// How the text it was read from was written (set by the readable parser): printing with
  /// PrintOptions::as_read reproduces that text.
  std::optional<TextStyle> text_style;
  Codegen codegen;
  std::vector<Submodule> submodules;

  std::optional<int64_t> num_fwd_outputs;  ///< joint graphs: outputs[:k] are forward outputs
  std::optional<int64_t> num_primals;      ///< joint graphs
  std::optional<int64_t> num_tangents;     ///< joint graphs
  /// Joint graphs: the primals (by index among them, as AOTAutograd's
  /// `static_lifetime_input_indices`) that live as long as the model, parameters and buffers:
  /// the min-cut saves them for free. Absent: read off the inputs' AOT descriptors.
  std::optional<std::vector<int64_t>> static_lifetime_input_indices;
  std::optional<int64_t> num_real_outputs;               ///< partitioned forward graphs
  std::optional<std::vector<std::string>> saved_values;  ///< partitioned forward graphs

  RawJsonFields extras;  ///< top-level keys remat does not interpret (provenance, counts)

  /// The name print_readable uses: class_name, else graph_name, else `GraphModule`.
  [[nodiscard]] std::string display_class_name() const;
  /// The flattened output values (the output node's list or tuple elements; a single value
  /// counts as one); empty when there is no output node.
  [[nodiscard]] std::vector<Argument> outputs() const;

 private:
  std::unique_ptr<Graph> graph_;
};

/// A joint graph's tangent input: a placeholder whose name contains "tangents" (docs/spec/
/// partitioning.md §3.2); every other placeholder is a primal.
bool is_tangent(const Node& n);
/// A joint graph's RNG seed or offset input (`fwd_seed`, `fwd_base_offset`, `bwd_seed`,
/// `bwd_base_offset`: AOTAutograd's functionalized RNG), which is not counted among the primals
/// of `static_lifetime_input_indices`.
bool is_rng_seed_input(const Node& n);
/// How many of a joint graph's outputs are forward outputs: `num_fwd_outputs` when recorded,
/// else the outputs beyond one gradient per primal.
size_t num_forward_outputs(const GraphModule& joint);
/// Whether `g` has the shape of a joint graph: one output per forward output plus one gradient
/// (or None) per primal and, with `needs_tangents`, at least one tangent input (a joint whose
/// outputs need no gradient has nothing to partition). The error says what it looks like.
Status check_joint_shape(const GraphModule& g, bool needs_tangents = true);

}  // namespace remat
