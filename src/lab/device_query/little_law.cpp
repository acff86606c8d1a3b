#include "lab/device_query/little_law.hpp"

namespace warpfold::lab {

ArithmeticParallelism arithmetic_parallelism(double latency_cycles, double ops_per_cycle_per_sm, int warp_size) {
  ArithmeticParallelism p;
  p.ops_in_flight_per_sm = latency_cycles * ops_per_cycle_per_sm;
  p.warps_per_sm = warp_size > 0 ? p.ops_in_flight_per_sm / warp_size : 0;
  return p;
}

MemoryParallelism memory_parallelism(double latency_cycles, double bandwidth_gbps, double memory_clock_mhz,
                                     int bytes_per_thread, int warp_size, int sm_count) {
  MemoryParallelism p;
  if (memory_clock_mhz <= 0 || bytes_per_thread <= 0 || warp_size <= 0 || sm_count <= 0) return p;
  p.bytes_per_cycle = bandwidth_gbps * 1e9 / (memory_clock_mhz * 1e6);
  p.bytes_in_flight = latency_cycles * p.bytes_per_cycle;
  p.threads = p.bytes_in_flight / bytes_per_thread;
  p.warps = p.threads / warp_size;
  p.warps_per_sm = p.warps / sm_count;
  return p;
}

int fp32_ops_per_cycle_per_sm(int major, int minor) {
  switch (major) {
    case 2: return minor == 0 ? 32 : 48;  // Fermi
    case 3: return 192;                   // Kepler
    case 5: return 128;                   // Maxwell
    case 6: return minor == 0 ? 64 : 128; // Pascal: GP100 vs the others
    case 7: return 64;                    // Volta, Turing
    case 8: return minor == 0 ? 64 : 128; // Ampere GA100 vs GA10x, Ada
    case 9: return 128;                   // Hopper
    case 10:
    case 12: return 128;                  // Blackwell
    default: return 0;
  }
}

}  // namespace warpfold::lab
