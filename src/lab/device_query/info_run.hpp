#pragma once
// `warpfold info`: what the book's simpleDeviceQuery prints and more (clocks, memory bus,
// theoretical and measured bandwidth, L2), the Little's-law parallelism needed to hide latency on
// this device, and the theoretical occupancy of every lab kernel at each block size.

#include "harness/device_info.hpp"
#include "harness/device_limits.hpp"
#include "lab/device_query/little_law.hpp"
#include "harness/run_outcome.hpp"

#include <vector>

namespace warpfold::lab {

struct InfoOptions {
  LatencyAssumptions latency;
  std::vector<int> block_sizes{32, 64, 128, 256, 512, 1024};
};

// Throws std::invalid_argument for latencies that are not positive.
void validate_info_options(const InfoOptions& options);

// What the Little's-law rows need to know about a device; plain data, so tests can describe one.
struct DeviceFacts {
  harness::DeviceSummary summary;
  harness::DeviceLimits limits;
  double measured_gbps = 0;
};

// The Little's-law table: the book's worked examples always, this device's rows when `device` is
// given (nullptr: no device).
report::Table little_law_table(const LatencyAssumptions& latency, const DeviceFacts* device);

harness::RunOutcome run_info(const InfoOptions& options);

}  // namespace warpfold::lab
