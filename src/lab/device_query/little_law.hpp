#pragma once
// Little's law applied to latency hiding (seed 004, section 3.2.2.2): the parallelism needed to
// keep a unit busy is latency × throughput. Pure arithmetic, so the book's worked examples are
// tests and this device's figures come from the same functions.

namespace warpfold::lab {

// The book's latencies (Fermi and Kepler): about 20 cycles for an arithmetic instruction,
// 400 to 800 cycles for a global memory access (it computes with 800).
struct LatencyAssumptions {
  double arithmetic_cycles = 20;
  double memory_cycles = 800;
};

struct ArithmeticParallelism {
  double ops_in_flight_per_sm = 0;  // latency × operations per cycle per SM
  double warps_per_sm = 0;          // one operation per thread per instruction: ops / warp size
};

// Table "隐藏算术延迟": Fermi 20 cycles × 32 ops/cycle = 640 ops = 20 warps per SM.
ArithmeticParallelism arithmetic_parallelism(double latency_cycles, double ops_per_cycle_per_sm, int warp_size);

struct MemoryParallelism {
  double bytes_per_cycle = 0;  // bandwidth / memory clock
  double bytes_in_flight = 0;  // latency × bytes per cycle, for the whole device
  double threads = 0;          // at `bytes_per_thread` in flight per thread
  double warps = 0;
  double warps_per_sm = 0;
};

// Table "隐藏内存延迟": Fermi 144 GB/s at a 1.566 GHz memory clock is 92 B/cycle; × 800 cycles
// = 74 KB in flight; at 4 bytes per thread 18,500 threads, 579 warps, 36 per SM on 16 SMs.
MemoryParallelism memory_parallelism(double latency_cycles, double bandwidth_gbps, double memory_clock_mhz,
                                     int bytes_per_thread, int warp_size, int sm_count);

// FP32 fused multiply-adds an SM completes per cycle (the CUDA programming guide's throughput
// table), or 0 for a compute capability the table does not list.
int fp32_ops_per_cycle_per_sm(int cc_major, int cc_minor);

}  // namespace warpfold::lab
