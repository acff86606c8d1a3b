#pragma once
// The device session every measuring command opens first: find the device (or say clearly there
// is none), describe it at the top of the report, open a stream, and measure the peak read
// bandwidth once for the "% of peak" columns.

#include "harness/device_info.hpp"
#include "report/table.hpp"

#include <cuda_runtime_api.h>

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace warpfold::harness {

class RunContext {
 public:
  // Records date, commit and (when present) the device in `report`; never throws for a missing
  // device: has_device() is then false and the reason is in the report.
  static RunContext open(report::Report& report);

  RunContext(RunContext&& other) noexcept;
  RunContext& operator=(RunContext&&) = delete;
  RunContext(const RunContext&) = delete;
  ~RunContext();

  bool has_device() const { return device_.has_value(); }
  const DeviceSummary& device() const { return *device_; }
  cudaStream_t stream() const { return stream_; }

  // The DRAM read peak: the streaming probe's figure, measured on first use and recorded in the
  // report's preamble and meta (peak_probe_gbps), raised by raise_read_peak where a measured
  // reduce of at least 8× the L2 read faster (peak_read_gbps, peak_source).
  double read_bandwidth_gbps();
  // Where `gbps`, a reduce's rate over an input of at least 8× the L2 (`what` names it), beats the
  // peak so far, it becomes the peak.
  void raise_read_peak(double gbps, const std::string& what);
  // The L2's read figure, for inputs that stay in it: measured on first use, recorded likewise
  // (peak_l2_read_gbps).
  double l2_read_bandwidth_gbps();

  // Throws std::invalid_argument naming `what` when the device lacks `bytes` of free memory.
  void require_device_memory(size_t bytes, const std::string& what) const;

 private:
  explicit RunContext(report::Report& report) : report_(&report) {}
  report::Report* report_;
  std::optional<DeviceSummary> device_;
  cudaStream_t stream_ = nullptr;
  std::optional<double> peak_gbps_;
  std::optional<double> l2_peak_gbps_;
};

// Records what every results file carries, so that a number can be traced to the code that made
// it: "date" (UTC), "commit" (cmake/commit_stamp.cmake) and "warpfold" (the version).
void stamp_provenance(nlohmann::json& meta);

// The line printed when a command runs without a CUDA device.
std::string no_device_message(const std::string& reason);

// Throws std::invalid_argument naming `what` and the device when device `ordinal` lacks `bytes` of
// free memory (commands that use several GPUs check each one). Leaves `ordinal` current.
void require_free_device_memory(int ordinal, size_t bytes, const std::string& what);

}  // namespace warpfold::harness
