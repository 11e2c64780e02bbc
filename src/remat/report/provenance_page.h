// Inductor provenance tracking (`remat report --inductor-provenance`, tlparse's `-i`): per
// compile, the pre-grad graph, the post-grad graph and the generated code side by side, with
// Inductor's node mappings turned into line mappings, so a click on a line shows where it came
// from and what it became.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace remat::report {

/// What one compile logged for provenance (empty where it logged nothing).
struct ProvenanceSources {
  std::string pre_grad;       ///< before_pre_grad_graph / inductor_pre_grad_graph
  std::string post_grad;      ///< after_post_grad_graph / inductor_post_grad_graph
  std::string output_code;    ///< inductor_output_code (Python)
  std::string aot_code;       ///< inductor_aot_wrapper_code (C++)
  std::string node_mappings;  ///< inductor_provenance_tracking_node_mappings (JSON)
  [[nodiscard]] bool any() const { return !node_mappings.empty(); }
};

/// Inductor's node-name mappings (`preToPost`, `postToPre`, `cppCodeToPost`, `postToCppCode`) as
/// 1-based line mappings between the texts: `preToPost`, `postToPre`, `pyCodeToPost`,
/// `postToPyCode`, `cppCodeToPost`, `postToCppCode`, each `{"line": [lines]}`. A graph line is
/// found by the name it assigns; a kernel by its name in the code's call function.
nlohmann::json provenance_line_mappings(const ProvenanceSources& sources);

/// The page's body: the panes, the mappings, and the script that follows clicks.
std::string provenance_page_body(const ProvenanceSources& sources, std::string_view compile_id);

}  // namespace remat::report
