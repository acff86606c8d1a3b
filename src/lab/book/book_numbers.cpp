#include "lab/book/book_numbers.hpp"

#include <stdexcept>

namespace warpfold::lab::book {

// The data file's text, generated from book_numbers.json at build time (src/CMakeLists.txt).
extern const char* const kBookNumbersJson;

namespace {

using nlohmann::json;

std::string required_string(const json& object, const char* field, const std::string& where) {
  if (!object.contains(field) || !object[field].is_string()) {
    throw std::runtime_error("book numbers: " + where + " has no string '" + field + "'");
  }
  return object[field].get<std::string>();
}

Run parse_run(const json& j, size_t index) {
  const std::string where = "run " + std::to_string(index);
  if (!j.is_object()) throw std::runtime_error("book numbers: " + where + " is not an object");
  Run run;
  run.id = required_string(j, "id", where);
  const std::string named = "run '" + run.id + "'";
  run.lesson = required_string(j, "lesson", named);
  run.seed = required_string(j, "seed", named);
  run.section = required_string(j, "section", named);
  run.where = required_string(j, "where", named);
  run.gpu = required_string(j, "gpu", named);
  run.config = j.value("config", "");
  if (!j.contains("rows") || !j["rows"].is_array()) throw std::runtime_error("book numbers: " + named + " has no rows");
  for (const json& row : j["rows"]) {
    if (!row.is_object() || !row.contains("key") || !row["key"].is_string()) {
      throw std::runtime_error("book numbers: " + named + " has a row without a string 'key'");
    }
    if (row.contains("ms") && !row["ms"].is_null() && !row["ms"].is_number()) {
      throw std::runtime_error("book numbers: " + named + ", row '" + row["key"].get<std::string>() +
                               "': ms is not a number");
    }
    run.rows.push_back(row);
  }
  return run;
}

const json* find_row(const Run& run, std::string_view key) {
  for (const json& row : run.rows) {
    if (row["key"] == key) return &row;
  }
  return nullptr;
}

}  // namespace

std::string Run::label() const { return gpu + ", seed " + seed + " (" + section + ")"; }

std::optional<double> Entry::ms() const {
  if (!row || !row->contains("ms") || !(*row)["ms"].is_number()) return std::nullopt;
  return (*row)["ms"].get<double>();
}

Numbers parse_numbers(std::string_view text) {
  const json doc = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw std::runtime_error("book numbers: not valid JSON");
  if (!doc.is_object() || !doc.contains("runs") || !doc["runs"].is_array()) {
    throw std::runtime_error("book numbers: no 'runs' array");
  }
  Numbers out;
  for (size_t i = 0; i < doc["runs"].size(); ++i) out.runs.push_back(parse_run(doc["runs"][i], i));
  return out;
}

const Numbers& numbers() {
  static const Numbers parsed = parse_numbers(kBookNumbersJson);
  return parsed;
}

std::optional<Entry> find_entry(const Numbers& numbers, std::string_view lesson, std::string_view key) {
  for (const Run& run : numbers.runs) {
    if (run.lesson != lesson) continue;
    if (const json* row = find_row(run, key)) return Entry{&run, row};
  }
  return std::nullopt;
}

std::optional<Entry> find_in_run(const Numbers& numbers, std::string_view run_id, std::string_view key) {
  for (const Run& run : numbers.runs) {
    if (run.id != run_id) continue;
    if (const json* row = find_row(run, key)) return Entry{&run, row};
  }
  return std::nullopt;
}

}  // namespace warpfold::lab::book
