#include "multigpu/measure.hpp"

#include <warpfold/error.hpp>

#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace warpfold::multigpu {

std::vector<RankSummary> measure_ranks(const std::vector<LocalRank>& ranks, const std::vector<ShardReference>& references,
                                       const MultigpuOptions& o, const std::function<void()>& barrier) {
  if (ranks.size() != references.size()) throw std::logic_error("measure_ranks: one reference per rank");
  std::vector<RankSummary> out(ranks.size());
  for (size_t i = 0; i < ranks.size(); ++i) {
    out[i].rank = ranks[i].rank;
    out[i].device = ranks[i].device;
    out[i].reference = references[i];
    WARPFOLD_CUDA_CHECK(cudaSetDevice(ranks[i].device));
    ranks[i].pipeline->poison();
  }

  run_once(ranks, Phases::local_then_combine);
  for (size_t i = 0; i < ranks.size(); ++i) {
    out[i].partial = ranks[i].pipeline->partial();
    out[i].result = ranks[i].pipeline->result();
  }

  StartGate gate;
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (ranks[i].rank != 0) continue;
    out[i].local_alone = time_phases({ranks[i]}, Phases::local, o.warmup, o.reps, gate, [] {}).front().local;
  }
  barrier();  // the baseline ran with every other GPU idle

  const auto both = time_phases(ranks, Phases::local_then_combine, o.warmup, o.reps, gate, barrier);
  const auto alone = time_phases(ranks, Phases::combine, o.warmup, o.reps, gate, barrier);
  for (size_t i = 0; i < ranks.size(); ++i) {
    out[i].local = both[i].local;
    out[i].combine = both[i].combine;
    out[i].total = both[i].total;
    out[i].combine_alone = alone[i].combine;
    WARPFOLD_CUDA_CHECK(cudaSetDevice(ranks[i].device));
    out[i].result_after_timing = ranks[i].pipeline->result();
  }
  return out;
}

namespace {
// Copies what fits of `text` into `out` and terminates it: names longer than the field are cut.
template <size_t N>
void copy_text(char (&out)[N], const char* text) {
  const size_t length = strnlen(text, N - 1);
  std::memcpy(out, text, length);
  out[length] = '\0';
}
}  // namespace

void describe_device(RankSummary& s, int device) {
  char host[256] = {};
  copy_text(s.host, gethostname(host, sizeof host - 1) == 0 ? host : "?");
  cudaDeviceProp prop{};
  WARPFOLD_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  copy_text(s.name, prop.name);
  WARPFOLD_CUDA_CHECK(cudaDeviceGetPCIBusId(s.pci_bus, int(sizeof s.pci_bus), device));
}

}  // namespace warpfold::multigpu
