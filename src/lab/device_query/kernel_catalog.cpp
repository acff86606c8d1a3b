#include "lab/device_query/kernel_catalog.hpp"

#include "lab/divergence/divergence_registry.hpp"
#include "lab/grid_shape/sum_matrix_launch.hpp"
#include "lab/ladder/registry.hpp"

namespace warpfold::lab {

std::vector<LabKernel> lab_kernels() {
  std::vector<LabKernel> out;
  for (VariantSelection variant : {VariantSelection::book, VariantSelection::fixed}) {
    for (const LadderKernel* k : select_kernels(variant)) {
      if (!k->function) continue;  // the library's rung: its kernel is chosen by size, at run time
      out.push_back({std::string(k->function_name) + " (" + std::string(to_string(k->variant)) + ")", "ladder", k->function});
    }
  }
  for (divergence::Build b : {divergence::Build::optimised, divergence::Build::device_debug}) {
    for (const auto& k : divergence::divergence_kernels()) {
      out.push_back({std::string(k.name) + " " + std::string(divergence::to_string(b)), "divergence",
                     k.in(b).function});
    }
  }
  out.push_back({"sumMatrixOnGPU2D", "grid", sum_matrix_function()});
  return out;
}

}  // namespace warpfold::lab
