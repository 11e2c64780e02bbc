#include <cstdio>

#include "remat/cli/commands.h"

namespace remat::cli {

int report(const Diagnostics& diagnostics) {
  std::fputs(format_all(diagnostics).c_str(), stderr);
  return kExitBadInput;
}

Status refuse_min_cut_options(std::string_view strategy,
                              std::initializer_list<const CLI::Option*> options) {
  if (strategy == "min-cut") return {};
  for (const CLI::Option* o : options) {
    if (o->count() > 0)
      return error_message(o->get_name() + " applies to --strategy min-cut, not " +
                           std::string(strategy));
  }
  return {};
}

int run_app(CLI::App& app, int argc, char** argv, const int& exit_code) {
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
