#pragma once
// `warpfold nested`: the seed's dynamic-parallelism table (cpu, neighbored, nested, nestedNosync,
// nested2), each row checked against the CPU and timed, with the device-side launches it made;
// and `warpfold nested hello`, the seed's nestedHelloWorld.

#include "harness/run_outcome.hpp"
#include "lab/nested/nested_plan.hpp"

#include <cstdint>
#include <string>

namespace warpfold::lab {

// check_failed: a row's sum, launch count or launches were wrong. Throws std::invalid_argument
// for options it cannot run (see validate_nested_options, and a device without the memory the
// run needs).
harness::RunOutcome run_nested(const NestedOptions& options);

struct NestedHelloOutcome {
  bool gpu_ran = false;
  std::string no_device_reason;
  NestedLaunchRecord record{};
  uint64_t expected_launches = 0;
  uint64_t expected_lines = 0;
  bool ok() const;
  std::string summary() const;  // launches and lines, counted against the formulas
};

// Prints the device line, the seed's "Execution Configuration" line and the kernel's own lines
// (device printf) to stdout, then the summary. Without a device, prints the one line saying so.
NestedHelloOutcome run_nested_hello(const NestedHelloOptions& options);

}  // namespace warpfold::lab
