#include "cli/count_parse.hpp"

#include <gtest/gtest.h>

using warpfold::cli::parse_count;

TEST(ParseCount, AcceptsTheWrittenForms) {
  EXPECT_EQ(parse_count("16777216"), 16777216u);
  EXPECT_EQ(parse_count("2^24"), 1u << 24);
  EXPECT_EQ(parse_count("2^20+7"), (1u << 20) + 7);
  EXPECT_EQ(parse_count("2^16-1"), 65535u);
  EXPECT_EQ(parse_count("1<<24"), 1u << 24);
  EXPECT_EQ(parse_count("2^0"), 1u);
  EXPECT_EQ(parse_count("0"), 0u);  // syntactically a count; commands reject it with their own message
  EXPECT_EQ(parse_count("2^63"), uint64_t(1) << 63);
}

TEST(ParseCount, RejectsEverythingElseWithTheReason) {
  for (const char* bad : {"", "abc", "-5", "2^", "3^4", "2^64", "2^24+", "1e6", "12x", "2^3-9", "99999999999999999999", " 5"}) {
    try {
      parse_count(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("not a valid count"), std::string::npos) << e.what();
    }
  }
}
