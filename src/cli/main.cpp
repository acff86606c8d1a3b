// warpfold: parallel reduction on the GPU, run, checked, timed and explained.
#include "cli/command.hpp"
#include "cli/decimal_check.hpp"
#include "cli/finish.hpp"
#include "cli/fuzz_command.hpp"
#include "cli/lesson.hpp"
#include "cli/profile_command.hpp"
#include "cli/report_command.hpp"
#ifdef WARPFOLD_WITH_MULTIGPU  // multi-GPU (NCCL, MPI): built where NCCL was found
#include "cli/multigpu_command.hpp"
#endif

#include <warpfold/version.hpp>

#include <cstdio>
#include <iostream>
#include <vector>

using namespace warpfold::cli;

int main(int argc, char** argv) {
  CLI::App app{"warpfold: parallel reduction on the GPU, run, checked, timed and explained"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "warpfold " WARPFOLD_VERSION_STRING);

  std::vector<Command> commands;
  for (const Lesson& lesson : lessons()) commands.push_back(lesson.add(app).command());
  ReportCommandOptions report;
  ProfileCommandOptions profile;
  FuzzCommandOptions fuzz;
  commands.push_back(add_report_command(app, report));
  commands.push_back(add_profile_command(app, profile));
  commands.push_back(add_fuzz_command(app, fuzz));
#ifdef WARPFOLD_WITH_MULTIGPU
  MultigpuCommandOptions multigpu;
  commands.push_back(add_multigpu_command(app, multigpu));
#endif
  require_decimal_integers(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);  // prints help, version or the error
    return rc == 0 ? kExitOk : kExitUsageError;
  }
  for (const Command& c : commands) {
    if (!c.app->parsed()) continue;
    const int rc = run_command(c);
    // Output to a full disk or a closed pipe is lost without a word unless checked here.
    std::cout.flush();
    if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
      std::cerr << "warpfold: error: cannot write to standard output\n";
      return rc == kExitOk ? int(kExitRuntimeError) : rc;
    }
    return rc;
  }
  return kExitUsageError;
}
