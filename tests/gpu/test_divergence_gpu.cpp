// Every divergence kernel, in both builds, against the CPU's model of its branch, over awkward
// sizes and block sizes; and the full command at the seed's configuration.
#include "gpu/gpu_test_support.hpp"

#include "harness/device_limits.hpp"
#include "lab/device_query/occupancy.hpp"
#include "lab/divergence/divergence_run.hpp"
#include "lab/divergence/divergence_workspace.hpp"

#include <cuda_runtime_api.h>

#include <cctype>
#include <ostream>
#include <string>

using namespace warpfold;
using namespace warpfold::lab::divergence;

namespace {

const uint64_t kSizes[] = {1, 31, 33, 1000, 4097, (1u << 20) + 5};
const unsigned kBlocks[] = {32, 64, 256, 1024};

struct KernelBuild {
  size_t kernel;
  Build build;
};

// A valid test name, letters, digits and single underscores: "maskKernel<0x01>" -G is maskKernel_0x01_G.
std::string label(const KernelBuild& kb) {
  std::string name;
  for (char ch : divergence_kernels().at(kb.kernel).entry_name()) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      name += ch;
    } else if (!name.empty() && name.back() != '_') {
      name += '_';
    }
  }
  if (name.back() != '_') name += '_';
  return name + (kb.build == Build::optimised ? "O3" : "G");
}

// Names the parameter in test listings (gtest would otherwise print the struct's raw bytes).
void PrintTo(const KernelBuild& kb, std::ostream* os) { *os << label(kb); }

std::vector<KernelBuild> all_kernel_builds() {
  std::vector<KernelBuild> out;
  for (size_t i = 0; i < divergence_kernels().size(); ++i) {
    out.push_back({i, Build::optimised});
    out.push_back({i, Build::device_debug});
  }
  return out;
}

class DivergenceKernelTest : public ::testing::TestWithParam<KernelBuild> {};

TEST_P(DivergenceKernelTest, EveryThreadWritesTheValueOfItsBranch) {
  WARPFOLD_REQUIRE_GPU();
  const DivergenceKernel& k = divergence_kernels().at(GetParam().kernel);
  const Build build = GetParam().build;
  const int warp = harness::query_device_limits(0).warp_size;
  cudaStream_t stream{};
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  for (uint64_t n : kSizes) {
    if (n > warpfold::testing::max_test_n()) continue;
    for (unsigned block : kBlocks) {
      const DivergenceWorkspace ws(n, block, stream);
      const OutputCheck c = ws.run_and_check(k, build, warp);
      EXPECT_TRUE(c.ok()) << "n = " << n << ", block " << block << ": " << c.verdict();
      EXPECT_EQ(c.checked, ws.threads());
    }
  }
  const uint64_t seed_n = 1024 * 10000;  // the seed's configuration, where the run's size cap allows it
  if (seed_n <= warpfold::testing::max_test_n()) {
    const DivergenceWorkspace seed(seed_n, 64, stream);
    EXPECT_EQ(seed.run_and_check(k, build, warp).verdict(), "ok");
  }
  EXPECT_EQ(cudaStreamDestroy(stream), cudaSuccess);
}

INSTANTIATE_TEST_SUITE_P(Divergence, DivergenceKernelTest, ::testing::ValuesIn(all_kernel_builds()),
                         [](const auto& info) { return label(info.param); });

TEST(DivergenceRunGpu, SeedConfigurationChecksAndTimesBothBuilds) {
  WARPFOLD_REQUIRE_GPU();
  WARPFOLD_REQUIRE_TEST_SIZE(1024 * 10000);
  lab::DivergenceOptions o;  // n = 1024 × 10000, block 64
  o.reps = 5;
  const auto out = lab::run_divergence(o);
  ASSERT_TRUE(out.gpu_ran);
  EXPECT_FALSE(out.check_failed);
  ASSERT_EQ(out.report.tables.size(), 2u);
  const auto& main = out.report.tables[0];
  ASSERT_EQ(main.rows.size(), divergence_kernels().size());
  for (const auto& row : main.rows) {
    for (size_t c = 3; c <= 8; ++c) EXPECT_TRUE(row[c].is_number()) << row[0] << " column " << c;
    EXPECT_GT(row[3].get<double>(), 0) << row[0];
    EXPECT_GT(row[6].get<double>(), 0) << row[0];
    EXPECT_EQ(row[9], "ok") << row[0];
    EXPECT_EQ(row[10], "ok") << row[0];
  }
  EXPECT_DOUBLE_EQ(main.rows[2][5].get<double>(), 1.0);  // mathKernel2 over itself
  const auto& pair = out.report.tables[1];
  ASSERT_EQ(pair.rows.size(), 2u);
  EXPECT_EQ(pair.rows[0][0], "-O3");
  EXPECT_EQ(pair.rows[1][0], "-G");
  for (const auto& row : pair.rows) EXPECT_GT(row[3].get<double>(), 0);
}

TEST(DivergenceRunGpu, BothBuildsAreLoadableKernels) {
  WARPFOLD_REQUIRE_GPU();
  for (const DivergenceKernel& k : divergence_kernels()) {
    for (Build b : {Build::optimised, Build::device_debug}) {
      const lab::KernelResources r = lab::kernel_resources(k.in(b).function);
      EXPECT_GT(r.registers_per_thread, 0) << k.name << " " << to_string(b);
      EXPECT_GE(r.max_threads_per_block, 1024) << k.name << " " << to_string(b);
    }
  }
}

}  // namespace
