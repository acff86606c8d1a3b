#pragma once
// Runs another program (ncu, cuobjdump) with an argument vector, never through a shell, and
// captures its stdout and stderr. The child gets /dev/null as stdin and its own process group, so
// that a time limit ends it and everything it started (ncu and the program it profiles) at once.

#include <string>
#include <utility>
#include <vector>

namespace warpfold::profile {

struct ProcessOptions {
  double timeout_seconds = 0;  // 0: no limit
  // Variables set (or replaced) in the child's environment, the rest inherited.
  std::vector<std::pair<std::string, std::string>> environment;
  size_t max_output_bytes = size_t(256) << 20;  // per stream; the rest is read and dropped
};

struct ProcessResult {
  bool started = false;     // false: the program could not be run; start_error says why
  std::string start_error;
  bool exited = false;      // true: exit_code is valid
  int exit_code = -1;
  int signal = 0;           // the signal that ended it, when it did not exit
  bool timed_out = false;   // killed at the time limit
  bool truncated = false;   // an output exceeded max_output_bytes
  std::string out, err;

  bool ok() const { return started && exited && exit_code == 0 && !timed_out; }
  // "exit code 3", "killed by signal 9", "timed out after 60 s", "could not start: ..."
  std::string describe(double timeout_seconds = 0) const;
};

// argv[0] is the program's path (it must contain a '/': nothing is looked up on PATH here).
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

}  // namespace warpfold::profile
