#include "cli/multigpu_command.hpp"

#include "cli/finish.hpp"
#include "multigpu/multigpu_run.hpp"

namespace warpfold::cli {

int finish_multigpu(const multigpu::MultigpuOutcome& outcome, const OutputOptions& output) {
  if (!outcome.writes_report && outcome.stop == harness::Stop::none) return exit_code(outcome);
  return finish(outcome, output);
}

multigpu::MultigpuOptions resolve_multigpu_options(const MultigpuCommandOptions& o, const multigpu::EnvLookup& env) {
  multigpu::MultigpuOptions r = o.run;
  r.mode = o.mode.empty() ? multigpu::default_mode(env) : (o.mode == "mpi" ? multigpu::Mode::mpi : multigpu::Mode::single);
  r.type = o.type == "int32" ? bench::ElementType::int32
           : o.type == "float" ? bench::ElementType::float32
                               : bench::ElementType::float64;
  r.op = o.op == "sum" ? bench::ReduceOp::sum : bench::ReduceOp::max;
  return r;
}

Command add_multigpu_command(CLI::App& app, MultigpuCommandOptions& o) {
  CLI::App* sub = app.add_subcommand(
      "multigpu",
      "reduce sharded data across GPUs: warpfold::reduce on each GPU, NCCL across them; one process (--mode single) "
      "or one per GPU under mpirun (--mode mpi); checked against the CPU, timed per phase");
  sub->add_option("--n-per-gpu", o.run.n_per_gpu, "elements on each GPU (e.g. 2^28, 268435456)")
      ->transform(count_transform())
      ->check(CLI::Range(uint64_t(1), multigpu::kMaxElementsPerGpu))
      ->default_str("2^28");
  sub->add_option("--gpus", o.run.gpus,
                  "GPUs to use: single: GPUs 0..N-1 (default: all visible); mpi: must equal the number of processes")
      ->check(CLI::Range(1, 4096));
  sub->add_option("--mode", o.mode, "single: one process drives every GPU; mpi: one process per GPU, started by "
                                    "mpirun (default: mpi when started by mpirun, else single)")
      ->check(CLI::IsMember({"single", "mpi"}));
  sub->add_option("--type", o.type, "element type (int32 sums accumulate in int64)")
      ->check(CLI::IsMember({"int32", "float", "double"}))
      ->capture_default_str();
  sub->add_option("--op", o.op, "operator")->check(CLI::IsMember({"sum", "max"}))->capture_default_str();
  add_reps_option(*sub, o.run.reps, "of each measurement");
  sub->add_option("--warmup", o.run.warmup, "untimed repetitions before each measurement")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  add_seed_option(*sub, o.run.seed, "seed of the shards' data (default: fresh each run)");
  add_output_options(*sub, o.output);
  return {sub, [&o]() {
            const multigpu::MultigpuOptions run = resolve_multigpu_options(o, multigpu::process_environment());
            return finish_multigpu(multigpu::run_multigpu(run), o.output);
          }};
}

}  // namespace warpfold::cli
