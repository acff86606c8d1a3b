// The lessons' one declaration (cli/lessons.cpp): every list that derives from it holds together.
// A report section is a command line, parsed here as the user's would be, so none can rot.
#include "cli/lesson.hpp"
#include "cpu/cli_test_support.hpp"
#include "lab/book/book_claims.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace warpfold;

TEST(Lessons, NamesAndReportKeysAreUnique) {
  std::set<std::string> names, keys;
  for (const cli::Lesson& l : cli::lessons()) {
    EXPECT_TRUE(names.insert(l.name).second) << l.name;
    EXPECT_FALSE(l.sections.empty()) << l.name << " has no section in the report";
    for (const cli::ReportSection& s : l.sections) EXPECT_TRUE(keys.insert(s.key).second) << s.key;
  }
  EXPECT_EQ(cli::find_lesson("ladder").name, "ladder");
  EXPECT_THROW(cli::find_lesson("no-such-lesson"), std::logic_error);
}

TEST(Lessons, EveryReportSectionParsesAsItsLessonsCommandLine) {
  for (const cli::Lesson& l : cli::lessons()) {
    for (const cli::ReportSection& s : l.sections) {
      EXPECT_EQ(warpfold::testing::parse_lesson_error(l.name, s.args), "") << s.key;
      EXPECT_EQ(warpfold::testing::parse_lesson_error(l.name, s.quick_args), "") << s.key << " (quick)";
      if (s.profiled) EXPECT_TRUE(l.has_profile_pass) << s.key << ": a profiled section needs a profile pass";
    }
  }
}

// A lesson with a profile pass takes the hidden --profile-pass and gives a profile; one without
// takes neither.
TEST(Lessons, TheProfilePassComesWithTheLesson) {
  for (const cli::Lesson& l : cli::lessons()) {
    CLI::App app;
    const cli::LessonCommand c = l.add(app);
    EXPECT_EQ(c.app->get_name(), l.name);
    EXPECT_EQ(bool(c.profile), l.has_profile_pass) << l.name;
    EXPECT_EQ(c.app->get_option_no_throw("--profile-pass") != nullptr, l.has_profile_pass) << l.name;
    EXPECT_NE(c.app->get_option_no_throw("--format"), nullptr) << l.name;
  }
}

// The report shows the grid's and divergence's profiler metrics in their sections: each lesson
// has a profiled section beside its plain one.
TEST(Lessons, GridAndDivergenceAreProfiledInTheReport) {
  for (const char* name : {"grid", "divergence"}) {
    bool plain = false, profiled = false;
    for (const cli::ReportSection& s : cli::find_lesson(name).sections) (s.profiled ? profiled : plain) = true;
    EXPECT_TRUE(plain && profiled) << name;
  }
}

// A claim judged on a profiled section's achieved occupancy names a profiled section of its lesson.
TEST(Lessons, EveryClaimsProfiledSectionIsItsLessons) {
  for (const lab::book::Claim& c : lab::book::chapter_claims()) {
    if (c.profiled_section.empty()) continue;
    bool found = false;
    for (const cli::ReportSection& s : cli::find_lesson(c.section).sections) found |= s.profiled && s.key == c.profiled_section;
    EXPECT_TRUE(found) << c.text << ": " << c.profiled_section;
  }
}
