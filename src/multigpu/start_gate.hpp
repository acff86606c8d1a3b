#pragma once
// Holds every GPU's timed work back until the host lets all of it go at once. Without it each GPU
// starts a repetition when the host gets round to launching its work, microseconds apart and more
// so with more GPUs, and the NCCL phase of the GPUs launched first would count that skew as
// waiting. Each held stream runs a one-thread kernel that polls a flag in pinned host memory;
// release() sets the flag (after a barrier across processes in the mpi set-up).
//
// Use after every kernel involved has run once: with lazy module loading, loading a kernel while
// another one spins may have to wait for the device, and the gate would wait for its own timeout.
// A wait that times out (10 s) lets the stream go and is reported by timed_out(): the timings of
// that repetition are then void.

#include <cuda_runtime_api.h>

namespace warpfold::multigpu {

class StartGate {
 public:
  StartGate();
  ~StartGate();
  StartGate(const StartGate&) = delete;
  StartGate& operator=(const StartGate&) = delete;

  // Starts a new repetition: the streams held from now wait for the next release().
  void arm();
  // Enqueues the wait on `stream`, a stream of the current device.
  void hold(cudaStream_t stream);
  // Lets every held stream go.
  void release();
  // True when a wait gave up before its release.
  bool timed_out() const;

 private:
  unsigned* host_ = nullptr;  // [0]: the released ticket, [1]: set when a wait timed out
  unsigned ticket_ = 0;
};

}  // namespace warpfold::multigpu
