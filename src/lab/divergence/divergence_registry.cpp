#include "lab/divergence/divergence_registry.hpp"

#include <stdexcept>
#include <string>

namespace warpfold::lab::divergence {
namespace {

struct Description {
  std::string_view entry_name;  // the kernel's name in divergence.cuh
  std::string_view name;
  std::string_view condition;
  BranchRule takes_if;
};

constexpr Description kDescriptions[] = {
    {"warmingup", "warmingup", "(tid / warpSize) % 2 == 0", even_warp},
    {"mathKernel1", "mathKernel1", "tid % 2 == 0", even_thread},
    {"mathKernel2", "mathKernel2", "(tid / warpSize) % 2 == 0", even_warp},
    {"mathKernel3", "mathKernel3", "ipred = tid % 2 == 0; if (ipred) ...; if (!ipred) ...", even_thread},
    {"mathKernel4", "mathKernel4 (book)", "itid & 0x01 == 0, i.e. itid & (0x01 == 0): never true", never},
    {"mathKernel4_fixed", "mathKernel4 (fixed)", "(itid & 0x01) == 0, itid = tid >> 5", even_warp_of_32},
    {"maskKernel<0x01>", "maskKernel<0x01> (lab)", "(tid & 0x01) == 0", even_thread},
    {"maskKernel<0x20>", "maskKernel<0x20> (lab)", "(tid & 0x20) == 0", even_warp_of_32},
};

EntryPoint find(const std::vector<EntryPoint>& build, std::string_view name) {
  for (const EntryPoint& e : build) {
    if (e.name == name) return e;
  }
  throw std::logic_error("divergence kernel '" + std::string(name) + "' is missing from a build");
}

}  // namespace

std::string_view to_string(Build build) { return build == Build::optimised ? "-O3" : "-G"; }

const std::vector<DivergenceKernel>& divergence_kernels() {
  static const std::vector<DivergenceKernel> all = [] {
    const auto fast = optimised::entry_points();
    const auto debug = device_debug::entry_points();
    std::vector<DivergenceKernel> out;
    for (const Description& d : kDescriptions) {
      out.push_back({d.name, d.condition, d.takes_if, find(fast, d.entry_name), find(debug, d.entry_name)});
    }
    return out;
  }();
  return all;
}

}  // namespace warpfold::lab::divergence
