#include "remat/ir/graph_module.h"

#include <string_view>

namespace remat {

GraphModule GraphModule::clone() const {
  GraphModule copy;
  clone_graph(*graph_, *copy.graph_);
  copy.graph_name = graph_name;
  copy.class_name = class_name;
  copy.trailer = trailer;
  copy.text_style = text_style;
  copy.codegen = codegen;
  for (const Submodule& s : submodules)
    copy.submodules.push_back({s.name, std::make_unique<GraphModule>(s.module->clone())});
  copy.num_fwd_outputs = num_fwd_outputs;
  copy.num_primals = num_primals;
  copy.num_tangents = num_tangents;
  copy.static_lifetime_input_indices = static_lifetime_input_indices;
  copy.num_real_outputs = num_real_outputs;
  copy.saved_values = saved_values;
  copy.extras = extras;
  return copy;
}

std::string GraphModule::display_class_name() const {
  if (!class_name.empty()) return class_name;
  if (!graph_name.empty()) return graph_name;
  return "GraphModule";
}

std::vector<Argument> GraphModule::outputs() const {
  const Node* out = graph_->output_node();
  if (out == nullptr || out->args().empty()) return {};
  const Argument& value = out->args()[0];
  if (value.is_sequence()) {
    auto e = value.elements();
    return {e.begin(), e.end()};
  }
  return {value};
}

bool is_tangent(const Node& n) {
  return n.op() == OpKind::Placeholder && n.name().find("tangents") != std::string::npos;
}

bool is_rng_seed_input(const Node& n) {
  if (n.op() != OpKind::Placeholder) return false;
  for (std::string_view word : {"fwd_seed", "fwd_base_offset", "bwd_seed", "bwd_base_offset"})
    if (n.name().find(word) != std::string::npos) return true;
  return false;
}

size_t num_forward_outputs(const GraphModule& joint) {
  if (joint.num_fwd_outputs) return static_cast<size_t>(*joint.num_fwd_outputs);
  size_t primals = 0;
  for (const Node* p : joint.graph().placeholders()) primals += !is_tangent(*p);
  size_t outputs = joint.outputs().size();
  return outputs >= primals ? outputs - primals : outputs;
}

Status check_joint_shape(const GraphModule& g, bool needs_tangents) {
  size_t primals = 0, tangents = 0;
  for (const Node* p : g.graph().placeholders()) (is_tangent(*p) ? tangents : primals) += 1;
  if (needs_tangents && tangents == 0) {
    return error_message(
        "not a joint graph: no tangents_* input (" + std::to_string(primals) +
        " inputs, none a tangent); a forward or backward graph cannot be partitioned");
  }
  size_t outputs = g.outputs().size(), num_fwd = num_forward_outputs(g);
  if (outputs != num_fwd + primals) {
    return error_message("not a joint graph: " + std::to_string(outputs) + " outputs for " +
                         std::to_string(num_fwd) + " forward outputs and " +
                         std::to_string(primals) + " primals");
  }
  return {};
}

}  // namespace remat
