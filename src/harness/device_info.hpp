#pragma once
// What the lab needs to know about the GPU it runs on, and whether there is one at all.

#include <cstddef>
#include <optional>
#include <string>

namespace warpfold::harness {

struct DeviceSummary {
  int ordinal = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  size_t global_mem_bytes = 0;
  size_t l2_bytes = 0;
  int sm_clock_khz = 0;
  int mem_clock_khz = 0;
  int mem_bus_width_bits = 0;
  int driver_version = 0;   // e.g. 13000 for CUDA 13.0
  int runtime_version = 0;
  std::string driver_release;  // the kernel driver, e.g. "580.159.04"; empty where unknown
};

// Why no CUDA device can be used (no driver, no GPU, ...), or nullopt when device 0 is usable.
std::optional<std::string> cuda_unavailable_reason();

DeviceSummary query_device(int ordinal = 0);

// Theoretical DRAM bandwidth in GB/s (1e9 B/s): 2 transfers per clock (double data rate)
// × memory clock × bus width in bytes.
double theoretical_bandwidth_gbps(int mem_clock_khz, int bus_width_bits);

// The driver release ("580.159.04") from the text of /proc/driver/nvidia/version
// ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue ..."); empty if not found.
std::string parse_driver_release(const std::string& proc_version_text);

// "13.0" from 13000.
std::string cuda_version_string(int version);

}  // namespace warpfold::harness
