#include "fuzz/fuzz_exec.hpp"

#include "harness/sanitizer.hpp"

#include "lab/ladder/cpu_reduce.hpp"
#include "lab/ladder/registry.hpp"
#include "lab/ladder/workspace.hpp"

namespace warpfold::fuzz {

FuzzRunner::FuzzRunner(uint64_t max_n, cudaStream_t stream)
    : buffers_{harness::DeviceBuffer<char>((max_n + 16) * 8), harness::fresh_temp_storage(1 << 16, stream),
               harness::DeviceBuffer<char>(64), stream} {}

FuzzOutcome FuzzRunner::run(const FuzzCase& c) {
  if (c.op == FuzzOp::ladder) return run_ladder_case(c, buffers_.stream);
  if (c.layout != FuzzLayout::full) return run_segmented_case(c, buffers_);
  return is_floating(c.type) ? run_floating_case(c, buffers_) : run_integer_case(c, buffers_);
}

FuzzOutcome run_ladder_case(const FuzzCase& c, cudaStream_t stream) {
  const auto kernels = lab::select_kernels(lab::VariantSelection::fixed);
  const lab::LadderKernel& k = *kernels.at(c.ladder_kernel % kernels.size());
  splitmix64 rng{c.seed ^ 0x1add};
  std::vector<int> data(c.n);
  for (auto& x : data) x = int(rng() & 0xff);  // the book's rand() & 0xFF
  const lab::LadderWorkspace ws(data, lab::serial_sum(data.data(), data.size()), stream);
  const lab::LadderCheck check = ws.run_and_check(k, c.block);
  if (check.ok()) return {true, ""};
  return {false, std::string(k.name) + ": " + check.verdict()};
}

}  // namespace warpfold::fuzz
