#pragma once
// The one list of the divergence kernels: the book's name, its branch condition, the CPU's rule
// for it, and its entry point in each build.

#include "lab/divergence/divergence_builds.hpp"
#include "lab/divergence/divergence_model.hpp"

#include <string_view>
#include <vector>

namespace warpfold::lab::divergence {

enum class Build { optimised, device_debug };

// "-O3" or "-G", as the tables print them.
std::string_view to_string(Build build);

struct DivergenceKernel {
  std::string_view name;       // as the tables print it
  std::string_view condition;  // the branch as the source writes it
  BranchRule takes_if;
  EntryPoint optimised;
  EntryPoint device_debug;
  const EntryPoint& in(Build build) const { return build == Build::optimised ? optimised : device_debug; }
  std::string_view entry_name() const { return optimised.name; }  // the kernel's name in divergence.cuh
};

// In the seed's order (warmingup first); the corrected mathKernel4 after the book's; the lab's
// controlled pair (maskKernel<0x01>, maskKernel<0x20>) last.
const std::vector<DivergenceKernel>& divergence_kernels();

}  // namespace warpfold::lab::divergence
