#include "lab/ladder/registry.hpp"

#include <iterator>
#include <stdexcept>
#include <string>

namespace warpfold::lab {

std::string_view to_string(Variant v) { return v == Variant::book ? "book" : "fixed"; }

unsigned ladder_grid(const LadderKernel& k, uint64_t n, unsigned block) {
  if (k.variant == Variant::book) return static_cast<unsigned>((n + block - 1) / block / k.unroll);
  const uint64_t tile = uint64_t(block) * k.unroll;
  return static_cast<unsigned>((n + tile - 1) / tile);
}

bool book_assumptions_hold(const LadderKernel& k, uint64_t n, unsigned block) {
  if (k.variant == Variant::fixed) return true;
  if (k.warp_unrolled && block < 64) return false;
  return n % (uint64_t(block) * k.unroll) == 0;
}

namespace {

struct LadderStep {
  std::string_view name;
  unsigned unroll;
  bool warp_unrolled;
  std::string_view lesson;
};

// The steps of the ladder, in the order the book climbs it.
constexpr LadderStep kSteps[] = {
    {"warmup", 1, false, "warm-up (reduceNeighbored's code)"},
    {"reduceNeighbored", 1, false, "divergence: neighbored pairs"},
    {"reduceNeighboredLess", 1, false, "divergence: busy threads first"},
    {"reduceInterleaved", 1, false, "divergence: interleaved pairs"},
    {"reduceUnrolling2", 2, false, "unrolling: 2 tiles per block"},
    {"reduceUnrolling4", 4, false, "unrolling: 4 tiles per block"},
    {"reduceUnrolling8", 8, false, "unrolling: 8 tiles per block"},
    {"reduceUnrollWarps8", 8, true, "unrolling: last warp unrolled"},
    {"reduceCompleteUnrollWarps8", 8, true, "unrolling: complete unroll"},
    {"reduceCompleteUnroll", 8, true, "templates: block size at compile time"},
    {"reduceUnrollWarps", 2, true, "unrolling: 2 tiles + last warp"},
};

}  // namespace

const std::vector<LadderKernel>& ladder_kernels() {
  static const std::vector<LadderKernel> all = [] {
    const auto book = book_ladder_launches();
    const auto fixed = fixed_ladder_launches();
    constexpr size_t steps = std::size(kSteps);
    if (book.size() != steps || fixed.size() != steps) {
      throw std::logic_error("every step of the ladder needs one book and one fixed kernel");
    }
    std::vector<LadderKernel> merged;
    for (size_t i = 0; i < steps; ++i) {
      const LadderStep& s = kSteps[i];
      merged.push_back({s.name, Variant::book, s.unroll, s.warp_unrolled, s.lesson, book[i]});
      merged.push_back({s.name, Variant::fixed, s.unroll, s.warp_unrolled, s.lesson, fixed[i]});
    }
    return merged;
  }();
  return all;
}

std::vector<const LadderKernel*> select_kernels(VariantSelection selection) {
  std::vector<const LadderKernel*> out;
  for (const auto& k : ladder_kernels()) {
    if (selection == VariantSelection::all ||
        (selection == VariantSelection::book) == (k.variant == Variant::book)) {
      out.push_back(&k);
    }
  }
  return out;
}

const LadderKernel& find_ladder_kernel(std::string_view name, Variant variant) {
  for (const LadderKernel& k : ladder_kernels()) {
    if (k.name == name && k.variant == variant) return k;
  }
  throw std::logic_error("the ladder registry has no " + std::string(name) + " (" + std::string(to_string(variant)) + ")");
}

}  // namespace warpfold::lab
