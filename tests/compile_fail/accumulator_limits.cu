// Accumulators the combine cannot carry are compile errors whose message names the rule
// (reduce.cuh): ctest compiles this file once per ACC below and expects the message.
#include <warpfold/reduce.cuh>

#include <cstddef>

struct too_large {  // 72 bytes, past warpfold::kMaxAccumulatorBytes
  double v[9];
  too_large() = default;
  __host__ __device__ too_large(float x) : v{x} {}
};

struct not_trivially_copyable {
  float v;
  not_trivially_copyable() = default;
  __host__ __device__ not_trivially_copyable(float x) : v(x) {}
  __host__ __device__ not_trivially_copyable(const not_trivially_copyable& other) : v(other.v) {}
};

struct keep_first {
  template <class A>
  __host__ __device__ A operator()(const A& a, const A&) const { return a; }
};

cudaError_t instantiate(void* temp, size_t& bytes, const float* in, ACC* out) {
  return warpfold::reduce(temp, bytes, in, out, 1, keep_first{}, ACC(0.0f));
}
