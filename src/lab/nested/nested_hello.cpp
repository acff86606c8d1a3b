// `warpfold nested hello`: the seed's nestedHelloWorld, its lines printed by the device.
#include "harness/device_buffer.hpp"
#include "lab/nested/launch_limits.hpp"
#include "lab/nested/nested_run.hpp"
#include "harness/run_context.hpp"

#include <warpfold/error.hpp>

#include <cstdio>

namespace warpfold::lab {
namespace {

// Room for one printf record (the format's address and three arguments, with the device's own
// header); generous, since a full buffer silently drops lines.
constexpr size_t kPrintfRecordBytes = 64;

}  // namespace

bool NestedHelloOutcome::ok() const {
  return gpu_ran && record.failures == 0 && record.launches == expected_launches &&
         record.printed_lines == expected_lines;
}

std::string NestedHelloOutcome::summary() const {
  NestedCheck launches;  // its verdict words the launch count and failures; the sums are not used
  launches.expected_launches = expected_launches;
  launches.record = record;
  std::string out = "child launches: " + std::to_string(record.launches) + " (expected " +
                    std::to_string(expected_launches) + "), lines printed: " + std::to_string(record.printed_lines) +
                    " (expected " + std::to_string(expected_lines) + "): ";
  if (ok()) return out + "ok";
  if (!launches.ok()) return out + launches.verdict();
  return out + "WRONG line count";
}

NestedHelloOutcome run_nested_hello(const NestedHelloOptions& o) {
  validate_hello_options(o);
  NestedHelloOutcome out;
  out.expected_launches = hello_child_launches(o.grid, o.block);
  out.expected_lines = hello_printed_lines(o.grid, o.block);

  report::Report r;
  harness::RunContext ctx = harness::RunContext::open(r);
  for (const std::string& line : r.preamble) std::printf("%s\n", line.c_str());
  if (!ctx.has_device()) {
    out.no_device_reason = r.meta.value("no_device_reason", std::string("no CUDA device"));
    std::fflush(stdout);
    return out;
  }
  out.gpu_ran = true;
  ensure_launch_slots(2 * out.expected_launches + 256);
  ensure_printf_buffer(static_cast<size_t>(out.expected_lines) * kPrintfRecordBytes);

  harness::DeviceBuffer<NestedLaunchRecord> record(1);
  WARPFOLD_CUDA_CHECK(cudaMemsetAsync(record.get(), 0, record.bytes(), ctx.stream()));
  std::printf("Execution Configuration: grid %u block %u\n", o.grid, o.block);
  std::fflush(stdout);  // before the device's lines, which the driver writes at the next synchronization
  launch_nested_hello(o.grid, o.block, record.get(), ctx.stream());
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
  WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(&out.record, record.get(), sizeof out.record, cudaMemcpyDeviceToHost, ctx.stream()));
  WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(ctx.stream()));
  WARPFOLD_CUDA_CHECK(cudaDeviceSynchronize());  // a documented flush point of the device's printf buffer
  std::fflush(stdout);
  std::printf("%s\n", out.summary().c_str());
  std::fflush(stdout);
  return out;
}

}  // namespace warpfold::lab
