#pragma once
// Pairing the launches a profile pass made with the kernels ncu reports: each launch takes the
// next kernel (by ID) whose name agrees with it (see launch_manifest.hpp). Every table of a
// profile pairs the same way, so each row of each table describes the same kernel.

#include "profile/launch_manifest.hpp"
#include "profile/ncu_csv.hpp"

#include <string>
#include <vector>

namespace warpfold::profile {

struct KernelPairing {
  std::vector<const NcuKernel*> kernels;  // one per launch, in launch order; nullptr: ncu did not report it
  // A launch without a kernel, and kernels no launch claims (one note per name, however many).
  std::vector<std::string> problems;
};

// `kernels` must outlive the result.
KernelPairing pair_launches(const std::vector<ProfiledLaunch>& launches, const std::vector<NcuKernel>& kernels);

}  // namespace warpfold::profile
