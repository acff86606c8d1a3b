// The four renderings of a report; CSV and JSON must parse back to the same values.
#include "report/table.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace warpfold::report;
using nlohmann::json;

namespace {

Report sample() {
  Report r;
  r.preamble = {"device: test"};
  r.meta["n"] = 1024;
  Table t;
  t.title = "ladder";
  t.columns = {{"kernel", "kernel"}, {"median_ms", "median ms", 3}, {"check", "check"}};
  t.add_row({"reduceNeighbored", 1.23456, "ok"});
  t.add_row({"with, comma", nullptr, "WRONG expected 5 got \"7\""});
  t.notes = {"a note"};
  r.tables.push_back(t);
  return r;
}

// Minimal RFC 4180 reader: enough to prove our CSV is well-formed.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1, std::vector<std::string>(1));
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        rows.back().back() += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        rows.back().back() += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().emplace_back();
    } else if (c == '\n') {
      rows.emplace_back(1);
    } else {
      rows.back().back() += c;
    }
  }
  if (rows.back().size() == 1 && rows.back()[0].empty()) rows.pop_back();
  return rows;
}

}  // namespace

TEST(TableWriters, CsvParsesBack) {
  const auto rows = parse_csv(render(sample(), Format::csv));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], (std::vector<std::string>{"kernel", "median_ms", "check"}));
  EXPECT_EQ(rows[1][0], "reduceNeighbored");
  EXPECT_DOUBLE_EQ(std::stod(rows[1][1]), 1.23456);
  EXPECT_EQ(rows[2][0], "with, comma");
  EXPECT_EQ(rows[2][1], "");
  EXPECT_EQ(rows[2][2], "WRONG expected 5 got \"7\"");
}

TEST(TableWriters, CsvStartsWithTheRunsMeta) {
  Report r = sample();
  r.meta["device"] = {{"name", "NVIDIA H200"}, {"sm_count", 132}};
  r.meta["date"] = "2026-11-22T00:45:30Z";
  r.meta["commit"] = "8a3c5f28ac7c";
  r.meta["seed"] = 42;
  const std::string csv = render(r, Format::csv);
  EXPECT_EQ(csv.rfind("# device: NVIDIA H200\n# date: 2026-11-22T00:45:30Z\n# commit: 8a3c5f28ac7c\n# seed: 42\n"
                      "kernel,median_ms,check\n", 0), 0u) << csv;
  r.meta["device"] = nullptr;
  r.meta["no_device_reason"] = "no CUDA-capable GPU found";
  EXPECT_EQ(render(r, Format::csv).rfind("# device: none (no CUDA-capable GPU found)\n", 0), 0u);
}

TEST(TableWriters, JsonParsesBack) {
  const json doc = json::parse(render(sample(), Format::json));
  EXPECT_EQ(doc["meta"]["n"], 1024);
  const auto& t = doc["tables"][0];
  EXPECT_EQ(t["title"], "ladder");
  EXPECT_EQ(t["rows"][0]["kernel"], "reduceNeighbored");
  EXPECT_DOUBLE_EQ(t["rows"][0]["median_ms"].get<double>(), 1.23456);
  EXPECT_TRUE(t["rows"][1]["median_ms"].is_null());
  EXPECT_EQ(t["notes"][0], "a note");
}

TEST(TableWriters, TextAndMarkdownShowRoundedValuesAndNotes) {
  const std::string text = render(sample(), Format::table);
  EXPECT_NE(text.find("device: test"), std::string::npos);
  EXPECT_NE(text.find("1.235"), std::string::npos);
  EXPECT_NE(text.find("a note"), std::string::npos);
  const std::string md = render(sample(), Format::md);
  EXPECT_NE(md.find("| kernel | median ms | check |"), std::string::npos);
  EXPECT_NE(md.find("| reduceNeighbored | 1.235 | ok |"), std::string::npos);
}

TEST(TableWriters, RowWithWrongCellCountIsALogicError) {
  Table t;
  t.columns = {{"a", "a"}};
  EXPECT_THROW(t.add_row({1, 2}), std::logic_error);
}

TEST(TableWriters, FormatNamesRoundTrip) {
  for (const auto& name : format_names()) EXPECT_TRUE(parse_format(name).has_value());
  EXPECT_FALSE(parse_format("xml").has_value());
}

TEST(WriteOutput, WritesWholeFileAndLeavesNoPartial) {
  const auto dir = std::filesystem::temp_directory_path() / ("warpfold_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "out.csv").string();
  write_output(path, "a,b\n1,2\n");
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(ss.str(), "a,b\n1,2\n");
  EXPECT_FALSE(std::filesystem::exists(path + ".partial"));
  EXPECT_THROW(write_output((dir / "missing" / "x.csv").string(), "x"), std::runtime_error);
  std::filesystem::remove_all(dir);
}
