#pragma once
// What the nested kernels tell the host about their own device-side launches. One record per run,
// in device memory, zeroed by the host before the run and read back after it.
//
// A device-side launch can fail (no free launch slot, a depth past the limit, ...). The kernel
// cannot return the error, and no thread may wait for a child, so a failed launch would otherwise
// look like a result that never arrives. Every launching thread therefore asks cudaGetLastError()
// and records the outcome here: the host sees the failure and the kernel simply stops the chain.
// Plain data, shared by host and device code.

namespace warpfold::lab {

struct NestedLaunchRecord {
  unsigned long long launches;       // device-side launches that the device runtime accepted
  unsigned long long failures;       // device-side launches that returned an error
  int first_error;                   // the cudaError_t of a failure (0: none); the first to arrive
  int reserved;                      // keeps the next field 8-byte aligned on every compiler
  unsigned long long printed_lines;  // nestedHelloWorld only: lines it printed
};

}  // namespace warpfold::lab
