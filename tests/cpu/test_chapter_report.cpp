// `warpfold report`'s runner: each section's entry names its lesson and carries its tables as CSV.
#include "chapter/chapter_report.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

using namespace warpfold;

namespace {

report::Report one_table_report() {
  report::Report r;
  r.meta["device"] = "NVIDIA H200";
  r.meta["commit"] = "abc123";
  report::Table t;
  t.columns = {{"block", "block"}, {"median_ms", "ms", 3}};
  t.add_row({"32x16", 1.25});
  r.tables.push_back(t);
  return r;
}

}  // namespace

TEST(ChapterReport, EntriesNameTheirLessonAndCarryTheirCsv) {
  const std::vector<chapter::Section> sections{
      {"grid", "Grid", [] { return chapter::section_entry(one_table_report(), true, false); }, "grid", false},
      {"grid-profile", "Grid under ncu", [] { return chapter::skipped_entry("ncu not found"); }, "grid", true},
      {"broken", "Broken", []() -> nlohmann::json { throw std::runtime_error("boom"); }, "nested", false}};
  const nlohmann::json doc = chapter::run_sections(sections, [](const std::string&) {});
  const auto& lessons = doc["lessons"];
  ASSERT_EQ(lessons.size(), 3u);
  EXPECT_EQ(lessons[0]["lesson"], "grid");
  EXPECT_EQ(lessons[0]["profiled"], false);
  EXPECT_EQ(lessons[0]["status"], "ok");
  EXPECT_EQ(lessons[0]["csv"], "# device: NVIDIA H200\n# commit: abc123\nblock,median_ms\n32x16,1.25\n");
  EXPECT_EQ(lessons[1]["lesson"], "grid");
  EXPECT_EQ(lessons[1]["profiled"], true);
  EXPECT_EQ(lessons[1]["status"], "skipped");
  EXPECT_FALSE(lessons[1].contains("csv"));
  EXPECT_EQ(lessons[2]["status"], "failed");
  EXPECT_EQ(lessons[2]["lesson"], "nested");
}
