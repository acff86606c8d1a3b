#pragma once
// What `warpfold multigpu` is asked to do, and the checks on it that need no GPU: the argument
// ranges, the number of GPUs against those present, the set-up against the way the process was
// started (by mpirun or not), and which local GPU an MPI rank takes.

#include "bench/reduce_runners.hpp"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace warpfold::multigpu {

using bench::ElementType;
using bench::ReduceOp;

// single: one process drives every GPU (ncclCommInitAll, group calls);
// mpi: one process per GPU, started by mpirun (ncclCommInitRank, id sent by MPI_Bcast).
enum class Mode { single, mpi };

std::string to_string(Mode mode);

struct MultigpuOptions {
  uint64_t n_per_gpu = uint64_t(1) << 28;
  int gpus = 0;  // 0: every visible GPU (single), one per process (mpi)
  Mode mode = Mode::single;
  ElementType type = ElementType::int32;
  ReduceOp op = ReduceOp::sum;
  int reps = 20;
  int warmup = 3;
  std::optional<uint64_t> seed;  // fresh when not given; any given seed, 0 included, is used as given
};

inline constexpr uint64_t kMaxElementsPerGpu = uint64_t(1) << 34;

// Throws std::invalid_argument for n_per_gpu outside [1, 2^34], gpus < 0, reps < 1, warmup < 0.
void validate(const MultigpuOptions& options);

// The GPUs a one-process run uses: `requested`, or all `present` for 0. Throws
// std::invalid_argument when more are requested than are present.
int resolve_gpu_count(int requested, int present);

// The number of GPUs an mpi run uses: one per process. Throws std::invalid_argument when
// --gpus asks for another number than mpirun started.
int resolve_mpi_gpu_count(int requested, int world_size);

// Reads an environment variable; std::getenv in production, a map in the tests.
using EnvLookup = std::function<const char*(const char*)>;
EnvLookup process_environment();

// The number of processes the launcher started, when this process was started by mpirun (Open
// MPI, MPICH/Hydra, Intel MPI, PMIx and srun leave their mark); 0 when the launcher does not say how
// many; nullopt when not launched that way.
std::optional<int> launcher_world_size(const EnvLookup& env);

// mpi under a launcher, single otherwise.
Mode default_mode(const EnvLookup& env);

// Throws std::invalid_argument for a one-process run started as several processes (each would
// drive every GPU, and the GPUs would be shared by processes that do not know of each other).
void check_mode_fits_launch(Mode mode, const EnvLookup& env);

// The local GPU of an MPI rank that is number `local_rank` of `local_size` processes on its host,
// which sees `device_count` GPUs:
//  * local_size <= device_count: GPU local_rank;
//  * one visible GPU and CUDA_VISIBLE_DEVICES set: GPU 0 (each rank was given its own GPU);
// otherwise std::invalid_argument (more processes than GPUs on the host).
int choose_local_device(int local_rank, int local_size, int device_count, bool visible_devices_restricted);

}  // namespace warpfold::multigpu
