#include "lab/ladder/registry.hpp"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace warpfold::lab;

namespace {
const LadderKernel& find(std::string_view name, Variant v) {
  for (const auto& k : ladder_kernels()) {
    if (k.name == name && k.variant == v) return k;
  }
  throw std::runtime_error("no kernel " + std::string(name));
}
}  // namespace

// Each step is one entry: its kernels launch and have an entry point (but the library's, chosen by
// size), every book kernel has a fixed twin but the experiment on one, the book's eleven steps
// (warm-up included) are all there, and the steps past the book follow them, fixed only.
TEST(Registry, EveryBookKernelHasAFixedTwin) {
  const auto& all = ladder_kernels();
  std::set<std::string> book, fixed;
  for (const auto& k : all) {
    EXPECT_TRUE((k.variant == Variant::book ? book : fixed).insert(std::string(k.name)).second) << k.name << " twice";
    EXPECT_NE(k.launch, nullptr) << k.name;
    EXPECT_EQ(k.function == nullptr, k.device_wide) << k.name;
    EXPECT_FALSE(k.function_name.empty()) << k.name;
  }
  const std::set<std::string> book_only = {"reduceUnrolling8Pragma"};
  for (const std::string& name : book) EXPECT_EQ(fixed.count(name), book_only.count(name) ? 0u : 1u) << name;
  for (const char* name : {"warmup", "reduceNeighbored", "reduceNeighboredLess", "reduceInterleaved",
                           "reduceUnrolling2", "reduceUnrolling4", "reduceUnrolling8", "reduceUnrollWarps8",
                           "reduceCompleteUnrollWarps8", "reduceCompleteUnroll", "reduceUnrollWarps"}) {
    EXPECT_EQ(book.count(name), 1u) << name;
  }
  const std::vector<std::string> past_the_book = {"reduceCooperativeGroups", "reduceReduxSync", "reduceCubBlockReduce",
                                                  "reduceWarpfold"};
  ASSERT_GE(all.size(), past_the_book.size());
  for (size_t i = 0; i < past_the_book.size(); ++i) {
    const LadderKernel& k = all[all.size() - past_the_book.size() + i];
    EXPECT_EQ(k.name, past_the_book[i]);
    EXPECT_EQ(k.variant, Variant::fixed) << k.name;
    EXPECT_EQ(book.count(past_the_book[i]), 0u) << k.name;
  }
  EXPECT_EQ(select_kernels(VariantSelection::book).size(), book.size());
  EXPECT_EQ(select_kernels(VariantSelection::fixed).size(), fixed.size());
  EXPECT_EQ(select_kernels(VariantSelection::all).size(), all.size());
  // The template launched per block size names the instance whose entry point it gives.
  EXPECT_EQ(find_ladder_kernel("reduceCompleteUnroll", Variant::book).function_name, "reduceCompleteUnroll<512>");
  EXPECT_EQ(find_ladder_kernel("reduceCubBlockReduce", Variant::fixed).function_name, "reduceCubBlockReduce<512>");
  EXPECT_EQ(find_ladder_kernel("reduceInterleaved", Variant::fixed).function_name, "reduceInterleaved");
  // The library's rung names the kernel ncu reports for it.
  EXPECT_EQ(find_ladder_kernel("reduceWarpfold", Variant::fixed).function_name, "single_pass");
}

TEST(Registry, BookGridRoundsDownLikeTheBook) {
  const auto& u8 = find("reduceUnrolling8", Variant::book);
  EXPECT_EQ(ladder_grid(u8, 1u << 24, 512), 4096u);  // 32768 / 8
  EXPECT_EQ(ladder_grid(u8, 33, 64), 0u);            // 1 / 8: nothing launched
  EXPECT_EQ(ladder_grid(find("reduceNeighbored", Variant::book), 33, 64), 1u);
}

TEST(Registry, FixedGridCoversEveryElement) {
  for (const auto* k : select_kernels(VariantSelection::fixed)) {
    if (k->device_wide) continue;  // DeviceWideKernelsLeaveOnePartial
    for (uint64_t n : {1ull, 31ull, 33ull, 4095ull, (1ull << 20) + 7}) {
      for (unsigned b : {32u, 64u, 1024u}) {
        const uint64_t grid = ladder_grid(*k, n, b);
        EXPECT_GE(grid * b * k->unroll, n);
        EXPECT_LT((grid - 1) * b * k->unroll, n);  // and no block is idle
      }
    }
  }
}

TEST(Registry, BookAssumptions) {
  const auto& w8 = find("reduceUnrollWarps8", Variant::book);
  EXPECT_TRUE(book_assumptions_hold(w8, 1u << 24, 512));
  EXPECT_FALSE(book_assumptions_hold(w8, (1u << 24) + 1, 512));
  EXPECT_FALSE(book_assumptions_hold(w8, 4096, 32));  // the warp step reads 32 past a 32-thread block
  EXPECT_TRUE(book_assumptions_hold(find("reduceInterleaved", Variant::book), 512, 512));
  EXPECT_FALSE(book_assumptions_hold(find("reduceInterleaved", Variant::book), 513, 512));
  EXPECT_TRUE(book_assumptions_hold(find("reduceInterleaved", Variant::fixed), 513, 512));
}

TEST(Registry, DeviceWideKernelsLeaveOnePartial) {
  const auto& library = find("reduceWarpfold", Variant::fixed);
  EXPECT_TRUE(library.device_wide);
  for (uint64_t n : {1ull, 4095ull, 1ull << 24, 0xffffffffull}) {
    for (unsigned b : {32u, 512u, 1024u}) EXPECT_EQ(ladder_grid(library, n, b), 1u) << n << " " << b;
  }
  EXPECT_FALSE(find("reduceCubBlockReduce", Variant::fixed).device_wide);
}
