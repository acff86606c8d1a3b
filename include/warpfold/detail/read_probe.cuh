#pragma once
// The read probe's interface: the part of detail/ that the bench's no-combine row
// (src/bench/no_combine.cuh) may use, and all of it. That row runs the reduce's grid, tiles and
// loads with no grid-wide combine, to price the combine in the same run as the reduce; for that it
// needs the reduce's own loader, plan and launch, not copies of them. Naming them here, once, keeps
// that dependency deliberate: a change to one of these names is a change to the probe too, and
// everything else in detail/ stays free to change. Nothing outside the bench includes this header;
// it adds no code. Its first part compiles without nvcc too, for the bench's host code, which
// records the tuning policy with the results.

#include <warpfold/detail/reduce_policy.hpp>

namespace warpfold::detail::read_probe {

// The kernel kinds, their threads per block and their tuning.
using detail::kernel_kind;
using detail::kThreads;
using detail::policy_for_arch;
using detail::reduce_policy;

}  // namespace warpfold::detail::read_probe

#if defined(__CUDACC__)
#include <warpfold/detail/bulk_copy.cuh>
#include <warpfold/detail/kernel_launch.cuh>
#include <warpfold/detail/reduce_dispatch.cuh>
#include <warpfold/detail/reduce_plan.hpp>
#include <warpfold/detail/tile_loader.cuh>

namespace warpfold::detail::read_probe {

// Which kernel the dispatch takes for n elements.
using detail::takes_bulk_tiles;
using detail::takes_wide_tiles;
using detail::vector_elements;

// The grid: the blocks of a kernel resident on the device, and the plan of a reduce over them.
using detail::plan_reduce;
using detail::resident_blocks;

// The launch, as the reduce launches its kernels, and the architecture of the code that runs.
using detail::compiled_arch;
using detail::launch_kernel;

// The reads: kernel Kind's tile loader over 32-bit words (its 16-byte vectors are the reduce's),
// and the bulk kernel's copies of full tiles through shared memory where this code has them.
template <kernel_kind Kind>
using word_loader = tile_loader<unsigned, kThreads, compiled_policy().vectors(Kind)>;
inline constexpr bool kBulkCopies = bulk::kCompiled;
inline constexpr unsigned kBulkStages = compiled_policy().bulk_stages;
using detail::bulk_read_full_tiles;

}  // namespace warpfold::detail::read_probe
#endif
