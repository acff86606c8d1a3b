#pragma once
// `warpfold bench --segmented` / `--axis`: the options that turn the bench to the segmented and
// axis reductions (bench/segmented_bench.hpp), registered beside the full reduce's.

#include "bench/segmented_bench.hpp"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>

namespace warpfold::cli {

struct SegmentedBenchCli {
  bool segmented = false;
  bool axis = false;
  uint64_t elements = uint64_t(1) << 26;
  const CLI::Option* elements_option = nullptr;  // set on registration: whether --elements was given
};

// Registers --segmented, --axis and --elements on `bench`, after its own options: the full
// reduce's axis, types, operators, --cold and --no-cpu are refused beside them.
void add_segmented_bench_options(CLI::App& bench, SegmentedBenchCli& o);

// The segmented bench's options where --segmented or --axis was given (the kinds and size given,
// the full bench's reps and seed), nullopt otherwise. Throws std::invalid_argument for --elements
// without either.
std::optional<bench::SegmentedBenchOptions> segmented_bench_request(const SegmentedBenchCli& o, int reps,
                                                                   std::optional<uint64_t> seed);

}  // namespace warpfold::cli
