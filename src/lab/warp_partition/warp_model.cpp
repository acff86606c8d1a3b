#include "lab/warp_partition/warp_model.hpp"

#include <algorithm>
#include <bitset>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace warpfold::lab {
namespace {

uint32_t low_lanes(unsigned count) { return count >= kWarpSize ? 0xffffffffu : (1u << count) - 1; }

[[noreturn]] void contradiction(uint32_t block_index, const std::string& what) {
  throw std::runtime_error("the records of block " + std::to_string(block_index) + " are not one warp per ticket: " +
                           what);
}

}  // namespace

std::string mask_text(uint32_t mask) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", mask);
  return buf;
}

unsigned WarpSlice::lanes() const { return unsigned(std::bitset<32>(mask).count()); }

std::vector<WarpSlice> model_warps(BlockShape block) {
  const unsigned threads = unsigned(block.threads());
  std::vector<WarpSlice> warps;
  for (unsigned first = 0; first < threads; first += kWarpSize) {
    const unsigned last = std::min(first + kWarpSize, threads) - 1;
    warps.push_back({first, last, low_lanes(last - first + 1)});
  }
  return warps;
}

WarpBudget warp_budget(BlockShape block) {
  WarpBudget b;
  b.warps = unsigned((block.threads() + kWarpSize - 1) / kWarpSize);
  b.lanes = b.warps * kWarpSize;
  b.idle_lanes = b.lanes - unsigned(block.threads());
  return b;
}

std::string thread_label(BlockShape block, unsigned linear) {
  return "(" + std::to_string(linear % block.x) + "," + std::to_string(linear / block.x) + ")";
}

std::vector<WarpSlice> measured_warps(const std::vector<LaneRecord>& records, uint32_t block_index, BlockShape block) {
  std::map<uint32_t, std::vector<const LaneRecord*>> by_ticket;
  std::vector<int> seen(block.threads(), 0);
  for (const LaneRecord& r : records) {
    if (r.block != block_index) continue;
    if (r.x >= block.x || r.y >= block.y) contradiction(block_index, "a thread outside the block");
    ++seen[r.y * block.x + r.x];
    by_ticket[r.ticket].push_back(&r);
  }
  for (size_t i = 0; i < seen.size(); ++i) {
    if (seen[i] != 1) contradiction(block_index, "thread " + thread_label(block, unsigned(i)) + " recorded " +
                                                     std::to_string(seen[i]) + " times");
  }
  std::vector<WarpSlice> warps;
  for (auto& [ticket, group] : by_ticket) {
    const auto linear = [&](const LaneRecord* r) { return r->y * block.x + r->x; };
    std::sort(group.begin(), group.end(), [&](auto* a, auto* b) { return linear(a) < linear(b); });
    WarpSlice w{linear(group.front()), linear(group.back()), group.front()->mask};
    if (w.last - w.first + 1 != group.size()) contradiction(block_index, "a warp's threads are not consecutive");
    for (size_t i = 0; i < group.size(); ++i) {
      if (group[i]->mask != w.mask) contradiction(block_index, "one warp, two masks");
      if (group[i]->lane != group.front()->lane + i) contradiction(block_index, "lanes not in the threads' order");
      if (group[i]->lane >= kWarpSize || !(w.mask >> group[i]->lane & 1u)) {
        contradiction(block_index, "a lane outside its warp's mask");
      }
    }
    if (w.lanes() != group.size()) contradiction(block_index, "a mask with more lanes than its warp's threads");
    warps.push_back(w);
  }
  std::sort(warps.begin(), warps.end(), [](const WarpSlice& a, const WarpSlice& b) { return a.first < b.first; });
  return warps;
}

std::string compare_warps(const std::vector<WarpSlice>& model, const std::vector<WarpSlice>& measured, BlockShape block) {
  if (model.size() != measured.size()) {
    return "WRONG: " + std::to_string(measured.size()) + " warps measured, " + std::to_string(model.size()) +
           " by the rule";
  }
  for (size_t w = 0; w < model.size(); ++w) {
    if (model[w] == measured[w]) continue;
    return "WRONG at warp " + std::to_string(w) + ": measured " + thread_label(block, measured[w].first) + ".." +
           thread_label(block, measured[w].last) + " mask " + mask_text(measured[w].mask) + ", rule " +
           thread_label(block, model[w].first) + ".." + thread_label(block, model[w].last) + " mask " +
           mask_text(model[w].mask);
  }
  return "ok";
}

}  // namespace warpfold::lab
