// The segmented bench's runs: warpfold::segmented_reduce / reduce_axis, cub::DeviceSegmentedReduce
// and the roofline probe, float sums.
#include "bench/segmented_runners.hpp"

#include "harness/device_buffer.hpp"
#include "harness/sanitizer.hpp"

#include <warpfold/detail/reduce_policy.hpp>
#include <warpfold/reduce_axis.cuh>
#include <warpfold/segmented_reduce.cuh>

#include <cub/device/device_segmented_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace warpfold::bench {

const char* to_string(ShapeKind kind) {
  return kind == ShapeKind::segmented ? "segmented" : kind == ShapeKind::fixed ? "fixed" : "axis";
}

const char* to_string(SegmentedLibrary lib) {
  switch (lib) {
    case SegmentedLibrary::warpfold: return "warpfold";
    case SegmentedLibrary::cub: return "cub";
    case SegmentedLibrary::probe: return "roofline probe";
    case SegmentedLibrary::copy_then_warpfold: return "copy + warpfold";
  }
  return "?";
}

bool cub_has(const SegmentedInput& input) {
  return input.kind != ShapeKind::axis || (input.shape.inner == 1 && !input.strided);
}

namespace {

constexpr unsigned kProbeThreads = detail::kThreads;
constexpr unsigned kProbeInFlight = 4;
constexpr uint64_t kGatherBlocks = 4096;  // a grid-stride loop: enough blocks to fill any GPU

// XORs every 16-byte vector of `in` into `acc`, kProbeInFlight loads in flight per thread.
__device__ __forceinline__ void xor_vectors(const uint4* in, uint64_t vectors, unsigned& acc) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += kProbeInFlight * stride) {
    uint4 v[kProbeInFlight];
#pragma unroll
    for (unsigned k = 0; k < kProbeInFlight; ++k) {
      const uint64_t j = i + k * stride;
      v[k] = j < vectors ? __ldg(in + j) : make_uint4(0, 0, 0, 0);
    }
#pragma unroll
    for (unsigned k = 0; k < kProbeInFlight; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
  }
}

// The roofline probe: reads exactly the reduction's input and offsets (as 16-byte vectors, the
// range rounded out to 16 bytes) and writes exactly its outputs, at the memory limit, with no
// arithmetic beyond an XOR: what moving these bytes costs on this GPU. Every thread's XOR reaches
// memory (the outputs, or a store no run takes), so no read can be left out.
__global__ void __launch_bounds__(kProbeThreads) roofline_probe(const uint4* in, uint64_t in_vectors,
                                                                const uint4* offsets, uint64_t offset_vectors,
                                                                uint4* out, uint64_t out_vectors) {
  unsigned acc = 0;
  xor_vectors(in, in_vectors, acc);
  xor_vectors(offsets, offset_vectors, acc);
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  const uint64_t first = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (uint64_t i = first; i < out_vectors; i += stride) out[i] = make_uint4(acc, acc ^ 1, acc ^ 2, acc ^ 3);
  if (first >= out_vectors && acc == 0x9e3779b9u && out_vectors > 0) out[0].x = acc;
}

uint64_t vectors_of(uint64_t bytes) { return (bytes + 15) / 16; }

// Gathers a strided [outer][axis][inner] view into contiguous memory, one element per thread of a
// grid-stride loop: a strided tensor's .contiguous().
__global__ void gather_view(const float* in, axis_shape s, float* out, uint64_t count) {
  const uint64_t stride = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t k = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < count; k += stride) {
    const uint64_t i = k % s.inner, a = k / s.inner % s.axis, o = k / s.inner / s.axis;
    out[k] = in[int64_t(o) * s.outer_stride + int64_t(a) * s.axis_stride + int64_t(i) * s.inner_stride];
  }
}

// Outputs in device memory, padded to whole 16-byte vectors (the probe writes vectors).
class outputs_buffer {
 public:
  outputs_buffer(uint64_t count, cudaStream_t stream)
      : count_(count), stream_(stream), d_(vectors_of(count * sizeof(float)) * 4) {}
  float* get() const { return d_.get(); }
  std::vector<float> read() const {
    std::vector<float> host(count_);
    WARPFOLD_CUDA_CHECK(cudaMemcpyAsync(host.data(), d_.get(), count_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
    WARPFOLD_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return host;
  }

 private:
  uint64_t count_;
  cudaStream_t stream_;
  harness::DeviceBuffer<float> d_;
};

class probe_runner final : public SegmentedRunner {
 public:
  probe_runner(const SegmentedInput& in, cudaStream_t stream) : in_(in), stream_(stream), out_(in.segments, stream) {
    int device = 0, sms = 0, per_sm = 0;
    WARPFOLD_CUDA_CHECK(cudaGetDevice(&device));
    WARPFOLD_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    WARPFOLD_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, roofline_probe, kProbeThreads, 0));
    grid_ = unsigned(sms) * unsigned(per_sm > 0 ? per_sm : 1);
  }
  void run() override {
    const uint64_t offset_bytes = in_.offsets ? (in_.segments + 1) * sizeof(int32_t) : 0;
    roofline_probe<<<grid_, kProbeThreads, 0, stream_>>>(
        reinterpret_cast<const uint4*>(in_.in), vectors_of(in_.elements * sizeof(float)),
        reinterpret_cast<const uint4*>(in_.offsets), vectors_of(offset_bytes), reinterpret_cast<uint4*>(out_.get()),
        vectors_of(in_.segments * sizeof(float)));
    WARPFOLD_CUDA_CHECK(cudaGetLastError());
  }
  std::vector<float> outputs() override { return out_.read(); }

 private:
  SegmentedInput in_;
  cudaStream_t stream_;
  outputs_buffer out_;
  unsigned grid_ = 1;
};

// A two-phase call of one library (CUB's convention): Call(temp, bytes, out) returns its error.
template <class Call>
class two_phase_segmented final : public SegmentedRunner {
 public:
  two_phase_segmented(uint64_t count, cudaStream_t stream, Call call)
      : call_(call), out_(count, stream) {
    WARPFOLD_CUDA_CHECK(call_(nullptr, bytes_, out_.get()));
    temp_ = harness::fresh_temp_storage(bytes_ > 0 ? bytes_ : 1, stream);
  }
  void run() override { WARPFOLD_CUDA_CHECK(call_(temp_.get(), bytes_, out_.get())); }
  std::vector<float> outputs() override { return out_.read(); }

 private:
  Call call_;
  outputs_buffer out_;
  size_t bytes_ = 0;
  harness::DeviceBuffer<char> temp_;
};

template <class Call>
std::unique_ptr<SegmentedRunner> two_phase(uint64_t count, cudaStream_t stream, Call call) {
  return std::make_unique<two_phase_segmented<Call>>(count, stream, call);
}

// Row s of a fixed-size shape begins at s · size: CUB's offsets for the shapes warpfold reads
// without any.
struct row_start {
  int64_t size;
  __host__ __device__ int64_t operator()(int64_t s) const { return s * size; }
};

std::unique_ptr<SegmentedRunner> warpfold_runner(const SegmentedInput& in, cudaStream_t stream) {
  switch (in.kind) {
    case ShapeKind::segmented:
      if (in.with_length) {
        return two_phase(in.segments, stream, [in, stream](void* t, size_t& b, float* o) {
          return segmented_reduce(t, b, in.in, in.elements, o, in.segments, in.offsets, in.offsets + 1, plus{}, 0.0f,
                                  stream);
        });
      }
      return two_phase(in.segments, stream, [in, stream](void* t, size_t& b, float* o) {
        return segmented_reduce(t, b, in.in, o, in.segments, in.offsets, in.offsets + 1, plus{}, 0.0f, stream);
      });
    case ShapeKind::fixed:
      return two_phase(in.segments, stream, [in, stream](void* t, size_t& b, float* o) {
        return segmented_reduce(t, b, in.in, o, in.segments, in.shape.axis, plus{}, 0.0f, stream);
      });
    case ShapeKind::axis:
      return two_phase(in.segments, stream, [in, stream](void* t, size_t& b, float* o) {
        return reduce_axis(t, b, in.in, o, in.shape, plus{}, 0.0f, stream);
      });
  }
  throw std::logic_error("bench: no such shape kind");
}

// The view gathered (timed with the reduction), then reduce_axis over the contiguous copy.
std::unique_ptr<SegmentedRunner> copy_runner(const SegmentedInput& in, cudaStream_t stream) {
  auto copy = std::make_shared<harness::DeviceBuffer<float>>(in.elements);
  const axis_shape dense = axis_shape::contiguous(in.shape.outer, in.shape.axis, in.shape.inner);
  return two_phase(in.segments, stream, [in, stream, copy, dense](void* t, size_t& b, float* o) {
    if (t != nullptr && in.elements > 0) {
      const unsigned blocks = unsigned(std::min<uint64_t>(vectors_of(in.elements * 4), kGatherBlocks));
      gather_view<<<blocks, kProbeThreads, 0, stream>>>(in.in, in.shape, copy->get(), in.elements);
      if (const cudaError_t rc = cudaGetLastError(); rc != cudaSuccess) return rc;
    }
    return reduce_axis(t, b, static_cast<const float*>(copy->get()), o, dense, plus{}, 0.0f, stream);
  });
}

std::unique_ptr<SegmentedRunner> cub_runner(const SegmentedInput& in, cudaStream_t stream) {
  if (!cub_has(in)) throw std::invalid_argument("cub::DeviceSegmentedReduce has no column reduction");
  if (in.kind == ShapeKind::segmented) {
    return two_phase(in.segments, stream, [in, stream](void* t, size_t& b, float* o) {
      return cub::DeviceSegmentedReduce::Sum(t, b, in.in, o, int64_t(in.segments), in.offsets, in.offsets + 1, stream);
    });
  }
  const auto starts = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0),
                                                      row_start{int64_t(in.shape.axis)});
  return two_phase(in.segments, stream, [in, stream, starts](void* t, size_t& b, float* o) {
    return cub::DeviceSegmentedReduce::Sum(t, b, in.in, o, int64_t(in.segments), starts, starts + 1, stream);
  });
}

}  // namespace

std::unique_ptr<SegmentedRunner> make_segmented_runner(SegmentedLibrary lib, const SegmentedInput& input,
                                                       cudaStream_t stream) {
  switch (lib) {
    case SegmentedLibrary::warpfold: return warpfold_runner(input, stream);
    case SegmentedLibrary::cub: return cub_runner(input, stream);
    case SegmentedLibrary::probe: return std::make_unique<probe_runner>(input, stream);
    case SegmentedLibrary::copy_then_warpfold: return copy_runner(input, stream);
  }
  throw std::logic_error("bench: no such library");
}

}  // namespace warpfold::bench
