// The lessons of the chapter, one declaration each, in the chapter's order: the command, the
// report's sections and the profile of each derive from here (lesson.hpp). A report section is
// the lesson's command line as a user would type it after the lesson's name.
#include "cli/bench_command.hpp"
#include "cli/divergence_command.hpp"
#include "cli/grid_command.hpp"
#include "cli/info_command.hpp"
#include "cli/ladder_command.hpp"
#include "cli/lesson_builder.hpp"
#include "cli/nested_command.hpp"
#include "cli/registers_command.hpp"
#include "cli/warps_command.hpp"
#include "lab/divergence/divergence_profile_pass.hpp"
#include "lab/grid_shape/grid_profile_pass.hpp"
#include "lab/ladder/ladder_profile_pass.hpp"
#include "lab/nested/nested_profile_pass.hpp"
#include "lab/nested/nested_run.hpp"
#include "lab/registers/register_profile_pass.hpp"

namespace warpfold::cli {
namespace {

// The lab's options as registered, for lessons whose options need no resolving.
template <class Options>
auto lab_options(const Options& o) {
  return o.lab;
}

std::vector<Lesson> declare_lessons() {
  using lab::DivergenceOptions, lab::GridOptions, lab::InfoOptions, lab::LadderOptions, lab::NestedOptions,
      lab::RegistersOptions, lab::WarpsOptions;
  return {
      LessonBuilder<InfoCommandOptions, InfoOptions>(
          "info",
          "the device: the book's device query and more, Little's-law latency hiding, occupancy of the lab's kernels",
          add_info_options, lab_options<InfoCommandOptions>, lab::run_info)
          .section("info", "The device: query, occupancy and latency hiding", {}, {}),

      LessonBuilder<WarpsCommandOptions, WarpsOptions>(
          "warps", "warp partitioning: how a block's threads map to warps, measured, and the lanes a partial warp wastes",
          add_warps_options, resolved_warps_options, lab::run_warps)
          .section("warps", "Warp partitioning", {}, {}),

      LessonBuilder<RegistersCommandOptions, RegistersOptions>(
          "registers",
          "resource-limited occupancy: one kernel under register limits (__maxnreg__, __launch_bounds__, the book's "
          "-maxrregcount), its values in registers or shared memory; registers, spills, occupancy, time",
          add_registers_options, lab_options<RegistersCommandOptions>, lab::run_registers)
          .profile_pass(lab::registers_profile_pass, lab::validate_registers_options, lab::registers_timed_rows)
          .section("registers", "Resource-limited occupancy", {}, {"--n", "2^18", "--reps", "5"})
          .profiled_section("registers-profile", "Resource-limited occupancy: achieved (Nsight Compute)", {},
                            {"--n", "2^18", "--reps", "3"}),

      LessonBuilder<LadderCommandOptions, LadderOptions>(
          "ladder", "run, check and time every kernel of the reduction ladder (book and fixed variants)",
          add_ladder_options, resolved_ladder_options, lab::run_ladder)
          .profile_pass(lab::ladder_profile_pass, lab::validate_ladder_profile_options, lab::ladder_timed_rows)
          .profile_warp_state()
          .section("ladder", "The reduction ladder", {}, {"--n", "2^20", "--reps", "5"})
          .section("sweep", "Block-size sweep of the ladder", {"--block-sweep", "--reps", "10"},
                   {"--block-sweep", "--reps", "3", "--n", "2^20"})
          .profiled_section("profile", "The book's profiler tables (Nsight Compute)", {}, {"--n", "2^20", "--reps", "5"}),

      LessonBuilder<DivergenceCommandOptions, DivergenceOptions>(
          "divergence",
          "warp divergence: the book's mathKernel1..4, checked and timed, optimised and with -G side by side",
          add_divergence_options, lab_options<DivergenceCommandOptions>, lab::run_divergence)
          .profile_pass(lab::divergence_profile_pass, lab::validate_divergence_options, lab::divergence_timed_rows)
          .section("divergence", "Warp divergence", {}, {"--n", "2^20", "--reps", "5"})
          .profiled_section("divergence-profile", "Warp divergence: the book's metrics (Nsight Compute)", {},
                            {"--n", "2^20", "--reps", "5"}),

      LessonBuilder<GridCommandOptions, GridOptions>(
          "grid", "grid and block shapes: the book's sumMatrixOnGPU2D over block shapes, checked and timed",
          add_grid_options, resolved_grid_options, lab::run_grid)
          .profile_pass(lab::grid_profile_pass, lab::validate_grid_options, lab::grid_timed_rows)
          .section("grid", "Grid and block shapes", {}, {"--nx", "2048", "--ny", "2048", "--reps", "3"})
          .profiled_section("grid-profile", "Grid and block shapes: the book's metrics (Nsight Compute)", {},
                            {"--nx", "2048", "--ny", "2048", "--reps", "3"}),

      LessonBuilder<NestedCommandOptions, NestedOptions>(
          "nested",
          "the seed's nested reductions on CUDA Dynamic Parallelism 2: checked, timed, child launches counted",
          add_nested_options, lab_options<NestedCommandOptions>, lab::run_nested)
          .subcommand(run_nested_hello_command)
          .profile_pass(lab::nested_profile_pass, lab::validate_nested_options, lab::nested_timed_rows)
          .section("nested", "Nested launches (dynamic parallelism)", {}, {"--n", "2^16", "--reps", "3"}),

      LessonBuilder<BenchCommandOptions, BenchRequest>(
          "bench",
          "warpfold::reduce vs cub::DeviceReduce vs thrust::reduce vs the CPU, same process, same buffers; "
          "with --segmented / --axis, segmented and axis reductions vs CUB and a roofline probe",
          add_bench_options, resolved_bench_request, run_bench_request)
          .section("bench", "The production reduce vs CUB and Thrust", {}, {"--reps", "5", "--pow2", "10:20:5"})
          .section("segmented", "Segmented and axis reductions vs CUB and the roofline probe", {"--segmented", "--axis"},
                   {"--segmented", "--axis", "--reps", "5", "--elements", "2^20"}),
  };
}

}  // namespace

const std::vector<Lesson>& lessons() {
  static const std::vector<Lesson> all = declare_lessons();
  return all;
}

}  // namespace warpfold::cli
