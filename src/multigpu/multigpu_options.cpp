#include "multigpu/multigpu_options.hpp"

#include <cstdlib>
#include <stdexcept>

namespace warpfold::multigpu {

std::string to_string(Mode mode) { return mode == Mode::single ? "single" : "mpi"; }

void validate(const MultigpuOptions& o) {
  if (o.n_per_gpu < 1 || o.n_per_gpu > kMaxElementsPerGpu) {
    throw std::invalid_argument("--n-per-gpu " + std::to_string(o.n_per_gpu) + " is outside [1, 2^34]");
  }
  if (o.gpus < 0) throw std::invalid_argument("--gpus must be at least 1 (or 0 for every GPU)");
  if (o.reps < 1) throw std::invalid_argument("reps must be at least 1");
  if (o.warmup < 0) throw std::invalid_argument("warmup must not be negative");
}

int resolve_gpu_count(int requested, int present) {
  if (requested == 0) return present;
  if (requested > present) {
    throw std::invalid_argument("--gpus " + std::to_string(requested) + " asks for more GPUs than this host has: " +
                                std::to_string(present) + " visible (CUDA_VISIBLE_DEVICES may hide some)");
  }
  return requested;
}

int resolve_mpi_gpu_count(int requested, int world_size) {
  if (requested != 0 && requested != world_size) {
    throw std::invalid_argument("--gpus " + std::to_string(requested) + " does not match the " +
                                std::to_string(world_size) +
                                " process(es) of this MPI run (one started without mpirun is a run of one): the mpi "
                                "set-up runs one GPU per process, so start it with mpirun -np " +
                                std::to_string(requested));
  }
  return world_size;
}

EnvLookup process_environment() {
  return [](const char* name) -> const char* { return std::getenv(name); };
}

std::optional<int> launcher_world_size(const EnvLookup& env) {
  // Set for each started process (not for a whole allocation, as SLURM_NTASKS is): Open MPI's
  // mpirun, then the PMI of MPICH's Hydra, Intel MPI and srun --mpi=pmi2.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = env(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long size = std::strtol(value, &end, 10);
    if (*end == '\0' && size >= 1) return int(size);
  }
  // A PMIx launcher (srun --mpi=pmix, prrte) names the rank but not the size: launched, size
  // unknown until MPI_Init.
  if (const char* rank = env("PMIX_RANK"); rank != nullptr && *rank != '\0') return 0;
  return std::nullopt;
}

Mode default_mode(const EnvLookup& env) { return launcher_world_size(env) ? Mode::mpi : Mode::single; }

void check_mode_fits_launch(Mode mode, const EnvLookup& env) {
  if (mode != Mode::single) return;
  const std::optional<int> world = launcher_world_size(env);
  if (world && *world > 1) {
    throw std::invalid_argument("--mode single was started as " + std::to_string(*world) +
                                " processes: under mpirun use --mode mpi (one GPU per process), or start one process");
  }
}

int choose_local_device(int local_rank, int local_size, int device_count, bool visible_devices_restricted) {
  if (device_count < 1) throw std::invalid_argument("no GPU visible to this process");
  if (local_rank < 0 || local_rank >= local_size) {
    throw std::invalid_argument("local rank " + std::to_string(local_rank) + " is outside [0, " +
                                std::to_string(local_size) + ")");
  }
  if (local_size <= device_count) return local_rank;
  if (device_count == 1 && visible_devices_restricted) return 0;
  throw std::invalid_argument(std::to_string(local_size) + " processes share this host but it has " +
                              std::to_string(device_count) + " visible GPU(s): start at most one process per GPU " +
                              "(Open MPI: --map-by ppr:" + std::to_string(device_count) +
                              ":node), or give each process its own GPU with CUDA_VISIBLE_DEVICES");
}

}  // namespace warpfold::multigpu
