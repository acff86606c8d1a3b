#include "fuzz/fuzz_run.hpp"

#include "fuzz/fuzz_exec.hpp"
#include "harness/random_data.hpp"
#include "lab/ladder/registry.hpp"
#include "harness/run_context.hpp"

#include <chrono>
#include <map>
#include <stdexcept>

namespace warpfold::fuzz {

uint64_t case_seed(uint64_t run_seed, uint64_t i) {
  splitmix64 mix{run_seed ^ (i * 0xd1b54a32d192ed03ull)};
  return mix();
}

namespace {

// --max-n is part of the command: a case's size is drawn up to max_n, so the same case seed under
// another max-n is another case.
std::string replay_command_text(const std::string& case_seed, uint64_t max_n) {
  return "warpfold fuzz --max-n " + std::to_string(max_n) + " --replay " + case_seed;
}

}  // namespace

std::string replay_command(uint64_t case_seed, uint64_t max_n) {
  return replay_command_text(std::to_string(case_seed), max_n);
}

void judge_counts(FuzzRunOutcome& out) {
  if (out.gpu_ran && out.cases == 0) {
    out.stop = harness::Stop::failed;
    out.stop_reason = "no fuzz case ran: nothing was tested";
  }
  out.check_failed = out.failures > 0;
  if (out.check_failed) {
    out.wrong = std::to_string(out.failures) + " of " + std::to_string(out.cases) +
                " fuzz cases failed (see the failures table)";
  }
}

FuzzRunOutcome run_fuzz(const FuzzOptions& o) {
  // The negated comparison also refuses NaN.
  if (!(o.seconds >= kMinFuzzSeconds && o.seconds <= kMaxFuzzSeconds)) {
    throw std::invalid_argument("seconds must be from " + report::format_number(kMinFuzzSeconds) + " to " +
                                report::format_number(kMaxFuzzSeconds));
  }
  if (o.max_n < 1 || o.max_n > kMaxFuzzN) throw std::invalid_argument("max-n must be between 1 and 2^28");

  FuzzRunOutcome out;
  report::Report& r = out.report;
  const uint64_t seed = o.seed ? *o.seed : harness::fresh_seed();
  r.meta["command"] = "fuzz";
  r.meta["seed"] = seed;
  r.meta["max_n"] = o.max_n;
  if (o.replay) {
    r.preamble.push_back("warpfold fuzz: replaying one case: " + replay_command(*o.replay, o.max_n));
  } else {
    r.preamble.push_back("warpfold fuzz: " + report::format_number(o.seconds) + " s, run seed " + std::to_string(seed) +
                         ", n up to " + std::to_string(o.max_n) +
                         "; replay a case with: " + replay_command_text("CASE_SEED", o.max_n));
  }
  harness::RunContext ctx = harness::RunContext::open(r);
  if (!ctx.has_device()) return out;
  out.gpu_ran = true;
  ctx.require_device_memory((o.max_n + 16) * 8 * 3, "fuzzing with n up to " + std::to_string(o.max_n));

  FuzzRunner runner(o.max_n, ctx.stream());
  const size_t ladder_kernels = lab::select_kernels(lab::VariantSelection::fixed).size();
  report::Table failures;
  failures.title = "failures";
  failures.columns = {{"seed", "case seed"}, {"case", "case"}, {"detail", "detail"}, {"replay", "replay with"}};
  std::map<std::string, uint64_t> per_op;

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  for (uint64_t i = 0; o.replay ? i < 1 : elapsed() < o.seconds; ++i) {
    const FuzzCase c = make_case(o.replay ? *o.replay : case_seed(seed, i), o.max_n, ladder_kernels);
    const FuzzOutcome result = runner.run(c);
    ++out.cases;
    ++per_op[to_string(c.op)];
    if (!result.ok) {
      ++out.failures;
      failures.add_row({std::to_string(c.seed), describe(c), result.detail, replay_command(c.seed, o.max_n)});
    }
  }

  report::Table summary;
  summary.title = "cases run";
  summary.columns = {{"operation", "operation"}, {"cases", "cases"}};
  for (const auto& [op, count] : per_op) summary.add_row({op, count});
  summary.notes.push_back(std::to_string(out.cases) + " cases in " + std::to_string(int(elapsed())) + " s, " +
                          std::to_string(out.failures) + " failed");
  r.meta["cases"] = out.cases;
  r.meta["failures"] = out.failures;
  r.tables.push_back(std::move(summary));
  if (out.failures) r.tables.push_back(std::move(failures));
  judge_counts(out);
  return out;
}

}  // namespace warpfold::fuzz
