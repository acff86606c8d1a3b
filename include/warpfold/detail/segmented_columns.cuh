#pragma once
// The columns kernel: reduce_axis where the inner extent has stride 1, so that the outputs'
// elements of one axis position lie side by side (x.sum(dim=0) of a row-major matrix).
//
// The outputs are cut into strips of `width` neighbouring columns (column_plan). A work unit is
// one strip of one outer index over one chunk of the axis; block b takes units b, b + grid, ….
// In a unit, lane l of warp w reads column l % width of rows w·R + l / width, then every 8·R
// rows further (R = rows_per_load: below 32 columns, a warp covers several rows at once), with
// kColumnUnroll loads in flight. The lanes of a column fold in row order, the warps in warp
// order. With one chunk the unit writes its columns; with several, each chunk stores its column
// partials (tagged), and the block that delivers a strip's last chunk folds them in chunk order.

#include <warpfold/detail/combine.cuh>
#include <warpfold/detail/segmented_fold.cuh>
#include <warpfold/detail/segmented_plan.hpp>
#include <warpfold/warp/warp_reduce.cuh>

#include <cstdint>
#include <cstring>

namespace warpfold::detail {

template <class T, class Acc, class Out, class Op, class Form>
struct columns_params {
  using input = T;
  using accumulator = Acc;
  using output = Out;
  using op_type = Op;
  using form_type = Form;
  const T* in;
  uint64_t outer, axis, inner;
  int64_t outer_stride, axis_stride;
  column_plan plan;
  columns_layout layout;
  unsigned long long* temp;
  Out* out;
  Acc init;
  Op op;
  Form form;
  unsigned long long key, timeout_ns;
};

template <class Params>
__global__ void __launch_bounds__(kSegmentThreads) columns_kernel(const Params p) {
  using T = typename Params::input;
  using Acc = typename Params::accumulator;
  using Out = typename Params::output;
  using Op = typename Params::op_type;
  using Form = typename Params::form_type;
  using fold_t = thread_fold<Acc, Op, Form>;
  // One value per thread: a warp's column totals, then the chunk fold's per-thread folds.
  __shared__ alignas(Acc) unsigned char values[kSegmentThreads][sizeof(Acc)];
  __shared__ bool holds[kSegmentThreads];
  __shared__ bool last;

  const column_plan& plan = p.plan;
  const unsigned tag = unsigned(p.key);
  const unsigned warp_id = threadIdx.x / 32, lane = threadIdx.x % 32;
  const unsigned width = plan.width, rows_per_load = plan.rows_per_load;
  const unsigned row_in_load = lane / width, column_in_strip = lane % width;
  const uint64_t row_step = uint64_t(kSegmentWarps) * rows_per_load;
  const auto store_value = [&](unsigned t, const Acc& v, bool has) {
    memcpy(values[t], &v, sizeof(Acc));
    holds[t] = has;
  };
  const auto value_at = [&](unsigned t) {
    Acc v;
    memcpy(&v, values[t], sizeof(Acc));
    return v;
  };
  if (blockIdx.x == 0 && threadIdx.x == 0) device_word(p.temp[1]).store(0, cuda::memory_order_relaxed);

  for (uint64_t unit = blockIdx.x; unit < plan.units; unit += gridDim.x) {
    const uint64_t chunk = unit % plan.chunks, strip_unit = unit / plan.chunks;
    const uint64_t o = strip_unit / plan.strips, strip = strip_unit % plan.strips;
    const uint64_t column = strip * width + column_in_strip;
    const bool active = row_in_load < rows_per_load && column < p.inner;
    const uint64_t row_begin = chunk * plan.rows_per_chunk;
    const uint64_t row_end = row_begin + plan.rows_per_chunk < p.axis ? row_begin + plan.rows_per_chunk : p.axis;
    const T* in = p.in + int64_t(o) * p.outer_stride + int64_t(column);

    // The lane's rows of its column, kColumnUnroll loads in flight.
    fold_t f{Acc{}, false, p.op, p.form};
    for (uint64_t first = row_begin + warp_id * rows_per_load; first < row_end; first += row_step * kColumnUnroll) {
      T v[kColumnUnroll];
#pragma unroll
      for (unsigned k = 0; k < kColumnUnroll; ++k) {
        const uint64_t row = first + k * row_step + row_in_load;
        if (active && row < row_end) v[k] = in[int64_t(row) * p.axis_stride];
      }
#pragma unroll
      for (unsigned k = 0; k < kColumnUnroll; ++k) {
        const uint64_t row = first + k * row_step + row_in_load;
        if (active && row < row_end) f.add_element(v[k], row);
      }
    }
    // Lane c (c < width) folds the lanes of its column, c + width, c + 2·width, …, in row order.
    for (unsigned r = 1; r < rows_per_load; ++r) {
      const Acc other = warp::shuffle_down(f.acc, int(r * width));
      const bool other_has = __shfl_down_sync(warp::kFullMask, f.has ? 1u : 0u, r * width) != 0;
      if (lane < width && other_has) f.add(other);
    }
    __syncthreads();  // the previous unit is done with `values`
    if (lane < width) store_value(warp_id * 32 + lane, f.acc, f.has);
    __syncthreads();
    // Warp 0's lane c folds its column's warp totals in warp order.
    thread_fold<Acc, Op, no_form> col{Acc{}, false, p.op};
    if (warp_id == 0 && lane < width) {
      for (unsigned w = 0; w < kSegmentWarps; ++w)
        if (holds[w * 32 + lane]) col.add(value_at(w * 32 + lane));
    }
    const bool writes = warp_id == 0 && lane < width && column < p.inner;
    if (plan.chunks == 1) {
      if (writes) p.out[o * p.inner + column] = p.form.finish(p.op, p.init, col.acc, col.has);
      continue;
    }
    // Several chunks: store this chunk's partials (every column of a chunk holds a value: the
    // chunk has rows, and lane c reads its first), then count the strip's arrivals.
    const uint64_t strip_slots = plan.chunks * width;
    const tagged_partials<Acc> parts{p.temp + p.layout.partials_word + strip_unit * strip_slots * kPartialWords<Acc>,
                                     unsigned(strip_slots), tag};
    if (writes) {
      parts.store(unsigned(chunk * width + lane), col.acc);
      __threadfence();
    }
    __syncthreads();  // every column's partial is stored before thread 0 arrives
    if (threadIdx.x == 0) {
      last = tagged_add(p.temp + p.layout.counters_word + strip_unit, tag, 1) + 1 == plan.chunks;
    }
    __syncthreads();
    if (!last) continue;
    // The last chunk's block: thread t folds column t % width over chunks t / width, t / width +
    // stripes, … (stripes = threads / width), then each column's stripes are folded in order.
    const unsigned stripes = kSegmentThreads / width;
    const unsigned my_column = threadIdx.x % width, stripe = threadIdx.x / width;
    thread_fold<Acc, Op, no_form> g{Acc{}, false, p.op};
    bool gave_up = false;
    if (stripe < stripes && strip * width + my_column < p.inner) {
      bounded_wait wait{p.timeout_ns};
      for (uint64_t c = stripe; c < plan.chunks; c += stripes) {
        const unsigned slot = unsigned(c * width + my_column);
        unsigned long long seen[kPartialWords<Acc>];
        parts.load(slot, seen);
        while (!gave_up && !parts.reload_stale(slot, seen)) gave_up = !wait.again();
        g.add(parts.value(seen));
      }
    }
    __syncthreads();  // warp 0 is done reading `values`
    store_value(threadIdx.x, g.acc, g.has);
    const bool stalled = __syncthreads_or(gave_up);
    if (threadIdx.x < width && strip * width + threadIdx.x < p.inner) {
      thread_fold<Acc, Op, no_form> total{Acc{}, false, p.op};
      for (unsigned s = 0; s < stripes; ++s)
        if (holds[s * width + threadIdx.x]) total.add(value_at(s * width + threadIdx.x));
      Out& out = p.out[o * p.inner + strip * width + threadIdx.x];
      if (stalled) {
        out = stalled_result<Out>();
        const unsigned long long epoch = device_word(p.temp[0]).load(cuda::memory_order_relaxed);
        device_word(p.temp[1]).store(kStalledCombine | ((epoch - 1) & ~kStalledCombine), cuda::memory_order_relaxed);
      } else {
        out = p.form.finish(p.op, p.init, total.acc, total.has);
      }
    }
  }
}

}  // namespace warpfold::detail
