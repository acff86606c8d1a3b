// `warpfold multigpu`: its arguments, the checks that need no GPU (GPU counts, the set-up against
// the way the process was started, the GPU an MPI rank takes), which rank writes and speaks, and a
// run on this machine.
#include "cli/multigpu_command.hpp"
#include "multigpu/multigpu_run.hpp"

#include "cli_test_support.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

using namespace warpfold;
using namespace warpfold::multigpu;
using warpfold::harness::Stop;

namespace {

using Parsed = warpfold::testing::ParsedCommand<cli::MultigpuCommandOptions>;

std::unique_ptr<Parsed> parse(std::vector<std::string> args) {
  return warpfold::testing::parse_command<cli::MultigpuCommandOptions>(cli::add_multigpu_command, "multigpu", std::move(args));
}

std::string parse_error(std::vector<std::string> args) {
  return warpfold::testing::parse_command_error<cli::MultigpuCommandOptions>(cli::add_multigpu_command, "multigpu",
                                                                             std::move(args));
}

// An environment made of the given variables only.
EnvLookup env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

}  // namespace

TEST(MultigpuCli, Defaults) {
  auto p = parse({});
  EXPECT_EQ(p->opts.run.n_per_gpu, uint64_t(1) << 28);
  EXPECT_EQ(p->opts.run.gpus, 0);
  EXPECT_EQ(p->opts.run.reps, 20);
  EXPECT_EQ(p->opts.mode, "");
  const MultigpuOptions o = cli::resolve_multigpu_options(p->opts, env_of({}));
  EXPECT_EQ(o.mode, Mode::single);
  EXPECT_EQ(o.type, ElementType::int32);
  EXPECT_EQ(o.op, ReduceOp::sum);
}

TEST(MultigpuCli, AcceptsEveryOption) {
  auto p = parse({"--n-per-gpu", "2^30", "--gpus", "8", "--mode", "mpi", "--type", "double", "--op", "max", "--reps",
                  "7", "--warmup", "0", "--seed", "9", "--format", "json"});
  const MultigpuOptions o = cli::resolve_multigpu_options(p->opts, env_of({}));
  EXPECT_EQ(o.n_per_gpu, uint64_t(1) << 30);
  EXPECT_EQ(o.gpus, 8);
  EXPECT_EQ(o.mode, Mode::mpi);
  EXPECT_EQ(o.type, ElementType::float64);
  EXPECT_EQ(o.op, ReduceOp::max);
  EXPECT_EQ(o.reps, 7);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_EQ(p->opts.output.format, "json");
  EXPECT_EQ(cli::resolve_multigpu_options(parse({"--type", "float"})->opts, env_of({})).type, ElementType::float32);
}

TEST(MultigpuCli, ZeroIsASeedLikeAnyOther) {
  EXPECT_FALSE(cli::resolve_multigpu_options(parse({})->opts, env_of({})).seed);
  EXPECT_EQ(cli::resolve_multigpu_options(parse({"--seed", "0"})->opts, env_of({})).seed, std::optional<uint64_t>(0));
  EXPECT_FALSE(parse_error({"--seed", "-1"}).empty());  // not read as 2^64 - 1
}

TEST(MultigpuCli, RejectsBadValues) {
  EXPECT_NE(parse_error({"--n-per-gpu", "lots"}).find("not a valid count"), std::string::npos);
  EXPECT_FALSE(parse_error({"--n-per-gpu", "0"}).empty());
  EXPECT_FALSE(parse_error({"--n-per-gpu", "2^35"}).empty());
  EXPECT_FALSE(parse_error({"--gpus", "0"}).empty());
  EXPECT_FALSE(parse_error({"--gpus", "-1"}).empty());
  EXPECT_FALSE(parse_error({"--mode", "threads"}).empty());
  EXPECT_FALSE(parse_error({"--type", "int16"}).empty());
  EXPECT_FALSE(parse_error({"--op", "and"}).empty());
  EXPECT_FALSE(parse_error({"--reps", "0"}).empty());
  EXPECT_FALSE(parse_error({"--warmup", "-1"}).empty());
  EXPECT_FALSE(parse_error({"--format", "xml"}).empty());
}

TEST(MultigpuOptions, Validate) {
  MultigpuOptions o;
  EXPECT_NO_THROW(validate(o));
  o.n_per_gpu = 0;
  EXPECT_THROW(validate(o), std::invalid_argument);
  o = {};
  o.reps = 0;
  EXPECT_THROW(validate(o), std::invalid_argument);
  o = {};
  o.gpus = -2;
  EXPECT_THROW(validate(o), std::invalid_argument);
}

TEST(MultigpuOptions, GpuCounts) {
  EXPECT_EQ(resolve_gpu_count(0, 4), 4);
  EXPECT_EQ(resolve_gpu_count(1, 1), 1);
  EXPECT_EQ(resolve_gpu_count(2, 8), 2);
  try {
    resolve_gpu_count(2, 1);
    ADD_FAILURE() << "2 GPUs out of 1";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("more GPUs than this host has: 1 visible"), std::string::npos) << e.what();
  }
  EXPECT_EQ(resolve_mpi_gpu_count(0, 2), 2);
  EXPECT_EQ(resolve_mpi_gpu_count(2, 2), 2);
  try {
    resolve_mpi_gpu_count(4, 2);
    ADD_FAILURE() << "--gpus 4 with 2 processes";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("mpirun -np 4"), std::string::npos) << e.what();
  }
}

TEST(MultigpuOptions, TheLauncherIsRecognised) {
  EXPECT_EQ(launcher_world_size(env_of({})), std::nullopt);
  EXPECT_EQ(launcher_world_size(env_of({{"OMPI_COMM_WORLD_SIZE", "2"}})), 2);
  EXPECT_EQ(launcher_world_size(env_of({{"PMI_SIZE", "8"}})), 8);
  EXPECT_EQ(launcher_world_size(env_of({{"PMIX_RANK", "0"}})), 0);
  EXPECT_EQ(launcher_world_size(env_of({{"SLURM_NTASKS", "4"}})), std::nullopt);  // an allocation, not a launch
  EXPECT_EQ(launcher_world_size(env_of({{"OMPI_COMM_WORLD_SIZE", "two"}})), std::nullopt);
  EXPECT_EQ(default_mode(env_of({})), Mode::single);
  EXPECT_EQ(default_mode(env_of({{"OMPI_COMM_WORLD_SIZE", "1"}})), Mode::mpi);
  auto p = parse({});
  EXPECT_EQ(cli::resolve_multigpu_options(p->opts, env_of({{"OMPI_COMM_WORLD_SIZE", "2"}})).mode, Mode::mpi);
  auto q = parse({"--mode", "single"});
  EXPECT_EQ(cli::resolve_multigpu_options(q->opts, env_of({{"OMPI_COMM_WORLD_SIZE", "2"}})).mode, Mode::single);
}

TEST(MultigpuOptions, SingleModeRefusesSeveralProcesses) {
  EXPECT_NO_THROW(check_mode_fits_launch(Mode::single, env_of({})));
  EXPECT_NO_THROW(check_mode_fits_launch(Mode::single, env_of({{"OMPI_COMM_WORLD_SIZE", "1"}})));
  EXPECT_NO_THROW(check_mode_fits_launch(Mode::mpi, env_of({{"OMPI_COMM_WORLD_SIZE", "2"}})));
  try {
    check_mode_fits_launch(Mode::single, env_of({{"OMPI_COMM_WORLD_SIZE", "2"}}));
    ADD_FAILURE() << "two processes in the single set-up";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--mode mpi"), std::string::npos) << e.what();
  }
}

TEST(MultigpuOptions, EachRankTakesItsOwnGpu) {
  EXPECT_EQ(choose_local_device(0, 2, 2, false), 0);
  EXPECT_EQ(choose_local_device(1, 2, 2, false), 1);
  EXPECT_EQ(choose_local_device(1, 2, 8, false), 1);
  EXPECT_EQ(choose_local_device(0, 1, 1, false), 0);
  EXPECT_EQ(choose_local_device(1, 2, 1, true), 0);  // CUDA_VISIBLE_DEVICES gave each rank one GPU
  EXPECT_THROW(choose_local_device(1, 2, 1, false), std::invalid_argument);
  EXPECT_THROW(choose_local_device(2, 3, 2, true), std::invalid_argument);
  EXPECT_THROW(choose_local_device(0, 1, 0, false), std::invalid_argument);
  EXPECT_THROW(choose_local_device(2, 2, 4, false), std::invalid_argument);
}

// Runs everywhere: without a device the run stops with the one line; with one, asking for more
// GPUs than present is a usage error.
TEST(MultigpuRun, NoDeviceOrTooManyGpusIsSaidClearly) {
  MultigpuOptions o;
  o.n_per_gpu = 1024;
  o.gpus = 4096;
  o.reps = 1;
  try {
    const MultigpuOutcome out = run_multigpu(o);
    EXPECT_EQ(out.stop, Stop::no_device);
    EXPECT_NE(out.stop_reason.find("no CUDA device"), std::string::npos) << out.stop_reason;
    EXPECT_EQ(out.stop_reason.find('\n'), std::string::npos) << "one line";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("more GPUs than this host has"), std::string::npos) << e.what();
  }
}

TEST(MultigpuRun, TheMpiSetUpIsBuiltWhereMpiWasFound) {
#ifdef WARPFOLD_EXPECT_MPI
  EXPECT_TRUE(mpi_mode_built());
#else
  EXPECT_FALSE(mpi_mode_built());
  MultigpuOptions o;
  o.mode = Mode::mpi;
  const MultigpuOutcome out = run_multigpu(o);
  EXPECT_EQ(out.stop, Stop::bad_request);
  EXPECT_NE(out.stop_reason.find("libopenmpi-dev"), std::string::npos) << out.stop_reason;
#endif
}

// Rank 0 of an mpi job writes the report and says what failed; the other ranks only exit alike.
TEST(MultigpuCli, OnlyTheReportingRankWritesAndSpeaks) {
  MultigpuOutcome rank1;
  rank1.writes_report = false;
  rank1.gpu_ran = true;
  rank1.check_failed = true;
  rank1.wrong = "a GPU's partial or result differed from the CPU's (see the checks)";
  cli::OutputOptions out;
  out.out = ::testing::TempDir() + "warpfold_multigpu_rank1.txt";
  std::remove(out.out.c_str());
  {
    warpfold::testing::CaptureStderr err;
    EXPECT_EQ(cli::finish_multigpu(rank1, out), cli::kExitCheckFailed);
    EXPECT_EQ(err.text.str(), "");
  }
  EXPECT_FALSE(std::ifstream(out.out).good()) << "only rank 0 writes the report";
  rank1.stop = Stop::no_device;
  rank1.stop_reason = "rank 1 of 2 (host): no CUDA device";
  warpfold::testing::CaptureStderr err;
  EXPECT_EQ(cli::finish_multigpu(rank1, out), cli::kExitNoDevice);
  EXPECT_EQ(err.text.str(), "warpfold: rank 1 of 2 (host): no CUDA device\n") << "a rank says its own stop";
}
