// Tracer: records C++ model code into an FX-style forward graph of ATen ops, with stack traces,
// module scopes and checkpoint-region tags.
#pragma once

#include <deque>
#include <memory>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "remat/ir/graph_module.h"
#include "remat/trace/sac_policy.h"
#include "remat/trace/tensor.h"

namespace remat::trace {

/// A call the op would reject (shape mismatch, bad dim...), raised at the user's line.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct TraceOptions {
  std::string device = "cpu";  ///< the device recorded in tensor metadata
  std::string graph_name = "forward";
};

/// Records ops while it lives; at most one Tracer is active per thread, and the tracing API
/// (Tensor methods, the free functions, checkpoint) records into it.
class Tracer {
 public:
  explicit Tracer(TraceOptions options = {});
  ~Tracer();
  Tracer(const Tracer&) = delete;
  Tracer& operator=(const Tracer&) = delete;

  /// The active tracer; throws std::logic_error when none is.
  static Tracer& current();

  /// A user input (`PlainAOTInput(idx=k)` in joint graphs).
  Tensor input(std::string_view name, const std::vector<int64_t>& sizes,
               DType dtype = DType::Float32, bool requires_grad = false);
  /// A parameter of the current module scope (`ParamAOTInput(target='scope.name')`); it
  /// requires grad.
  Tensor parameter(std::string_view name, const std::vector<int64_t>& sizes,
                   DType dtype = DType::Float32);
  /// A buffer of the current module scope (no grad), e.g. batch norm's running stats.
  Tensor buffer(std::string_view name, const std::vector<int64_t>& sizes,
                DType dtype = DType::Float32);
  /// Sets the graph's outputs; call once, after the model ran.
  void output(const std::vector<Tensor>& outputs);
  /// The traced module (verified). The tracer is spent afterwards.
  GraphModule finish();

  /// Records one ATen op at `loc`: infers its outputs, creates the node (and a getitem per
  /// element of a tuple result), and applies the active checkpoint region's policy.
  std::vector<Tensor> record(std::string_view target, std::vector<Argument> args,
                             std::vector<Kwarg> kwargs, const std::source_location& loc);
  /// Records an op with exactly one tensor result.
  Tensor record1(std::string_view target, std::vector<Argument> args, std::vector<Kwarg> kwargs,
                 const std::source_location& loc);

  // --- scopes (use ModuleScope and checkpoint() rather than these) ---
  void enter_module(std::string_view name, std::string_view type_name,
                    const std::source_location& loc);
  void exit_module();
  /// Opens a checkpoint region; returns its ac_graph_id (1, 2, ... in order of entry).
  int64_t enter_region(std::shared_ptr<const SacPolicy> policy, const std::source_location& loc);
  void exit_region();
  /// checkpoint_name(): names `t` and asks the policy of the op that made it again.
  void name_tensor(const Tensor& t, std::string_view name);

  [[nodiscard]] const GraphModule& module() const { return module_; }
  [[nodiscard]] InternedString device() const { return device_; }

 private:
  struct Region {
    int64_t id;
    std::shared_ptr<const SacPolicy> policy;
    absl::flat_hash_map<std::string, int64_t> call_counts;
  };
  // An op recorded inside a region: what its policy saw, to ask again when an output is named.
  struct TaggedOp {
    std::vector<Node*> nodes;
    std::string target;
    const OpInfo* op;
    int64_t call_index;
    int64_t region_id;
    std::shared_ptr<const SacPolicy> policy;
    std::vector<Tensor> outputs;
  };

  Tensor add_placeholder(std::string_view name, std::string_view desc,
                         const std::vector<int64_t>& sizes, DType dtype, bool requires_grad);
  InternedString stack_trace(const std::source_location& loc);
  std::string qualified(std::string_view name) const;
  void update_module_stack_json();
  void tag(const OpInfo& op, const std::vector<Node*>& nodes, const std::vector<Tensor>& outputs);

  GraphModule module_;
  InternedString device_;
  std::vector<std::string> frames_;  // traceback frames of the open scopes, outermost first
  std::vector<std::pair<std::string, std::string>> modules_;  // (qualified path, type name)
  std::string module_stack_json_;
  std::vector<Region> regions_;
  int64_t next_region_id_ = 1;
  int64_t num_inputs_ = 0;
  std::deque<TaggedOp> tagged_;
  absl::flat_hash_map<const Node*, size_t> tagged_by_node_;
  Node* first_op_ = nullptr;  // placeholders are inserted before it
  bool has_output_ = false;
};

/// Enters a module scope for its lifetime: parameters get qualified names (`layers.0.weight`)
/// and nodes record the scope in `nn_module_stack`.
class ModuleScope {
 public:
  ModuleScope(std::string_view name, std::string_view type_name,
              std::source_location loc = std::source_location::current());
  ~ModuleScope();
  ModuleScope(const ModuleScope&) = delete;
  ModuleScope& operator=(const ModuleScope&) = delete;

 private:
  Tracer& tracer_;
};

}  // namespace remat::trace
