// Graph files for the CLI verbs: fxgraph-json or readable text, told apart by content; and
// the print options shared by the verbs that write readable text.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>
#include <string>

#include "remat/cli/logged_compile.h"
#include "remat/ir/graph_module.h"
#include "remat/print/print_options.h"
#include "remat/records/partition_record.h"
#include "remat/support/expected.h"

namespace remat::cli {

/// What a verb does with a graph whose ATen targets are wrong (a misspelt overload, an operator
/// libtorch lacks, the wrong arguments for a schema): print and info warn, verbs that compute
/// refuse.
enum class BadTargets { Warn, Refuse };

/// A graph from print_readable text or fxgraph-json, told apart by content.
Expected<GraphModule> read_graph(std::string_view text, const std::string& name,
                                 BadTargets bad = BadTargets::Refuse);
/// Reads a graph from `path` ("-" for stdin). A TORCH_TRACE log gives the joint graph PyTorch
/// logged for `compile` ("3/0"; empty: the log's only one), its errors pointing into the log.
Expected<GraphModule> load_graph(const std::string& path, BadTargets bad = BadTargets::Refuse,
                                 const std::string& compile = "");
/// The joint graph `c` of the TORCH_TRACE log `log` logged, with its parameters' lifetime (from
/// Dynamo's graph), its errors pointing into the log.
Expected<GraphModule> read_logged_joint(const std::string& log, const LoggedCompile& c,
                                        BadTargets bad);
/// --compile ID on `cmd`: which compile of a TORCH_TRACE log the verb reads.
void add_compile_option(CLI::App& cmd, std::string& compile);

/// What a graph file is, in the words of the error for an empty one.
inline constexpr std::string_view kGraphFileKinds =
    "readable text (print_readable), fxgraph-json, or a TORCH_TRACE log";
/// The whole of an input file (or stdin for `-`); a file with nothing but blanks in it is an
/// error saying it is empty and what `expected` it should have held.
Expected<std::string> read_input(const std::string& path, std::string_view expected);
/// A partition record file (`remat partition -o`'s report.json, a report's remat_partition_N.json),
/// its errors naming the user's path.
Expected<records::PartitionRecord> read_partition_record_file(const std::string& path);
/// The target problems of `m` (read from `text`), each at the line of `text` that defines the node.
Diagnostics target_diagnostics(const GraphModule& m, std::string_view text, const std::string& file,
                               bool warning);

/// Print flags named after print_readable's arguments (--include-stride, --tag-style, ...) and
/// --style ERA. A graph read from text prints in the style it was written in; the flags given
/// change that style.
class PrintFlags {
 public:
  void add_to(CLI::App& cmd);
  /// The options for printing `m`: the style `m` was read in (remat's defaults for a graph not
  /// read from text), then --style, then each flag given.
  [[nodiscard]] PrintOptions options(const GraphModule& m) const;

 private:
  PrintOptions flags_;
  std::string additional_meta_;
  std::string tag_style_;
  std::string style_;
  CLI::Option* stride_ = nullptr;
  CLI::Option* device_ = nullptr;
  CLI::Option* expanded_def_ = nullptr;
  CLI::Option* colored_ = nullptr;
  CLI::Option* show_meta_ = nullptr;
};

}  // namespace remat::cli
