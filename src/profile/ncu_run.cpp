#include "profile/ncu_run.hpp"

#include "profile/book_metrics.hpp"
#include "harness/run_outcome.hpp"
#include "profile/text_lines.hpp"
#include "profile/warp_state_metrics.hpp"

#include <algorithm>

namespace warpfold::profile {
namespace {

constexpr std::string_view kPermissionError = "ERR_NVGPUCTRPERM";

std::string permission_message() {
  return "ncu may not read this GPU's performance counters (ERR_NVGPUCTRPERM). Run the profile as root "
         "(sudo), or allow every user: put `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file "
         "under /etc/modprobe.d/ and reload the nvidia module (or reboot); in a container, start it with "
         "--cap-add=SYS_ADMIN. See https://developer.nvidia.com/ERR_NVGPUCTRPERM";
}

}  // namespace

std::string ncu_metric_list(bool warp_state) {
  std::vector<std::string> names;
  for (const BookMetric& m : book_metrics()) names.emplace_back(m.ncu);
  if (warp_state) {
    // the book's stall_sync is the barrier stall reason: asked for once
    for (const std::string& name : warp_state_metric_names()) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  std::string list;
  for (const std::string& name : names) list += (list.empty() ? "" : ",") + name;
  return list;
}

std::vector<std::string> ncu_argv(const NcuSettings& s, const std::vector<std::string>& program) {
  std::vector<std::string> argv{s.ncu,
                                "--csv",
                                // the program is warpfold itself; profile any process it might start too
                                "--target-processes", "all",
                                "--clock-control", s.clock_control,
                                "--metrics", ncu_metric_list(s.warp_state)};
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

std::string last_lines(std::string_view text, size_t lines) {
  const std::vector<std::string_view> all = text_lines(text);
  std::string out;
  for (size_t i = all.size() > lines ? all.size() - lines : 0; i < all.size(); ++i) {
    if (!out.empty()) out += '\n';
    out += all[i];
  }
  return out;
}

std::vector<std::string> ncu_messages(std::string_view out, std::string_view err) {
  std::vector<std::string> found;
  for (std::string_view text : {err, out}) {
    for (std::string_view line : text_lines(text)) {
      if (line.rfind("==ERROR==", 0) == 0 || line.rfind("==WARNING==", 0) == 0) found.emplace_back(line);
    }
  }
  return found;
}

std::optional<harness::RunStopped> ncu_failure(const ProcessResult& p, size_t kernels_parsed, double timeout_seconds) {
  if (!p.started) {
    return harness::RunStopped(harness::Stop::tool_missing, "cannot run ncu: " + p.start_error);
  }
  if (p.out.find(kPermissionError) != std::string::npos || p.err.find(kPermissionError) != std::string::npos) {
    return harness::RunStopped(harness::Stop::no_counter_permission, permission_message());
  }
  if (p.timed_out) {
    return harness::RunStopped(harness::Stop::failed, "ncu " + p.describe(timeout_seconds) +
                                                        " (a larger --timeout gives it longer)");
  }
  if (kernels_parsed == 0) {
    std::string detail;
    for (const std::string& m : ncu_messages(p.out, p.err)) detail += "\n  " + m;
    if (detail.empty()) {
      const std::string tail = last_lines(p.err.empty() ? p.out : p.err, 8);
      if (!tail.empty()) detail = "\n" + tail;
    }
    return harness::RunStopped(harness::Stop::failed, "ncu profiled no kernel (" + p.describe() + ")" + detail);
  }
  return std::nullopt;
}

NcuCapture run_ncu(const NcuSettings& s, const std::vector<std::string>& program) {
  ProcessOptions options;
  options.timeout_seconds = s.timeout_seconds;
  // The C locale: '.' as the decimal point in ncu's numbers, whatever the machine's locale.
  options.environment = {{"LC_ALL", "C"}};
  NcuCapture c;
  c.process = run_process(ncu_argv(s, program), options);
  c.output = c.process.out;
  c.kernels = parse_ncu_csv(c.output);
  c.messages = ncu_messages(c.process.out, c.process.err);
  if (auto failure = ncu_failure(c.process, c.kernels.size(), s.timeout_seconds)) throw *failure;
  return c;
}

std::string ncu_version(const std::string& ncu) {
  ProcessOptions options;
  options.timeout_seconds = 30;
  const ProcessResult r = run_process({ncu, "--version"}, options);
  if (!r.ok()) return "";
  for (std::string_view line : text_lines(r.out)) {
    const size_t at = line.find("Version ");
    if (at != std::string_view::npos) {
      std::string v(line.substr(at + 8));
      const size_t space = v.find(' ');
      return space == std::string::npos ? v : v.substr(0, space);
    }
  }
  return "";
}

}  // namespace warpfold::profile
