#include "remat/fxtext/static_inputs.h"

#include <string>

#include "remat/fxtext/graph_statements.h"

namespace remat::fxtext {

std::optional<std::vector<int64_t>> static_input_indices(std::string_view dynamo_graph,
                                                         std::string_view joint_graph) {
  if (dynamo_graph.empty()) return std::nullopt;
  // The outer forward's inputs: those before its first statement (a checkpoint's body is a
  // class of its own, printed later, with inputs of its own).
  std::vector<GraphLine> inputs;
  for (GraphLine& g : graph_lines(dynamo_graph)) {
    if (!g.input) break;
    inputs.push_back(std::move(g));
  }
  size_t primals = 0;
  for (const GraphLine& g : graph_lines(joint_graph))
    primals += g.input && g.name.starts_with("primals_");
  if (inputs.size() != primals) return std::nullopt;
  std::vector<int64_t> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string& n = inputs[i].name;
    if (n.find("_parameters_") != std::string::npos || n.find("_buffers_") != std::string::npos)
      out.push_back(static_cast<int64_t>(i));
  }
  return out;
}

}  // namespace remat::fxtext
