// Export mode (`remat report --export`, tlparse's `-e`): the problems torch.export met, each with
// a page on the symbolic guard behind it, and an index that leads with them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace remat::report {

/// One row of the export failures table (tlparse's wording).
struct ExportFailure {
  std::string type;  ///< "Guard Evaluated", "Data Dependent Error", "Missing Fake Kernel", ...
  std::string reason_html;  ///< what happened, with the expression in <code>
  std::string info_html;    ///< where to read more: the guard's page, or the fake-kernel guide
};

/// Symbolic expressions by id (`expression_created`, `create_unbacked_symbol`), for the trie of
/// how a guard's expression was built.
using SymExprIndex = std::unordered_map<uint64_t, nlohmann::json>;

/// Adds `expression_created` / `create_unbacked_symbol` metadata to `index`.
void index_sym_expr(const std::string& event, const nlohmann::json& meta, SymExprIndex& index);

/// The failure an export-mode record stands for, or nothing (a guard not evaluated by export,
/// another event). `page` is the URL of the record's symbolic guard page, when it has one.
std::optional<ExportFailure> export_failure(const std::string& event, const nlohmann::json& meta,
                                            const std::string& page);

/// Whether `event` gets a symbolic guard page in export mode.
bool has_symbolic_guard_page(const std::string& event, const nlohmann::json& meta);

/// The symbolic guard page: the expression, the user's and the framework's stacks (as rendered
/// frame lines), the locals of the frame, and the trie of sub-expressions it was built from.
std::string symbolic_guard_body(const nlohmann::json& meta,
                                const std::vector<std::string>& user_stack,
                                const std::vector<std::string>& framework_stack,
                                const SymExprIndex& index);

/// The export index: success or the failures table, and the exported program's link.
std::string export_index_body(const std::vector<ExportFailure>& failures,
                              const std::string& program_url);

}  // namespace remat::report
