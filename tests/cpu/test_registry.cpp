#include "lab/ladder/registry.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>

using namespace warpfold::lab;

namespace {
const LadderKernel& find(std::string_view name, Variant v) {
  for (const auto& k : ladder_kernels()) {
    if (k.name == name && k.variant == v) return k;
  }
  throw std::runtime_error("no kernel " + std::string(name));
}
}  // namespace

TEST(Registry, EveryBookKernelHasAFixedTwin) {
  const auto& all = ladder_kernels();
  ASSERT_EQ(all.size(), 22u);  // 11 steps (warm-up included), book and fixed
  std::set<std::string> book, fixed;
  for (const auto& k : all) {
    (k.variant == Variant::book ? book : fixed).insert(std::string(k.name));
    EXPECT_NE(k.launch, nullptr);
  }
  EXPECT_EQ(book, fixed);
  for (const char* name : {"warmup", "reduceNeighbored", "reduceNeighboredLess", "reduceInterleaved",
                           "reduceUnrolling2", "reduceUnrolling4", "reduceUnrolling8", "reduceUnrollWarps8",
                           "reduceCompleteUnrollWarps8", "reduceCompleteUnroll", "reduceUnrollWarps"}) {
    EXPECT_EQ(book.count(name), 1u) << name;
  }
  EXPECT_EQ(select_kernels(VariantSelection::book).size(), 11u);
  EXPECT_EQ(select_kernels(VariantSelection::fixed).size(), 11u);
  EXPECT_EQ(select_kernels(VariantSelection::all).size(), 22u);
}

TEST(Registry, BookGridRoundsDownLikeTheBook) {
  const auto& u8 = find("reduceUnrolling8", Variant::book);
  EXPECT_EQ(ladder_grid(u8, 1u << 24, 512), 4096u);  // 32768 / 8
  EXPECT_EQ(ladder_grid(u8, 33, 64), 0u);            // 1 / 8: nothing launched
  EXPECT_EQ(ladder_grid(find("reduceNeighbored", Variant::book), 33, 64), 1u);
}

TEST(Registry, FixedGridCoversEveryElement) {
  for (const auto* k : select_kernels(VariantSelection::fixed)) {
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
