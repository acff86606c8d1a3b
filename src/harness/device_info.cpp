#include "harness/device_info.hpp"

#include <warpfold/error.hpp>

#include <cuda_runtime_api.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <string>

namespace warpfold::harness {

std::optional<std::string> cuda_unavailable_reason() {
  int count = 0;
  const cudaError_t rc = cudaGetDeviceCount(&count);
  if (rc != cudaSuccess) {
    cudaGetLastError();
    const std::string name = cudaGetErrorName(rc);
    if (rc == cudaErrorNoDevice) return "no CUDA-capable GPU found, " + name;
    if (rc == cudaErrorInsufficientDriver) return "no CUDA driver found, or one older than this runtime, " + name;
    return name + ": " + cudaGetErrorString(rc);
  }
  if (count == 0) return std::string("the CUDA driver reports no device");
  return std::nullopt;
}

DeviceSummary query_device(int ordinal) {
  DeviceSummary d;
  d.ordinal = ordinal;
  cudaDeviceProp prop{};
  WARPFOLD_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.global_mem_bytes = prop.totalGlobalMem;
  d.l2_bytes = static_cast<size_t>(prop.l2CacheSize);
  d.mem_bus_width_bits = prop.memoryBusWidth;
  // CUDA 13 removed the clock fields from cudaDeviceProp; the attributes remain.
  WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, ordinal));
  WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
  WARPFOLD_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  WARPFOLD_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  // The CUDA API gives only the CUDA version the driver supports; the release itself is in the
  // kernel module's version text (Linux). Not there (another OS, a container without /proc): empty.
  std::ifstream proc("/proc/driver/nvidia/version");
  if (proc) d.driver_release = parse_driver_release(std::string(std::istreambuf_iterator<char>(proc), {}));
  return d;
}

std::string parse_driver_release(const std::string& text) {
  static const std::regex release(R"(Kernel Module(?:\s+for\s+\S+)?\s+([0-9]+(?:\.[0-9]+)+))");
  std::smatch m;
  return std::regex_search(text, m, release) ? m[1].str() : std::string();
}

double theoretical_bandwidth_gbps(int mem_clock_khz, int bus_width_bits) {
  return 2.0 * mem_clock_khz * 1e3 * (bus_width_bits / 8.0) / 1e9;
}

std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace warpfold::harness
