#pragma once
// One Nsight Compute session: `ncu --csv --metrics <the book's metrics> <program...>`, its CSV
// parsed, its failures named. ncu replays each kernel the program launches as often as the metrics
// need (restoring the memory it writes between passes), so the program should launch each kernel
// of interest once and nothing else.

#include "profile/ncu_csv.hpp"
#include "harness/run_outcome.hpp"
#include "profile/subprocess.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::profile {

struct NcuSettings {
  std::string ncu;                    // the ncu executable's path
  // "base": ncu locks the GPU's clocks to their base frequency while it measures (its default:
  // counters comparable from run to run); "none": the clocks float as in the timed run.
  std::string clock_control = "base";
  double timeout_seconds = 1200;      // the whole session, the program's run included
  bool warp_state = false;            // also the warp scheduler's counters (warp_state_metrics.hpp)
};

// The metrics for `ncu --metrics`, comma-separated: the book's, then, with `warp_state`, the
// scheduler's, each once.
std::string ncu_metric_list(bool warp_state);

// The argument vector of the session: ncu's options, then the program and its arguments.
std::vector<std::string> ncu_argv(const NcuSettings& settings, const std::vector<std::string>& program);

struct NcuCapture {
  std::string output;                 // ncu's stdout: "==PROF==" lines and the CSV
  std::vector<NcuKernel> kernels;     // parsed from it, by ID
  std::vector<std::string> messages;  // ncu's "==ERROR==" and "==WARNING==" lines
  ProcessResult process;
};

// Runs the session; throws harness::RunStopped when it gave no results (see ncu_failure).
NcuCapture run_ncu(const NcuSettings& settings, const std::vector<std::string>& program);

// The failure a finished session amounts to, or nullopt when it profiled at least one kernel.
// ERR_NVGPUCTRPERM (no permission for the counters) is named with its fix.
std::optional<harness::RunStopped> ncu_failure(const ProcessResult& process, size_t kernels_parsed, double timeout_seconds);

// ncu's own "==ERROR==" and "==WARNING==" lines from its two outputs.
std::vector<std::string> ncu_messages(std::string_view out, std::string_view err);

// The version ncu reports ("2025.3.0.0"), or "" when it does not say.
std::string ncu_version(const std::string& ncu);

// The last `lines` lines of `text`, for error messages.
std::string last_lines(std::string_view text, size_t lines);

}  // namespace warpfold::profile
