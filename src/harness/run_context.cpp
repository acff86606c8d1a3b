#include "harness/run_context.hpp"

#include "harness/bandwidth_probe.hpp"

#include <warpfold/error.hpp>
#include <warpfold/version.hpp>

#include <ctime>
#include <stdexcept>
#include <utility>

#include "warpfold_commit.h"  // WARPFOLD_GIT_COMMIT, written at build time (cmake/commit_stamp.cmake)

namespace warpfold::harness {
namespace {

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / double(1ull << 30));
  return buf;
}

}  // namespace

// Said by every command; what still runs without a device (a CPU model, a reference, nothing)
// differs between them, so each says that itself, in its tables or its final line.
std::string no_device_message(const std::string& reason) { return "no CUDA device (" + reason + "): GPU parts skipped"; }

void stamp_provenance(nlohmann::json& meta) {
  meta["date"] = utc_now();
  meta["commit"] = WARPFOLD_GIT_COMMIT;
  meta["warpfold"] = WARPFOLD_VERSION_STRING;
}

RunContext RunContext::open(report::Report& report) {
  RunContext ctx(report);
  stamp_provenance(report.meta);
  if (auto reason = cuda_unavailable_reason()) {
    report.meta["device"] = nullptr;
    report.meta["no_device_reason"] = *reason;
    report.preamble.push_back(no_device_message(*reason));
    return ctx;
  }
  ctx.device_ = query_device(0);
  WARPFOLD_CUDA_CHECK(cudaSetDevice(0));
  WARPFOLD_CUDA_CHECK(cudaStreamCreateWithFlags(&ctx.stream_, cudaStreamNonBlocking));
  const auto& d = *ctx.device_;
  const double theoretical = theoretical_bandwidth_gbps(d.mem_clock_khz, d.mem_bus_width_bits);
  report.meta["device"] = {
      {"name", d.name},
      {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
      {"sm_count", d.sm_count},
      {"l2_bytes", d.l2_bytes},
      {"global_mem_bytes", d.global_mem_bytes},
      {"driver", cuda_version_string(d.driver_version)},
      {"driver_release", d.driver_release.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.driver_release)},
      {"runtime", cuda_version_string(d.runtime_version)},
      {"theoretical_gbps", theoretical}};
  char line[256];
  std::snprintf(line, sizeof line,
                "device: %s (sm_%d%d, %d SMs, %s), driver %s (CUDA %s), runtime %s, theoretical %.0f GB/s",
                d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, gib(double(d.global_mem_bytes)).c_str(),
                d.driver_release.empty() ? "release unknown" : d.driver_release.c_str(),
                cuda_version_string(d.driver_version).c_str(),
                cuda_version_string(d.runtime_version).c_str(), theoretical);
  report.preamble.push_back(line);
  return ctx;
}

RunContext::RunContext(RunContext&& o) noexcept
    : report_(o.report_), device_(std::move(o.device_)), stream_(std::exchange(o.stream_, nullptr)),
      peak_gbps_(o.peak_gbps_), l2_peak_gbps_(o.l2_peak_gbps_) {}

RunContext::~RunContext() {
  if (stream_) cudaStreamDestroy(stream_);
}

double RunContext::read_bandwidth_gbps() {
  if (!peak_gbps_) {
    const ReadBandwidth bw = measure_read_bandwidth(stream_);
    peak_gbps_ = bw.gbps;
    report_->meta["peak_read_gbps"] = bw.gbps;
    report_->meta["peak_probe_gbps"] = bw.gbps;
    report_->meta["peak_source"] = "streaming probe";
    char line[200];
    std::snprintf(line, sizeof line,
                  "DRAM read peak, streaming probe measured now: %.0f GB/s (%s streamed, median of %d, spread %.1f%%)",
                  bw.gbps, gib(double(bw.bytes)).c_str(), bw.timing.reps, 100 * bw.timing.spread());
    report_->preamble.push_back(line);
  }
  return *peak_gbps_;
}

void RunContext::raise_read_peak(double gbps, const std::string& what) {
  if (gbps <= read_bandwidth_gbps()) return;
  peak_gbps_ = gbps;
  report_->meta["peak_read_gbps"] = gbps;
  report_->meta["peak_source"] = what;
}

double RunContext::l2_read_bandwidth_gbps() {
  if (!l2_peak_gbps_) {
    const ReadBandwidth bw = measure_l2_read_bandwidth(stream_);
    l2_peak_gbps_ = bw.gbps;
    report_->meta["peak_l2_read_gbps"] = bw.gbps;
    char line[200];
    std::snprintf(line, sizeof line, "L2 read figure measured now: %.0f GB/s (%s read again and again, median of %d)",
                  bw.gbps, gib(double(bw.bytes)).c_str(), bw.timing.reps);
    report_->preamble.push_back(line);
  }
  return *l2_peak_gbps_;
}

void RunContext::require_device_memory(size_t bytes, const std::string& what) const {
  require_free_device_memory(device_->ordinal, bytes, what);
}

void require_free_device_memory(int ordinal, size_t bytes, const std::string& what) {
  WARPFOLD_CUDA_CHECK(cudaSetDevice(ordinal));
  size_t free_bytes = 0, total = 0;
  WARPFOLD_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  if (bytes > free_bytes) {
    cudaDeviceProp prop{};
    WARPFOLD_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
    throw std::invalid_argument(what + " needs " + gib(double(bytes)) + " of device memory; " + prop.name +
                                (ordinal == 0 ? "" : " (GPU " + std::to_string(ordinal) + ")") + " has " +
                                gib(double(free_bytes)) + " free of " + gib(double(total)));
  }
}

}  // namespace warpfold::harness
