#include "lab/device_query/kernel_catalog.hpp"

#include "lab/divergence/divergence_registry.hpp"
#include "lab/grid_shape/sum_matrix_launch.hpp"
#include "lab/ladder/registry.hpp"

#include <stdexcept>

namespace warpfold::lab {
namespace {

// The ladder's registry pairs names with launch functions; the entry points come in the same order.
void add_ladder(std::vector<LabKernel>& out, Variant variant, const std::vector<const void*>& functions) {
  size_t i = 0;
  for (const LadderKernel& k : ladder_kernels()) {
    if (k.variant != variant) continue;
    if (i == functions.size()) throw std::logic_error("a ladder kernel has no entry point");
    std::string name(k.name);
    if (name == "reduceCompleteUnroll") name += "<512>";
    out.push_back({name + " (" + std::string(to_string(variant)) + ")", "ladder", functions[i++]});
  }
  if (i != functions.size()) throw std::logic_error("a ladder entry point has no kernel");
}

}  // namespace

std::vector<LabKernel> lab_kernels() {
  std::vector<LabKernel> out;
  add_ladder(out, Variant::book, book_ladder_functions());
  add_ladder(out, Variant::fixed, fixed_ladder_functions());
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
