// An output folder (`-o DIR`) written whole or not at all: the files go into a staging folder
// beside DIR, which replaces DIR in one step (an atomic exchange) once it is complete. A run
// killed at any point leaves the previous DIR as it was (and a staging folder the next run into
// DIR removes); two runs into one DIR at a time: the second is refused. `--overwrite` replaces
// only a folder remat wrote (it holds the marker file `.remat-output`), never the current
// folder, a folder above it, or a folder that holds one of the run's inputs (docs/security.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "remat/support/expected.h"

namespace remat {

/// The marker file in every folder remat writes as a whole.
inline constexpr std::string_view kOutputMarker = ".remat-output";

class OutputFolder {
 public:
  /// Claims `dir` for this run. Refused: DIR is a symbolic link or a file; DIR holds files and
  /// `overwrite` is false, or it lacks the marker; DIR is `.`, holds the current folder or one
  /// of `inputs`; another run is writing DIR now.
  static Expected<OutputFolder> start(const std::string& dir, bool overwrite,
                                      const std::vector<std::string>& inputs = {});

  OutputFolder(OutputFolder&& other) noexcept;
  OutputFolder& operator=(OutputFolder&&) = delete;
  OutputFolder(const OutputFolder&) = delete;
  ~OutputFolder();  ///< not committed: the staging folder is removed, DIR untouched

  /// Where the run writes: the staging folder.
  [[nodiscard]] const std::string& staging() const { return staging_; }
  /// DIR as the user named it.
  [[nodiscard]] const std::string& dir() const { return dir_; }
  /// A path under the staging folder as it will be once committed (for messages and results).
  [[nodiscard]] std::string final_path(std::string_view path) const;
  /// `errors` with the staging folder's name replaced by DIR's: a message never names it.
  [[nodiscard]] Diagnostics rename_in(Diagnostics errors) const;

  /// Puts the staging folder in DIR's place; the previous DIR is removed after.
  Status commit();

 private:
  OutputFolder() = default;
  void release();

  std::string dir_;      // as given
  std::string target_;   // DIR, normalized
  std::string staging_;  // `.NAME.remat-staging-PID` beside it
  std::string lock_;     // `.NAME.remat-lock` beside it
  int lock_fd_ = -1;
  bool committed_ = false;
};

}  // namespace remat
