#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "remat/cli/commands.h"

namespace remat::cli {

int exit_code_of(const Expected<int>& result) {
  if (result) return *result;
  std::fputs(format_all(result.errors()).c_str(), stderr);
  return kExitBadInput;
}

Status refuse_options(std::string_view strategy, std::initializer_list<const CLI::Option*> options,
                      std::string_view applies_to) {
  for (const CLI::Option* o : options) {
    if (o->count() > 0)
      return error_message(o->get_name() + " applies to --strategy " + std::string(applies_to) +
                           ", not " + std::string(strategy));
  }
  return {};
}

Status refuse_min_cut_options(std::string_view strategy,
                              std::initializer_list<const CLI::Option*> options) {
  if (strategy == "min-cut") return {};
  return refuse_options(strategy, options, "min-cut");
}

namespace {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// `remat prnt`: CLI11 would say that a subcommand is required; say which word was not one, the
// verb it is nearest to, and the verbs there are.
std::optional<int> refuse_unknown_verb(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  std::string word = argv[1];
  std::vector<std::string> verbs;
  for (const CLI::App* sub : app.get_subcommands({})) verbs.push_back(sub->get_name());
  // (remat-check has no verbs: its first word is a file.)
  if (verbs.empty() || std::ranges::find(verbs, word) != verbs.end()) return std::nullopt;
  std::string nearest;
  size_t best = 3;  // at most two edits away, or the start of a verb
  for (const std::string& v : verbs) {
    size_t d = v.starts_with(word) ? 1 : edit_distance(word, v);
    if (d < best) {
      best = d;
      nearest = v;
    }
  }
  // A flag given as a verb (`remat explain`): the verb that takes it.
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (!nearest.empty()) break;
    for (const CLI::Option* o : sub->get_options()) {
      if (std::ranges::find(o->get_lnames(), word) != o->get_lnames().end())
        nearest = sub->get_name() + " --" + word;
    }
  }
  std::fputs(fmt::format("remat: error: '{}' is not a command{}; the commands: {} (remat --help)\n",
                         word, nearest.empty() ? "" : fmt::format(" (did you mean '{}'?)", nearest),
                         fmt::join(verbs, ", "))
                 .c_str(),
             stderr);
  return kExitBadInput;
}

}  // namespace

int run_app(CLI::App& app, int argc, char** argv, const int& exit_code) {
  if (auto refused = refuse_unknown_verb(app, argc, argv)) return *refused;
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help, --version
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  return exit_code;
}

}  // namespace remat::cli
