#include "lab/registers/register_kernels.hpp"

#include <warpfold/error.hpp>

namespace warpfold::lab::registers {
namespace {

// Each round rewrites every value from itself and two others, so all kValues stay live at once:
// the register demand the limits then squeeze.
template <class Slot>
__device__ __forceinline__ uint32_t mix_and_fold(Slot&& at) {
#pragma unroll
  for (int r = 0; r < kRounds; ++r) {
#pragma unroll
    for (int i = 0; i < kValues; ++i) {
      at(i) = at(i) * kMultiplier + (at((i + 1) % kValues) ^ (at((i + 17) % kValues) >> 3));
    }
  }
  uint32_t folded = 0;
#pragma unroll
  for (int i = 0; i < kValues; ++i) folded += at(i) * uint32_t(2 * i + 1);
  return folded;
}

__device__ __forceinline__ void values_in_registers(const uint32_t* in, uint32_t* out, uint64_t n) {
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n) return;
  uint32_t v[kValues];
#pragma unroll
  for (int i = 0; i < kValues; ++i) v[i] = in[i * n + t];
  out[t] = mix_and_fold([&](int i) -> uint32_t& { return v[i]; });
}

// The same work on a shared-memory tile: volatile, so that every access goes to shared memory
// instead of being kept in registers. 48 KiB per block, the most a static allocation may take.
__device__ __forceinline__ void values_in_shared_memory(const uint32_t* in, uint32_t* out, uint64_t n) {
  __shared__ uint32_t tile[kValues][kBlock];
  const uint64_t t = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= n) return;
  volatile uint32_t* column = &tile[0][threadIdx.x];
#pragma unroll
  for (int i = 0; i < kValues; ++i) column[i * kBlock] = in[i * n + t];
  out[t] = mix_and_fold([&](int i) -> volatile uint32_t& { return column[i * kBlock]; });
}

__global__ void registerHeavy(const uint32_t* in, uint32_t* out, uint64_t n) { values_in_registers(in, out, n); }

template <int MaxRegisters>
__global__ void __maxnreg__(MaxRegisters) registerHeavyMaxnreg(const uint32_t* in, uint32_t* out, uint64_t n) {
  values_in_registers(in, out, n);
}

// At least MinBlocks resident blocks of kBlock threads: the compiler caps registers to fit them.
template <int MinBlocks>
__global__ void __launch_bounds__(kBlock, MinBlocks) registerHeavyBounds(const uint32_t* in, uint32_t* out, uint64_t n) {
  values_in_registers(in, out, n);
}

__global__ void sharedHeavy(const uint32_t* in, uint32_t* out, uint64_t n) { values_in_shared_memory(in, out, n); }

template <int MaxRegisters>
__global__ void __maxnreg__(MaxRegisters) sharedHeavyMaxnreg(const uint32_t* in, uint32_t* out, uint64_t n) {
  values_in_shared_memory(in, out, n);
}

using Kernel = void (*)(const uint32_t*, uint32_t*, uint64_t);

template <int MaxRegisters>
RegisterVariant capped(const char* kernel, Kernel function) {
  const std::string n = std::to_string(MaxRegisters);
  return {kernel, "__maxnreg__(" + n + ")", "-maxrregcount=" + n, reinterpret_cast<const void*>(function),
          std::string(kernel) + "Maxnreg<" + n + ">"};
}

RegisterVariant uncapped(const char* kernel, Kernel function) {
  return {kernel, "none", "(none)", reinterpret_cast<const void*>(function), kernel};
}

// 65536 registers per SM on sm_75..sm_90 shared by MinBlocks blocks of kBlock threads; sm_75's
// SM holds 1024 threads, so MinBlocks above 4 would be ignored there.
template <int MinBlocks>
RegisterVariant bounded() {
  return {"registerHeavy", "__launch_bounds__(" + std::to_string(kBlock) + ", " + std::to_string(MinBlocks) + ")",
          "-maxrregcount=" + std::to_string(65536 / (kBlock * MinBlocks)) + " (65536 / (" + std::to_string(kBlock) +
              " x " + std::to_string(MinBlocks) + "))",
          reinterpret_cast<const void*>(&registerHeavyBounds<MinBlocks>),
          "registerHeavyBounds<" + std::to_string(MinBlocks) + ">"};
}

}  // namespace

const std::vector<RegisterVariant>& register_variants() {
  static const std::vector<RegisterVariant> all{
      uncapped("registerHeavy", registerHeavy),
      capped<128>("registerHeavy", registerHeavyMaxnreg<128>),
      capped<64>("registerHeavy", registerHeavyMaxnreg<64>),
      bounded<4>(),
      capped<48>("registerHeavy", registerHeavyMaxnreg<48>),
      capped<40>("registerHeavy", registerHeavyMaxnreg<40>),
      capped<32>("registerHeavy", registerHeavyMaxnreg<32>),
      uncapped("sharedHeavy", sharedHeavy),
      capped<40>("sharedHeavy", sharedHeavyMaxnreg<40>),
      capped<24>("sharedHeavy", sharedHeavyMaxnreg<24>),
  };
  return all;
}

void launch_variant(const RegisterVariant& v, const uint32_t* in, uint32_t* out, uint64_t n, cudaStream_t stream) {
  const auto kernel = reinterpret_cast<Kernel>(const_cast<void*>(v.function));
  const unsigned blocks = unsigned((n + kBlock - 1) / kBlock);
  kernel<<<blocks, kBlock, 0, stream>>>(in, out, n);
  WARPFOLD_CUDA_CHECK(cudaGetLastError());
}

}  // namespace warpfold::lab::registers
