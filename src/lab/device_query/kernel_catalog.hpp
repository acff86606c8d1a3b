#pragma once
// Every kernel of the lab by name, with its entry point, for the occupancy table of `warpfold info`.

#include <string>
#include <vector>

namespace warpfold::lab {

struct LabKernel {
  std::string name;    // e.g. "reduceUnrolling8 (fixed)", "mathKernel1 -G"
  std::string lesson;  // "ladder", "divergence", "grid"
  const void* function;
};

// The reduction ladder (book and fixed), the divergence kernels of both builds, sumMatrixOnGPU2D.
std::vector<LabKernel> lab_kernels();

}  // namespace warpfold::lab
