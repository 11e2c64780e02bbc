#include <cstdio>

#include "remat/cli/commands.h"

namespace remat::cli {

int report(const Diagnostics& diagnostics) {
  std::fputs(format_all(diagnostics).c_str(), stderr);
  return kExitBadInput;
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
