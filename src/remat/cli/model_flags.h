// The zoo's model options as command-line flags (remat trace, remat compile).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "remat/models/model_zoo.h"
#include "remat/support/expected.h"

namespace remat::cli {

struct ModelFlags {
  std::string model;
  std::string checkpoint = "none";
  models::ModelOptions options;

  /// --model, --layers, --checkpoint, --policy, --batch, ... on `cmd`.
  void add_to(CLI::App& cmd);
  /// The model named by --model, and its options with the checkpoint plan applied. A flag given
  /// for a model that does not read it is an error.
  struct Resolved {
    const models::ModelInfo* info;
    models::ModelOptions options;
  };
  [[nodiscard]] Expected<Resolved> resolve(std::string_view verb) const;
  /// `gpt2 --layers 4 --batch 2 ...`: the model and the value of every option it reads.
  [[nodiscard]] std::string describe(const models::ModelInfo& info) const;
  /// The current value of a ModelOptions field, as the flag takes it.
  [[nodiscard]] std::string value_of(std::string_view field) const;

 private:
  std::vector<std::pair<std::string_view, CLI::Option*>>
      flags_;  ///< ModelOptions field -> its flag
};

}  // namespace remat::cli
