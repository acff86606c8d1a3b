#include "profile/kernel_pairing.hpp"

#include "profile/kernel_names.hpp"

#include <algorithm>

namespace warpfold::profile {

KernelPairing pair_launches(const std::vector<ProfiledLaunch>& launches, const std::vector<NcuKernel>& kernels) {
  KernelPairing out;
  // Kernels no launch claims, by name: one note per name however many there are (device-side
  // launches, were ncu to profile them, would be thousands).
  struct Unclaimed {
    std::string name;
    long first_id;
    size_t count;
  };
  std::vector<Unclaimed> unclaimed;
  auto skipped = [&](size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      auto same = std::find_if(unclaimed.begin(), unclaimed.end(), [&](const Unclaimed& u) { return u.name == kernels[i].name; });
      if (same == unclaimed.end()) {
        unclaimed.push_back({kernels[i].name, kernels[i].id, 1});
      } else {
        ++same->count;
      }
    }
  };
  size_t next = 0;  // the first of ncu's kernels not paired yet
  for (const ProfiledLaunch& launch : launches) {
    size_t k = next;
    while (k < kernels.size() && !names_same_kernel(kernels[k].name, launch.kernel)) ++k;
    if (k == kernels.size()) {
      out.problems.push_back(launch.label + ": " + launch.kernel + " is not in ncu's results");
      out.kernels.push_back(nullptr);
      continue;
    }
    skipped(next, k);
    next = k + 1;
    out.kernels.push_back(&kernels[k]);
  }
  skipped(next, kernels.size());
  for (const Unclaimed& u : unclaimed) {
    const std::string where = u.count == 1 ? " (ID " + std::to_string(u.first_id) + ")"
                                           : " " + std::to_string(u.count) + " times (IDs from " + std::to_string(u.first_id) + ")";
    out.problems.push_back("ncu also profiled " + u.name + where + ", which is no row of this table");
  }
  return out;
}

}  // namespace warpfold::profile
