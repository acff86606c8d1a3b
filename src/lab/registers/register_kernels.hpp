#pragma once
// The kernels of `warpfold registers`: one computation, each thread mixing kValues unsigned values
// for kRounds rounds and folding them into one output, written two ways: with its values in
// registers (registerHeavy) and in shared memory (sharedHeavy). Each is instantiated under several
// register limits (__maxnreg__, __launch_bounds__), the per-kernel forms of the book's
// `nvcc -maxrregcount`, so that one build holds every limit.

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

namespace warpfold::lab::registers {

inline constexpr int kValues = 48;    // per thread, all live at once: more than 32 registers hold
inline constexpr int kRounds = 4;
inline constexpr int kBlock = 256;    // the block size every variant is built and launched for
inline constexpr uint32_t kMultiplier = 2654435761u;  // Knuth's multiplicative hash constant

// One instantiation: the kernel, the limit it was compiled under, and the book's flag that sets
// the same limit for a whole translation unit.
struct RegisterVariant {
  const char* kernel;     // "registerHeavy", "sharedHeavy"
  std::string limit;      // "none", "__maxnreg__(64)", "__launch_bounds__(256, 4)"
  std::string book_flag;  // "-maxrregcount=64"; "(none)" for the compiler's own choice
  const void* function;
  std::string function_name;  // the kernel's own name, as the profiler reports it: "registerHeavyMaxnreg<64>"
  std::string label() const { return std::string(kernel) + " " + limit; }
};

// Every variant, register kernel first, from the loosest limit to the tightest.
const std::vector<RegisterVariant>& register_variants();

// out[t] for t < n threads, from in[j * n + t] (j < kValues), kBlock threads per block.
void launch_variant(const RegisterVariant& variant, const uint32_t* in, uint32_t* out, uint64_t n, cudaStream_t stream);

}  // namespace warpfold::lab::registers
