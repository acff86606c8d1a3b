#pragma once
// Tables of results and their four renderings: an aligned terminal table, CSV, JSON and Markdown.
// Every command builds a Report and hands it here, so all commands share one output contract.

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpfold::report {

enum class Format { table, csv, json, md };

std::optional<Format> parse_format(std::string_view name);
const std::vector<std::string>& format_names();

struct Column {
  std::string key;      // JSON key and CSV header
  std::string header;   // terminal and Markdown header
  int precision = -1;   // digits after the point for floating-point cells; -1: as printed by JSON
};

struct Table {
  std::string title;
  std::vector<Column> columns;
  std::vector<std::vector<nlohmann::json>> rows;  // one cell per column; null prints as "-"
  std::vector<std::string> notes;                 // sentences printed under the table

  // Appends a row; throws std::logic_error if the cell count differs from the column count.
  void add_row(std::vector<nlohmann::json> cells);
};

struct Report {
  std::vector<std::string> preamble;  // lines printed above the tables (device, options)
  nlohmann::json meta = nlohmann::json::object();  // the same facts, machine-readable
  std::vector<Table> tables;
};

// CSV starts with comment lines ("# device: NVIDIA H200") for the meta fields that trace a
// number to its run (device, date, commit, version, seed) where the report has them.
std::string render(const Report& report, Format format);

// A table as the JSON rendering holds it: {"title", "columns" (keys), "rows" (objects), "notes"}.
nlohmann::json to_json(const Table& table);

// A number as a person writes it: no trailing zeros ("1", "2.5", "0.125").
std::string format_number(double value);

// Writes `text` to stdout when `path` is empty. A new file, or a regular file with one name, is
// written through a uniquely named temporary file beside it and renamed on success, so a failed run
// never leaves a partial file that looks complete. Anything else (a symlink, FIFO or device such as
// /dev/stdout) is written in place, so it stays what it is. Throws on I/O errors.
void write_output(const std::string& path, const std::string& text);

// Why write_output(path, ...) would fail (not a file name, missing or unwritable directory, a file
// that may not be written), or nullopt: for checking an output path before any work is done.
// Creates and removes a temporary file beside `path` where the output would be renamed into place.
std::optional<std::string> output_problem(const std::string& path);

}  // namespace warpfold::report
