// Every kernel of the ladder against the CPU sum, on fresh random data, over awkward sizes and
// every block size. Fixed kernels must be exact everywhere; book kernels exact where the book's
// assumptions hold, and reported WRONG where they plainly cannot hold (n smaller than a block).
#include "gpu/gpu_test_support.hpp"

#include "harness/random_data.hpp"
#include "lab/ladder/cpu_reduce.hpp"
#include "lab/ladder/ladder_run.hpp"
#include "lab/ladder/workspace.hpp"
#include "harness/run_context.hpp"

#include <cuda_runtime_api.h>

#include <string>

using namespace warpfold;

namespace {

const uint64_t kSizes[] = {1, 2, 31, 32, 33, 511, 512, 513, 4095, (1u << 20) + 7, 1u << 24};
const unsigned kBookBlocks[] = {64, 128, 256, 512, 1024};
const unsigned kFixedBlocks[] = {32, 64, 128, 256, 512, 1024};

std::string label(const lab::LadderKernel& k) { return std::string(k.name) + "_" + std::string(lab::to_string(k.variant)); }

// Parameterised by the kernel's index in the registry (printed as a number, named by label()).
class LadderKernelTest : public ::testing::TestWithParam<size_t> {};

TEST_P(LadderKernelTest, MatchesCpuSumOnRandomData) {
  WARPFOLD_REQUIRE_GPU();
  const lab::LadderKernel& k = lab::ladder_kernels().at(GetParam());
  cudaStream_t stream{};
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  int book_wrong = 0, book_exact = 0, sizes_run = 0;
  for (uint64_t n : kSizes) {
    if (n > warpfold::testing::max_test_n()) continue;
    ++sizes_run;
    const uint64_t seed = warpfold::testing::new_seed();
    // Values 1..255 (never 0) so that a dropped element always changes the sum.
    const auto data = harness::random_ints(n, seed, 1, 255);
    const lab::LadderWorkspace ws(data, lab::serial_sum(data.data(), n), stream);
    const bool fixed = k.variant == lab::Variant::fixed;
    for (unsigned block : fixed ? std::vector<unsigned>(std::begin(kFixedBlocks), std::end(kFixedBlocks))
                                : std::vector<unsigned>(std::begin(kBookBlocks), std::end(kBookBlocks))) {
      const lab::LadderCheck c = ws.run_and_check(k, block);
      const std::string where = "n = " + std::to_string(n) + ", block " + std::to_string(block) + ", seed " +
                                std::to_string(seed) + ": " + c.verdict();
      EXPECT_EQ(c.ok(), c.verdict() == "ok") << where;
      if (fixed || lab::book_assumptions_hold(k, n, block)) {
        EXPECT_TRUE(c.ok()) << where;
      } else if (n < block) {
        EXPECT_FALSE(c.ok()) << "the book kernel should be WRONG here: " << where;
      }
      if (!fixed) (c.ok() ? book_exact : book_wrong)++;
    }
  }
  if (sizes_run == 0) GTEST_SKIP() << "every size is above WARPFOLD_TEST_MAX_N";
  if (k.variant == lab::Variant::book) {
    RecordProperty("book_exact", book_exact);
    RecordProperty("book_wrong", book_wrong);
  }
  cudaStreamDestroy(stream);
}

INSTANTIATE_TEST_SUITE_P(Ladder, LadderKernelTest,
                         ::testing::Range(size_t(0), lab::ladder_kernels().size()),
                         [](const auto& info) { return label(lab::ladder_kernels().at(info.param)); });

TEST(LadderRunGpu, FullLadderHasNoReferenceFailureAndFlagsBookTails) {
  WARPFOLD_REQUIRE_GPU();
  lab::LadderOptions o;
  o.n = (1u << 20) + 7;  // not a multiple of any block × unroll: every book kernel drops or over-reads
  o.block = 256;
  o.reps = 3;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = lab::run_ladder(o);
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  const auto& t = out.report.tables.at(0);
  ASSERT_EQ(t.rows.size(), 2 + lab::ladder_kernels().size());
  int book_rows = 0;
  for (size_t i = 2; i < t.rows.size(); ++i) {
    const std::string check = t.rows[i][10];
    if (t.rows[i][1] == "fixed") EXPECT_EQ(check, "ok") << t.rows[i][0];
    if (t.rows[i][1] == "book") {
      ++book_rows;
      EXPECT_EQ(check.rfind("WRONG expected", 0), 0u) << "the book kernel should be WRONG here: " << t.rows[i][0];
    }
    EXPECT_TRUE(t.rows[i][4].is_number()) << t.rows[i][0];
  }
  EXPECT_GT(book_rows, 0);
}

TEST(LadderRunGpu, BookSizeIsExactForBookAndFixed) {
  WARPFOLD_REQUIRE_GPU();
  WARPFOLD_REQUIRE_TEST_SIZE(1u << 24);
  lab::LadderOptions o;  // n = 2^24, block 512: the book's own configuration
  o.reps = 2;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = lab::run_ladder(o);
  EXPECT_FALSE(out.check_failed);
  for (const auto& row : out.report.tables.at(0).rows) EXPECT_EQ(row[10], "ok") << row[0] << " " << row[1];
}

TEST(LadderRunGpu, BlockSweepFindsABestBlockForEveryFixedKernel) {
  WARPFOLD_REQUIRE_GPU();
  lab::LadderOptions o;
  o.n = 1u << 18;
  o.reps = 2;
  o.block_sweep = true;
  o.variants = lab::VariantSelection::fixed;
  o.seed = warpfold::testing::new_seed();  // replayable: WARPFOLD_TEST_SEED
  const auto out = lab::run_ladder(o);
  EXPECT_FALSE(out.check_failed);
  const auto& sweep = out.report.tables.at(1);
  const auto kernels = lab::select_kernels(lab::VariantSelection::fixed);
  ASSERT_EQ(sweep.rows.size(), kernels.size());
  for (size_t i = 0; i < kernels.size(); ++i) {
    const auto& row = sweep.rows[i];
    // A device-wide kernel picks its own launch: no best block, only a time.
    EXPECT_EQ(row[row.size() - 3].is_number(), !kernels[i]->device_wide) << row[0];  // best block
    EXPECT_TRUE(row[row.size() - 2].is_number()) << row[0];                          // best ms
    EXPECT_EQ(row.back(), "none") << row[0];                                          // wrong at
  }
}

TEST(RunContextGpu, DeviceMemoryShortfallIsAClearError) {
  WARPFOLD_REQUIRE_GPU();
  report::Report r;
  auto ctx = harness::RunContext::open(r);
  ASSERT_TRUE(ctx.has_device());
  try {
    ctx.require_device_memory(size_t(1) << 50, "n = 2^48");
    ADD_FAILURE() << "a petabyte fitted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("needs"), std::string::npos) << e.what();
  }
}

}  // namespace
