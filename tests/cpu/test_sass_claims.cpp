// Claims the docs make about the lab's machine code, checked on this binary's sm_90 SASS with
// cuobjdump (no GPU needed). Each test skips, saying why, where cuobjdump or the sm_90 code is
// absent; where they are present a compiler that changes what the docs explain fails here.
#include "cpu/sass_test_support.hpp"
#include "profile/sass_summary.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

using namespace warpfold::profile;
using warpfold::testing::sm90_sass;

namespace {

// The one sm_90 function answering the query (its name and variant name exactly one kernel).
#define WARPFOLD_SM90_FUNCTION(var, kernel, variant)                         \
  const auto var##_sass = sm90_sass({kernel, variant});                       \
  if (!var##_sass.missing.empty()) GTEST_SKIP() << var##_sass.missing;        \
  ASSERT_EQ(var##_sass.functions.size(), 1u) << kernel << " (" << variant << ")"; \
  const SassFunction& var = var##_sass.functions.front()

size_t count_opcode(const SassFunction& f, const std::string& stem) {
  return size_t(std::count_if(f.instructions.begin(), f.instructions.end(), [&](const SassInstruction& i) {
    return i.opcode == stem || i.opcode.rfind(stem + ".", 0) == 0;
  }));
}

// The opcodes in code order, padding left out: the code's shape, whatever its registers.
std::vector<std::string> opcodes(const SassFunction& f) {
  std::vector<std::string> out;
  for (const SassInstruction& i : f.instructions) {
    if (!is_padding(i)) out.push_back(i.opcode);
  }
  return out;
}

}  // namespace

// docs/execution-model.md, "Predication": at -O3 the book's divergence kernels have no branch;
// each `if` is a select on a predicate (FSEL), and the book's mathKernel4, whose condition is never
// true, stores a constant. The -G build keeps the branches, and the lab's maskKernel pair, whose
// sides are loops, keeps them at -O3 too: that is what makes its divergence measurable.
TEST(SassClaims, OptimisedDivergenceKernelsArePredicatedNotBranched) {
  for (const char* kernel : {"warmingup", "mathKernel1", "mathKernel2", "mathKernel3", "mathKernel4_fixed"}) {
    WARPFOLD_SM90_FUNCTION(f, kernel, "optimised");
    EXPECT_EQ(summarize(f).branches, 0u) << kernel;
    EXPECT_EQ(count_opcode(f, "FSEL"), 1u) << kernel;
  }
  WARPFOLD_SM90_FUNCTION(never, "mathKernel4", "optimised");
  EXPECT_EQ(summarize(never).branches, 0u);
  EXPECT_EQ(count_opcode(never, "FSEL"), 0u);
  EXPECT_EQ(count_opcode(never, "STG"), 1u);

  WARPFOLD_SM90_FUNCTION(debug, "mathKernel1", "device_debug");
  EXPECT_GT(summarize(debug).branches, 0u);
  WARPFOLD_SM90_FUNCTION(loops, "maskKernel<1>", "optimised");
  EXPECT_GT(summarize(loops).branches, 0u);
}

// docs/profile.md, "Why reduceInterleaved beats reduceNeighboredLess": the two book kernels compile
// to the same loop (two 32-bit loads and one store per step, one barrier, the same branches), so
// what separates them is their addresses; reduceNeighbored's `tid % (2 * stride)` is a division
// (MUFU.RCP and corrections) that reduceNeighboredLess's `2 * stride * tid` does not need.
TEST(SassClaims, NeighboredLessAndInterleavedCompileToTheSameLoop) {
  WARPFOLD_SM90_FUNCTION(less, "reduceNeighboredLess", "book");
  WARPFOLD_SM90_FUNCTION(interleaved, "reduceInterleaved", "book");
  WARPFOLD_SM90_FUNCTION(neighbored, "reduceNeighbored", "book");
  const SassSummary l = summarize(less), i = summarize(interleaved), n = summarize(neighbored);
  for (const SassSummary* s : {&l, &i}) {
    EXPECT_EQ(s->global_loads, (std::map<int, size_t>{{32, 3}}));
    EXPECT_EQ(s->global_stores, (std::map<int, size_t>{{32, 2}}));
    EXPECT_EQ(s->barriers, 1u);
    EXPECT_EQ(s->shuffles, 0u);
    EXPECT_EQ(s->shared_loads + s->shared_stores, 0u);  // the book's in-place work is in global memory
  }
  EXPECT_EQ(l.branches, i.branches);
  EXPECT_LE(std::abs(long(l.instructions) - long(i.instructions)), 4) << l.instructions << " against " << i.instructions;
  EXPECT_EQ(count_opcode(less, "MUFU"), 0u);
  EXPECT_EQ(count_opcode(interleaved, "MUFU"), 0u);
  EXPECT_EQ(count_opcode(neighbored, "MUFU"), 1u);  // the reciprocal of the unsigned division
  EXPECT_GE(n.instructions, l.instructions + 10);
}

// docs/unrolling.md: seed 001 says nvcc cannot unroll the kernels' loops, so that they must be
// unrolled by hand. The book's reduceUnrolling8 (eight loads written out) and the same kernel with
// a `#pragma unroll` loop compile to the same instructions, in the same order: eight loads in
// flight together, no loop left.
TEST(SassClaims, PragmaUnrollGivesTheManualUnrollsCode) {
  WARPFOLD_SM90_FUNCTION(manual, "reduceUnrolling8", "book");
  WARPFOLD_SM90_FUNCTION(pragma, "reduceUnrolling8Pragma", "book");
  EXPECT_EQ(opcodes(pragma), opcodes(manual));
  const SassSummary m = summarize(manual);
  EXPECT_EQ(m.global_loads, (std::map<int, size_t>{{32, 11}}));  // 8 for the unrolling, 3 for the fold
  EXPECT_EQ(summarize(pragma).branches, m.branches);
}

// docs/ladder.md, "Past the book": on sm_80 and up cg::reduce sums a warp's 32-bit integers with
// redux.sync, the instruction __reduce_add_sync names, so the two rungs are the same code: one
// REDUX per warp fold (the warps', then their totals'), no shuffle. CUB's BlockReduce uses it for
// its warps' step and sums the warp totals in one thread.
TEST(SassClaims, ModernRungsSumWarpsWithRedux) {
  WARPFOLD_SM90_FUNCTION(cg, "reduceCooperativeGroups", "fixed");
  WARPFOLD_SM90_FUNCTION(redux, "reduceReduxSync", "fixed");
  WARPFOLD_SM90_FUNCTION(cub, "reduceCubBlockReduce<512>", "fixed");
  EXPECT_EQ(opcodes(cg), opcodes(redux));
  for (const SassFunction* f : {&cg, &redux}) {
    const SassSummary s = summarize(*f);
    EXPECT_EQ(s.warp_reductions, 2u) << f->name;
    EXPECT_EQ(s.shuffles, 0u) << f->name;
    EXPECT_EQ(s.barriers, 1u) << f->name;
    EXPECT_EQ(s.global_loads, (std::map<int, size_t>{{32, 8}})) << f->name;  // eight tiles, read once
    EXPECT_EQ(s.global_stores, (std::map<int, size_t>{{32, 1}})) << f->name;  // the block's partial only
  }
  const SassSummary c = summarize(cub);
  EXPECT_EQ(c.warp_reductions, 1u);
  EXPECT_EQ(c.shuffles, 0u);
  EXPECT_EQ(c.global_stores, (std::map<int, size_t>{{32, 1}}));
}
