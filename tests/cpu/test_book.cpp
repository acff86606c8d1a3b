// The book's numbers beside this GPU's: the data file, and the comparison of speedups and
// orderings that the lessons' tables show, on made-up tables.
#include "cpu/book_test_support.hpp"
#include "lab/book/book_compare.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using namespace warpfold::lab;
using namespace warpfold::lab::book;
using book_test::table_keys;
using nlohmann::json;
namespace report = warpfold::report;

namespace {

double ms(const std::string& lesson, const std::string& key) {
  const auto e = find_entry(numbers(), lesson, key);
  if (!e || !e->ms()) throw std::runtime_error("no time for " + key);
  return *e->ms();
}

const char* kSmallNumbers = R"({"runs": [
  {"id": "a", "section": "1", "lesson": "toy", "seed": "004", "where": "w", "gpu": "Old GPU",
   "rows": [{"key": "k0", "ms": 10}, {"key": "k1", "ms": 5}, {"key": "k2", "ms": 2}, {"key": "bad", "ms": null, "invalid": "invalid configuration"}]},
  {"id": "b", "section": "2", "lesson": "toy", "seed": "001", "where": "w", "gpu": "Other GPU",
   "rows": [{"key": "k3", "ms": 4}, {"key": "k4", "ms": 1}]}]})";

report::Table toy_table(std::vector<json> times) {
  report::Table t;
  t.title = "toy";
  t.columns = {{"kernel", "kernel"}, {"variant", "variant"}, {"median_ms", "median ms", 3}};
  const char* names[] = {"k0", "k1", "k2", "k3", "k4", "cpu row"};
  for (size_t i = 0; i < times.size(); ++i) t.add_row({names[i], i == 5 ? "cpu" : "book", times[i]});
  return t;
}

BookColumns toy_spec() { return {"toy", {"kernel", "variant", "book"}, "median_ms", "k0", "docs/toy.md", true, {}}; }

json column(const report::Table& t, size_t row, const std::string& key) {
  for (size_t c = 0; c < t.columns.size(); ++c) {
    if (t.columns[c].key == key) return t.rows[row][c];
  }
  throw std::runtime_error("no column " + key);
}

}  // namespace

TEST(BookNumbers, EveryRunNamesItsSeedGpuAndSection) {
  ASSERT_FALSE(numbers().runs.empty());
  for (const book::Run& r : numbers().runs) {
    EXPECT_EQ(r.seed.size(), 3u) << r.id;
    EXPECT_LE(r.seed, "004") << r.id << ": the seeds are 000 to 004";
    EXPECT_FALSE(r.gpu.empty()) << r.id;
    EXPECT_FALSE(r.section.empty()) << r.id;
    EXPECT_FALSE(r.rows.empty()) << r.id;
  }
}

// A key that no table prints would never show: every key is a row of its lesson's table.
TEST(BookNumbers, EveryKeyIsARowOfItsLessonsTable) {
  for (const book::Run& r : numbers().runs) {
    if (!lesson_book_columns(r.lesson)) continue;  // the device query: kept, shown by no table yet
    const auto keys = table_keys(r.lesson);
    for (const json& row : r.rows) EXPECT_EQ(keys.count(row["key"].get<std::string>()), 1u) << r.id << ": " << row["key"];
  }
}

TEST(BookNumbers, HoldsTheSeedsFigures) {
  EXPECT_DOUBLE_EQ(ms("ladder", "reduceNeighbored"), 11.722);  // the M2070 first, seed 004
  EXPECT_DOUBLE_EQ(ms("ladder", "reduceInterleaved"), 6.967);
  EXPECT_DOUBLE_EQ(ms("ladder", "reduceUnrollWarps8"), 1.009);  // only seed 001 has it
  EXPECT_EQ(find_entry(numbers(), "ladder", "reduceUnrollWarps8")->run->seed, "001");
  EXPECT_DOUBLE_EQ(ms("divergence", "mathKernel1"), 0.016);
  EXPECT_DOUBLE_EQ(ms("grid", "16x16"), 46);
  EXPECT_DOUBLE_EQ(ms("grid", "128x2"), 32.688);
  EXPECT_DOUBLE_EQ(ms("nested", "nested"), 172.036);
  EXPECT_EQ(find_entry(numbers(), "nested", "nested")->run->gpu, "Tesla K40c");
  EXPECT_FALSE(find_entry(numbers(), "grid", "256x8")->ms()) << "an invalid launch has no time";
  EXPECT_DOUBLE_EQ((*find_entry(numbers(), "grid", "32x32")->row)["achieved_occupancy_pct"].get<double>(), 50.1071);
}

TEST(BookNumbers, MalformedDataIsAClearError) {
  EXPECT_THROW(parse_numbers("{"), std::runtime_error);
  EXPECT_THROW(parse_numbers("{}"), std::runtime_error);
  EXPECT_THROW(parse_numbers(R"({"runs": [{"id": "x"}]})"), std::runtime_error);
  EXPECT_THROW(parse_numbers(R"({"runs": [{"id": "x", "section": "1", "lesson": "l", "seed": "000", "where": "w",
                                "gpu": "g", "rows": [{"ms": 1}]}]})"), std::runtime_error);
  EXPECT_THROW(parse_numbers(R"({"runs": [{"id": "x", "section": "1", "lesson": "l", "seed": "000", "where": "w",
                                "gpu": "g", "rows": [{"key": "k", "ms": "fast"}]}]})"), std::runtime_error);
  try {
    parse_numbers(R"({"runs": [{"id": "x", "lesson": "l"}]})");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("run 'x'"), std::string::npos) << e.what();
  }
}

TEST(BookCompare, OrderHasATieBand) {
  EXPECT_EQ(order(1.0, 2.0), Order::faster);
  EXPECT_EQ(order(2.0, 1.0), Order::slower);
  EXPECT_EQ(order(1.0, 1.02), Order::tie);
  EXPECT_EQ(order(1.02, 1.0), Order::tie);
  EXPECT_EQ(order(1.0, 1.05), Order::faster);
}

TEST(BookCompare, ReversalIsAgainstThePreviousRowOfTheSameRun) {
  using O = std::optional<double>;
  // rows: 0 and 1 agree, 2 reverses 1, 3 has no book figure, 4 ties with 2, 5 is another run.
  const std::vector<O> here{O(10), O(5), O(6), O(1), O(6.05), O(1)};
  const std::vector<O> book{O(10), O(5), O(2), std::nullopt, O(1), O(3)};
  const std::vector<std::string> run{"a", "a", "a", "", "a", "b"};
  const auto orders = ranking_orders(here, book, run);
  EXPECT_FALSE(orders[0].against);
  ASSERT_TRUE(orders[1].against);
  EXPECT_EQ(*orders[1].against, 0u);
  EXPECT_EQ(orders[1].agreement, Agreement::same);
  EXPECT_EQ(*orders[2].against, 1u);
  EXPECT_EQ(orders[2].agreement, Agreement::reversed);
  EXPECT_FALSE(orders[3].against);
  EXPECT_EQ(*orders[4].against, 2u);
  EXPECT_EQ(orders[4].agreement, Agreement::tie);
  EXPECT_FALSE(orders[5].against) << "the first row of run b has nothing of its run before it";
}

TEST(BookCompare, ColumnsGiveSpeedupsAndFlagReversals) {
  const Numbers n = parse_numbers(kSmallNumbers);
  // Here k2 (2.5 ms) is slower than k1 (2 ms); the book has it faster (2 ms against 5): reversed.
  report::Table t = toy_table({json(8.0), json(2.0), json(2.5), json(1.0), json(nullptr), json(0.1)});
  add_book_columns(t, n, toy_spec());
  EXPECT_DOUBLE_EQ(column(t, 0, "speedup").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(column(t, 1, "speedup").get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(column(t, 1, "book_ms").get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(column(t, 2, "book_speedup").get<double>(), 5.0);
  EXPECT_EQ(column(t, 1, "vs_book"), "same order as the book");
  const std::string flag = column(t, 2, "vs_book").get<std::string>();
  EXPECT_NE(flag.find("REVERSED against k1"), std::string::npos) << flag;
  EXPECT_NE(flag.find("docs/toy.md"), std::string::npos) << flag;
  EXPECT_EQ(column(t, 2, "book_gpu"), "Old GPU, seed 004 (1)");
  // Run b lacks k0: its speedups are relative to its own first timed row.
  EXPECT_DOUBLE_EQ(column(t, 3, "book_speedup").get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(column(t, 4, "book_speedup").get<double>(), 4.0);
  EXPECT_TRUE(column(t, 4, "speedup").is_null()) << "no time here, no speedup";
  EXPECT_TRUE(column(t, 5, "book_ms").is_null()) << "a CPU row is not the book's variant";
  EXPECT_TRUE(column(t, 5, "vs_book").is_null());
  for (const auto& row : t.rows) EXPECT_EQ(row.size(), t.columns.size());
}

TEST(BookCompare, AnInvalidLaunchInTheBookSaysSo) {
  const Numbers n = parse_numbers(kSmallNumbers);
  report::Table t;
  t.columns = {{"kernel", "kernel"}, {"variant", "variant"}, {"median_ms", "median ms"}};
  t.add_row({"bad", "book", 1.0});
  add_book_columns(t, n, toy_spec());
  EXPECT_TRUE(column(t, 0, "book_ms").is_null());
  EXPECT_EQ(column(t, 0, "vs_book"), "book: invalid configuration");
}

TEST(BookCompare, EveryLessonTableIsDeclaredOnce) {
  for (const char* lesson : {"ladder", "divergence", "grid", "nested"}) {
    const auto spec = lesson_book_columns(lesson);
    ASSERT_TRUE(spec) << lesson;
    EXPECT_EQ(spec->lesson, lesson);
    EXPECT_EQ(spec->doc.rfind("docs/", 0), 0u) << spec->doc;
    EXPECT_EQ(table_keys(lesson).count(spec->reference_key), 1u) << lesson << ": " << spec->reference_key;
  }
  EXPECT_FALSE(lesson_book_columns("bench"));
  report::Table t;
  EXPECT_THROW(add_lesson_book_columns(t, "bench"), std::logic_error);
}
