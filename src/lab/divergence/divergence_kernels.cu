// Entry points of the divergence kernels. This file is compiled twice: as part of the lab
// (optimised), and in the warpfold_divergence_device_debug object library with -G and
// WARPFOLD_DIVERGENCE_DEVICE_DEBUG defined, which puts that copy in its own namespace.
#include "lab/divergence/divergence_builds.hpp"

#ifdef WARPFOLD_DIVERGENCE_DEVICE_DEBUG
#define WARPFOLD_DIVERGENCE_BUILD device_debug
#else
#define WARPFOLD_DIVERGENCE_BUILD optimised
#endif

#include "lab/divergence/divergence.cuh"

namespace warpfold::lab::divergence::WARPFOLD_DIVERGENCE_BUILD {
namespace {

using Kernel = void (*)(float*);

// The seed's launch: a 1-D grid, no shared memory; errors are checked by the caller.
template <Kernel K>
void launch(float* out, unsigned grid, unsigned block, cudaStream_t stream) {
  K<<<grid, block, 0, stream>>>(out);
}

template <Kernel K>
EntryPoint entry(std::string_view name) {
  return {name, launch<K>, reinterpret_cast<const void*>(K)};
}

}  // namespace

std::vector<EntryPoint> entry_points() {
  return {entry<warmingup>("warmingup"),     entry<mathKernel1>("mathKernel1"),
          entry<mathKernel2>("mathKernel2"), entry<mathKernel3>("mathKernel3"),
          entry<mathKernel4>("mathKernel4"), entry<mathKernel4_fixed>("mathKernel4_fixed"),
          entry<maskKernel<0x01>>("maskKernel<0x01>"), entry<maskKernel<0x20>>("maskKernel<0x20>")};
}

}  // namespace warpfold::lab::divergence::WARPFOLD_DIVERGENCE_BUILD
