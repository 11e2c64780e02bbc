// The zoo's model options as command-line flags (remat trace, remat compile).
#pragma once

#include <CLI/CLI.hpp>

#include <string>

#include "remat/models/model_zoo.h"
#include "remat/support/expected.h"

namespace remat::cli {

struct ModelFlags {
  std::string model;
  std::string checkpoint = "none";
  models::ModelOptions options;

  /// --model, --layers, --checkpoint, --policy, --batch, ... on `cmd`.
  void add_to(CLI::App& cmd);
  /// The model named by --model, with the checkpoint plan applied to the options.
  Expected<const models::ModelInfo*> resolve(std::string_view verb);
};

}  // namespace remat::cli
