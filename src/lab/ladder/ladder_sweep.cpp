#include "lab/ladder/ladder_sweep.hpp"

#include "harness/gpu_timer.hpp"

#include <string>

namespace warpfold::lab {

report::Table block_sweep_table(const LadderWorkspace& ws, const L2Flush& flush_l2,
                                const std::vector<const LadderKernel*>& kernels,
                                const LadderOptions& o, cudaStream_t stream, bool& check_failed) {
  using nlohmann::json;
  report::Table t;
  t.title = "block-size sweep: median ms per block size (n = " + std::to_string(ws.n()) + ")";
  t.columns = {{"kernel", "kernel"}, {"variant", "variant"}};
  for (unsigned b : o.sweep_blocks) t.columns.push_back({"ms_block_" + std::to_string(b), "ms @" + std::to_string(b), 4});
  t.columns.push_back({"best_block", "best block"});
  t.columns.push_back({"best_ms", "best ms", 4});
  t.columns.push_back({"wrong_at", "WRONG at"});

  for (const LadderKernel* k : kernels) {
    std::vector<json> row{std::string(k->name), std::string(to_string(k->variant))};
    json best_block = nullptr, best_ms = nullptr;
    std::string wrong;
    // A device-wide kernel picks its own launch: it runs once, at no block size of the sweep's.
    const std::vector<unsigned> blocks = k->device_wide ? std::vector<unsigned>{o.sweep_blocks.front()} : o.sweep_blocks;
    for (unsigned b : blocks) {
      const LadderCheck check = ws.run_and_check(*k, b);
      if (!check.launched) {
        row.push_back(nullptr);
      } else {
        const auto stats = harness::time_on_stream(
            stream, o.warmup, o.reps,
            [&] {
              ws.restore();
              flush_l2();
            },
            [&] { ws.launch(*k, b); });
        row.push_back(k->device_wide ? json(nullptr) : json(stats.median_ms));
        if (check.ok() && (best_ms.is_null() || stats.median_ms < best_ms.get<double>())) {
          best_ms = stats.median_ms;
          if (!k->device_wide) best_block = b;
        }
      }
      if (!check.ok()) {
        wrong += (wrong.empty() ? "" : " ") + (k->device_wide ? std::string("its own launch") : std::to_string(b));
        if (k->variant == Variant::fixed) check_failed = true;
      }
    }
    if (k->device_wide) row.resize(2 + o.sweep_blocks.size(), nullptr);
    row.push_back(best_block);
    row.push_back(best_ms);
    row.push_back(wrong.empty() ? json("none") : json(wrong));
    t.add_row(std::move(row));
  }
  t.notes.push_back("best block: the fastest block size among those whose sum was correct");
  t.notes.push_back("a device-wide kernel (the library's reduce) picks its own grid and block: it runs once, its "
                    "time is in best ms and it has no best block");
  t.notes.push_back("'-': the kernel's launch rule launched nothing at that block size");
  t.notes.push_back("the input is restored and L2 flushed (untimed) before every timed run");
  return t;
}

}  // namespace warpfold::lab
