// Reading cuobjdump's listings (real captures of this project's kernels, sm_90, cuobjdump 13.2) and
// summarising the machine code; with cuobjdump installed, the live path on this test binary, which
// holds the lab's kernels.
#include "cpu/profile_test_data.hpp"
#include "cpu/sass_test_support.hpp"
#include "harness/run_outcome.hpp"
#include "profile/profile_session.hpp"
#include "profile/sass_lookup.hpp"
#include "profile/sass_summary.hpp"
#include "profile/tool_locate.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

using namespace warpfold::profile;
using warpfold::harness::RunStopped;
using warpfold::harness::Stop;
using warpfold::testing::installed_cuobjdump;
using warpfold::testing::read_test_data;

namespace {

const SassFunction& by_name(const std::vector<SassFunction>& fs, const std::string& qualified_part) {
  for (const auto& f : fs) {
    if (f.name.find(qualified_part) != std::string::npos) return f;
  }
  throw std::runtime_error("no function " + qualified_part);
}

std::vector<std::string> listed() { return parse_function_list(read_test_data("sass/list_text_sm90.txt")); }

bool contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST(SassListing, FunctionListGivesMangledNames) {
  const auto names = listed();
  ASSERT_EQ(names.size(), 17u);
  EXPECT_EQ(names[0], "_ZN8warpfold3lab4book20reduceCompleteUnrollILj64EEEvPiS3_j");
  // The -G build's objects carry their file's name before the '-', not "x".
  EXPECT_TRUE(contains(names, "_ZN8warpfold3lab10divergence12device_debug11mathKernel1EPf"));
}

TEST(SassListing, DumpGivesEachFunctionsInstructions) {
  const auto fs = parse_sass_dump(read_test_data("sass/unroll_warps8_sm90.sass"));
  ASSERT_EQ(fs.size(), 2u);
  const SassFunction& book = by_name(fs, "book::reduceUnrollWarps8");
  EXPECT_EQ(book.arch, "sm_90");
  EXPECT_EQ(book.mangled, "_ZN8warpfold3lab4book18reduceUnrollWarps8EPiS2_j");
  ASSERT_FALSE(book.instructions.empty());
  EXPECT_EQ(book.instructions[0].address, 0u);
  EXPECT_EQ(book.instructions[0].opcode, "LDC");
  const auto guarded = std::find_if(book.instructions.begin(), book.instructions.end(),
                                    [](const SassInstruction& i) { return !i.guard.empty(); });
  ASSERT_NE(guarded, book.instructions.end());
  EXPECT_EQ(guarded->text.substr(0, guarded->guard.size()), guarded->guard);
  EXPECT_TRUE(is_padding(book.instructions.back()));  // NOP after the final self-branch
}

TEST(SassSummary, TheBookWarpUnrollIsVolatileGlobalTheFixedOneShuffles) {
  const auto fs = parse_sass_dump(read_test_data("sass/unroll_warps8_sm90.sass"));
  const SassSummary book = summarize(by_name(fs, "book::reduceUnrollWarps8"));
  EXPECT_EQ(book.instructions, 98u);
  EXPECT_EQ(book.global_loads.at(32), 23u);
  EXPECT_EQ(book.global_stores.at(32), 9u);
  EXPECT_EQ(book.strong_global, 18u);  // 6 steps × (2 loads + 1 store), each `volatile`
  EXPECT_EQ(book.barriers, 2u);
  EXPECT_EQ(book.shuffles, 0u);
  const SassSummary fixed = summarize(by_name(fs, "fixed::reduceUnrollWarps<8u>"));
  EXPECT_EQ(fixed.shuffles, 5u);  // 16, 8, 4, 2, 1
  EXPECT_EQ(fixed.strong_global, 0u);
  EXPECT_EQ(fixed.barriers, 2u);
  EXPECT_GT(fixed.predicated, book.predicated);  // the tail bounds become predicates
}

TEST(SassSummary, AccessWidthsFromTheOpcode) {
  EXPECT_EQ(access_width_bits("LDG.E"), 32);
  EXPECT_EQ(access_width_bits("LDG.E.64"), 64);
  EXPECT_EQ(access_width_bits("LDG.E.128.CONSTANT"), 128);
  EXPECT_EQ(access_width_bits("LDG.E.U8"), 8);
  EXPECT_EQ(access_width_bits("STG.E.S16"), 16);
  EXPECT_EQ(access_width_bits("LDG.E.LTC128B"), 32);  // a cache hint, not a width
  EXPECT_EQ(describe_widths({{32, 9}, {128, 2}}), "9 × 32-bit, 2 × 128-bit");
  EXPECT_EQ(describe_widths({}), "-");
}

TEST(SassLookup, NamesFindKernelsInEveryForm) {
  const auto names = listed();
  auto find = [&](const std::string& q, const std::string& variant = "all") {
    return matching_kernels(names, {q, variant});
  };
  EXPECT_EQ(find("reduceInterleaved").size(), 2u);  // book and fixed
  EXPECT_EQ(find("reduceInterleaved", "book"), std::vector<std::string>{"_ZN8warpfold3lab4book17reduceInterleavedEPiS2_j"});
  EXPECT_EQ(find("fixed::reduceInterleaved").size(), 1u);
  EXPECT_EQ(find("reduceCompleteUnroll<512>").size(), 2u);   // book<512u> and fixed<512u>
  EXPECT_EQ(find("reduceCompleteUnroll").size(), 3u);        // every instantiation listed
  EXPECT_EQ(find("reduceUnrollWarps8"),                      // the book's name, and the fixed template
            (std::vector<std::string>{"_ZN8warpfold3lab4book18reduceUnrollWarps8EPiS2_j",
                                      "_ZN8warpfold3lab5fixed17reduceUnrollWarpsILj8EEEvPiS3_y"}));
  EXPECT_EQ(find("_ZN8warpfold3lab4book17reduceInterleavedEPiS2_j").size(), 1u);
  EXPECT_EQ(find("mathKernel1").size(), 2u);                 // -O3 and -G builds
  EXPECT_TRUE(find("reduceInterleave").empty());
  EXPECT_TRUE(find("").empty());
  EXPECT_FALSE(similar_kernels(names, "reduceinterleave").empty());
}

// warpfold::reduce's int32-sum kernel before and after its first tile was peeled and its register
// budget set: ptxas went from issuing each tile's loads two, one and one to all four together.
TEST(SassSummary, WideLoadBatchesShowWhetherATilesLoadsGoOutTogether) {
  const auto fs = parse_sass_dump(read_test_data("sass/reduce_int32_sum_tile_loads_sm90.sass"));
  ASSERT_EQ(fs.size(), 2u);
  EXPECT_EQ(wide_load_batches(fs[0]), (std::vector<unsigned>{2, 1, 1, 2, 1, 1, 4}));
  EXPECT_EQ(wide_load_batches(fs[1]), (std::vector<unsigned>{4, 4, 4, 4}));
  EXPECT_TRUE(wide_load_batches(by_name(parse_sass_dump(read_test_data("sass/unroll_warps8_sm90.sass")),
                                        "book::reduceUnrollWarps8"))
                  .empty());  // 32-bit loads only
}

// Live: the reduce kernels this binary holds for int, float and double sums and maxima (the
// bench's, the fuzz's) issue each tile's loads together: the narrow kernels (4 vectors per
// thread) four at a time, the wide kernels (8) eight, in the full first tile, the loop and the
// partial tile alike. A block with a single tile waits for one round trip, not two or three.
// A compiler that splits them again fails here, not only in timings. The bulk kernels (wide
// tiles whose full ones come by bulk copies) load only their partial tile from global memory:
// eight at a time too.
TEST(SassLookup, ReduceKernelsIssueEachTilesLoadsTogetherWhenCuobjdumpIsInstalled) {
  const auto [cuobjdump, missing] = installed_cuobjdump();
  if (cuobjdump.empty()) GTEST_SKIP() << "cuobjdump not installed, live SASS test not run: " << missing;
  const auto fs = load_sass(cuobjdump, self_executable(), {"single_pass", "all"});
  size_t narrow = 0, wide = 0, bulk = 0;
  for (const char* type : {"int", "float", "double"}) {
    for (const char* op : {"plus", "maximum"}) {
      const std::string prefix = std::string("single_pass<warpfold::detail::reduce_params<") + type + ", " + type +
                                 ", " + type + ", warpfold::" + op + ",";
      for (const auto& f : fs) {
        if (f.name.find(prefix) == std::string::npos) continue;
        const auto batches = wide_load_batches(f);
        ASSERT_FALSE(batches.empty()) << f.name;
        // The kernel kind is the last template argument: detail::kernel_kind's narrow, wide, bulk.
        const bool is_bulk = f.name.find("(warpfold::detail::kernel_kind)2>") != std::string::npos;
        const bool is_wide = f.name.find("(warpfold::detail::kernel_kind)1>") != std::string::npos;
        if (!is_wide && !is_bulk) EXPECT_NE(f.name.find("(warpfold::detail::kernel_kind)0>"), std::string::npos) << f.name;
        for (unsigned batch : batches) EXPECT_EQ(batch, is_wide || is_bulk ? 8u : 4u) << f.name;
        ++(is_bulk ? bulk : is_wide ? wide : narrow);
      }
    }
  }
  EXPECT_GE(narrow, 6u);
  EXPECT_GE(wide, 6u);
  EXPECT_GE(bulk, 6u);
}

TEST(SassLookup, LiveOnThisBinaryWhenCuobjdumpIsInstalled) {
  const auto [cuobjdump, missing] = installed_cuobjdump();
  if (cuobjdump.empty()) GTEST_SKIP() << "cuobjdump not installed, live SASS test not run: " << missing;
  const std::string self = self_executable();
  const auto fs = load_sass(cuobjdump, self, {"reduceInterleaved", "all"});
  ASSERT_EQ(fs.size(), 2u);
  for (const auto& f : fs) {
    const SassSummary s = summarize(f);
    EXPECT_GT(s.global_loads.at(32), 0u) << f.name;
    EXPECT_EQ(s.barriers, 1u) << f.name;
  }
  try {
    load_sass(cuobjdump, self, {"noSuchKernel", "all"});
    FAIL() << "expected a RunStopped";
  } catch (const RunStopped& f) {
    EXPECT_EQ(f.kind(), Stop::bad_request);
  }
}
