#pragma once
// The book's measurements, as the seeds quote them: one data file (book_numbers.json), embedded at
// build time, read here. Each run is one program's output on one named GPU; each row one kernel,
// shape or property of it, keyed as the lesson's table names it.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::lab::book {

struct Run {
  std::string id;
  std::string lesson;  // the lesson whose table the rows belong to ("ladder", "grid", ...)
  std::string seed;    // "004": the seed the numbers are quoted from
  std::string section; // the seed's section ("3.4.3"), which tells two runs of one seed apart
  std::string where;   // the seed's section and program
  std::string gpu;     // the GPU the run measured
  std::string config;  // the run's size and launch shape
  std::vector<nlohmann::json> rows;  // objects with "key" and the figures ("ms", metrics)

  // "Tesla M2070, seed 004 (3.4.3)": how tables name the run.
  std::string label() const;
};

struct Numbers {
  std::vector<Run> runs;
};

// A row of a run, and the run it belongs to.
struct Entry {
  const Run* run = nullptr;
  const nlohmann::json* row = nullptr;
  std::optional<double> ms() const;  // nullopt where the run has no time (an invalid launch)
};

// Parses the data file's text; throws std::runtime_error naming what is missing or malformed.
Numbers parse_numbers(std::string_view text);

// The embedded data file, parsed once.
const Numbers& numbers();

// The first run of `lesson`, in the file's order, that holds `key`; nullopt where none does.
std::optional<Entry> find_entry(const Numbers& numbers, std::string_view lesson, std::string_view key);

// `key`'s row in the run `run_id`; nullopt where that run lacks it.
std::optional<Entry> find_in_run(const Numbers& numbers, std::string_view run_id, std::string_view key);

}  // namespace warpfold::lab::book
