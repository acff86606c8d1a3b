#include "chapter/chapter_report.hpp"

#include "bench/bench_run.hpp"
#include "bench/segmented_bench.hpp"
#include "harness/device_info.hpp"
#include "lab/device_query/info_run.hpp"
#include "lab/divergence/divergence_run.hpp"
#include "lab/grid_shape/grid_run.hpp"
#include "lab/ladder/ladder_run.hpp"
#include "lab/nested/nested_run.hpp"
#include "report/table.hpp"

#include <warpfold/version.hpp>

#include <chrono>
#include <cmath>
#include <ctime>

#include "warpfold_commit.h"  // WARPFOLD_GIT_COMMIT, written at build time (cmake/commit_stamp.cmake)

namespace warpfold::chapter {
namespace {

using nlohmann::json;

// A lesson's outcome, whatever its command's outcome type.
template <class Outcome>
json entry(const Outcome& o, bool check_failed) {
  return lesson_entry(o.report, o.gpu_ran, check_failed);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace

json lesson_entry(const report::Report& r, bool gpu_ran, bool check_failed) {
  json e;
  e["gpu_ran"] = gpu_ran;
  e["check_failed"] = check_failed;
  e["report"] = json::parse(report::render(r, report::Format::json));
  e["markdown"] = report::render(r, report::Format::md);
  e["status"] = check_failed ? "wrong" : gpu_ran ? "ok" : "cpu-only";
  return e;
}

json skipped_entry(const std::string& reason) {
  return json{{"status", "skipped"}, {"error", reason}, {"gpu_ran", false}, {"check_failed", false},
              {"report", nullptr}, {"markdown", ""}};
}

std::vector<Lesson> chapter_lessons(const ChapterOptions& o) {
  const bool q = o.quick;
  return {
      {"info", "The device: query, occupancy and latency hiding",
       [] { return entry(lab::run_info(lab::InfoOptions{}), false); }},
      {"ladder", "The reduction ladder",
       [q] {
         lab::LadderOptions l;
         if (q) l.n = 1u << 20, l.reps = 5;
         const auto out = lab::run_ladder(l);
         return entry(out, out.reference_failed);
       }},
      {"sweep", "Block-size sweep of the ladder",
       [q] {
         lab::LadderOptions l;
         l.block_sweep = true;
         l.reps = q ? 3 : 10;
         if (q) l.n = 1u << 20;
         const auto out = lab::run_ladder(l);
         return entry(out, out.reference_failed);
       }},
      {"divergence", "Warp divergence",
       [q] {
         lab::DivergenceOptions d;
         if (q) d.n = 1u << 20, d.reps = 5;
         const auto out = lab::run_divergence(d);
         return entry(out, out.check_failed);
       }},
      {"grid", "Grid and block shapes",
       [q] {
         lab::GridOptions g;
         if (q) g.nx = g.ny = 2048, g.reps = 3;
         const auto out = lab::run_grid(g);
         return entry(out, out.check_failed);
       }},
      {"nested", "Nested launches (dynamic parallelism)",
       [q] {
         lab::NestedOptions n;
         if (q) n.n = 1u << 16, n.reps = 3;
         const auto out = lab::run_nested(n);
         return entry(out, out.check_failed);
       }},
      {"bench", "The production reduce vs CUB and Thrust",
       [q] {
         bench::BenchOptions b;
         if (q) b.reps = 5;  // else the bench default
         if (q) b.log2_min = 10, b.log2_max = 20, b.log2_step = 5;
         const auto out = bench::run_bench(b);
         return entry(out, out.check_failed);
       }},
      {"segmented", "Segmented and axis reductions vs CUB and the roofline probe",
       [q] {
         bench::SegmentedBenchOptions s;
         if (q) s.reps = 5, s.log2_elements = 20;
         const auto out = bench::run_segmented_bench(s);
         return entry(out, out.check_failed);
       }},
  };
}

json run_lessons(const std::vector<Lesson>& lessons, const std::function<void(const std::string&)>& progress) {
  json doc;
  doc["meta"] = {{"date", utc_now()}, {"commit", WARPFOLD_GIT_COMMIT}, {"warpfold", WARPFOLD_VERSION_STRING}};
  if (auto reason = harness::cuda_unavailable_reason()) {
    doc["meta"]["device"] = nullptr;
    doc["meta"]["no_device_reason"] = *reason;
  } else {
    const auto d = harness::query_device(0);
    doc["meta"]["device"] = d.name;
  }
  doc["lessons"] = json::array();
  for (size_t i = 0; i < lessons.size(); ++i) {
    const Lesson& l = lessons[i];
    const std::string step = "[" + std::to_string(i + 1) + "/" + std::to_string(lessons.size()) + "] " + l.key;
    progress(step + ": running");
    const auto t0 = std::chrono::steady_clock::now();
    json e;
    try {
      e = l.run();
    } catch (const std::exception& ex) {
      e = json{{"status", "failed"}, {"error", ex.what()}, {"gpu_ran", false}, {"check_failed", false},
               {"report", nullptr}, {"markdown", ""}};
    }
    e["key"] = l.key;
    e["title"] = l.title;
    e["seconds"] = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    progress(step + ": " + e["status"].get<std::string>() + " in " + report::format_number(std::round(e["seconds"].get<double>() * 10) / 10) + " s");
    doc["lessons"].push_back(std::move(e));
  }
  return doc;
}

}  // namespace warpfold::chapter
