#pragma once
// The columns kernel: reduce_axis where the inner extent has stride 1, so that the outputs'
// elements of one axis position lie side by side (x.sum(dim=0) of a row-major matrix).
//
// The outputs are cut into strips of neighbouring columns (column_plan). A work unit is a group
// of strips of one outer index over one chunk of the axis; block b takes units b, b + grid, ….
// Warp w takes strip w / warps_per_strip of the unit, with the other warps of that strip: lane l
// reads the `vec` columns (l % width)·vec, … of rows (w % warps_per_strip)·R + l / width, then
// every warps_per_strip·R rows further (R = rows_per_load: a narrow row lets a warp cover several
// at once), with kColumnUnroll loads in flight. The lanes of a column fold as a tree, the warps
// of a strip in warp order. With one chunk the unit writes its columns; with several, each
// chunk stores its column partials (tagged), and the block that delivers a strip's last chunk
// folds them in chunk order.

#include <warpfold/detail/combine.cuh>
#include <warpfold/detail/segmented_fold.cuh>
#include <warpfold/detail/segmented_plan.hpp>
#include <warpfold/warp/warp_reduce.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

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
struct columns_block {
  using T = typename Params::input;
  using Acc = typename Params::accumulator;
  using Out = typename Params::output;
  using Op = typename Params::op_type;
  using Form = typename Params::form_type;
  using fold_t = thread_fold<Acc, Op, Form>;
  using plain_fold = thread_fold<Acc, Op, no_form>;
  static constexpr unsigned kVec = column_vector_elements<T>;

  // One value per thread and column of its vector: a warp's column totals, then the chunk
  // fold's per-thread folds.
  struct shared_state {
    alignas(Acc) unsigned char values[kSegmentThreads][kVec][sizeof(Acc)];  // raw: Acc may have a constructor
    bool holds[kSegmentThreads][kVec];
    bool last;
  };

  const Params& p;
  shared_state& sh;
  const column_plan& plan;
  unsigned tag, warp_id, lane;
  unsigned strip_in_unit, warp_in_strip, row_in_load, lane_column;

  __device__ columns_block(const Params& params, shared_state& shared)
      : p(params), sh(shared), plan(params.plan), tag(unsigned(params.key)), warp_id(threadIdx.x / 32),
        lane(threadIdx.x % 32) {
    strip_in_unit = warp_id / plan.warps_per_strip;
    warp_in_strip = warp_id % plan.warps_per_strip;
    row_in_load = lane / plan.width;
    lane_column = lane % plan.width;
  }

  __device__ __forceinline__ fold_t new_fold() const { return fold_t{Acc{}, false, p.op, p.form}; }
  __device__ __forceinline__ void store_value(unsigned t, unsigned v, const Acc& x, bool has) {
    memcpy(sh.values[t][v], &x, sizeof(Acc));
    sh.holds[t][v] = has;
  }
  __device__ __forceinline__ Acc value_at(unsigned t, unsigned v) const {
    Acc x;
    memcpy(&x, sh.values[t][v], sizeof(Acc));
    return x;
  }
  // The first of the lane's columns in strip `strip`.
  __device__ __forceinline__ uint64_t first_column(uint64_t strip) const {
    return strip * plan.columns_per_strip() + uint64_t(lane_column) * plan.vec;
  }

  // One round of the lane's rows: row, row + row_step, … (kColumnUnroll of them; where Checked,
  // those below row_end), loaded at once from `at` on, `step` elements apart, then folded per
  // column in row order. First: the round starts the fold (its first row is below row_end).
  template <unsigned V, bool Checked, bool First>
  __device__ __forceinline__ void fold_round(const T* at, int64_t step, uint64_t row, uint64_t row_step,
                                             uint64_t row_end, fold_t (&f)[kVec]) const {
    using vector = column_vector<T, V>;
    const auto taken = [&](unsigned k) { return !Checked || row + k * row_step < row_end; };
    vector v[kColumnUnroll];
#pragma unroll
    for (unsigned k = 0; k < kColumnUnroll; ++k)
      if (taken(k)) v[k] = *reinterpret_cast<const vector*>(at + int64_t(k) * step);
#pragma unroll
    for (unsigned k = 0; k < kColumnUnroll; ++k) {
      if (!taken(k)) continue;
#pragma unroll
      for (unsigned j = 0; j < V; ++j) {
        if (First && k == 0) {
          f[j].add_element(v[k].e[j], row);
        } else {
          f[j].add_next_element(v[k].e[j], row + k * row_step);
        }
      }
    }
  }

  // Phase 1: the lane's rows [row_begin, row_end) of its V columns from `in`, folded per column:
  // a first round that starts the fold, whole rounds without bounds checks, and a last round of
  // the rows left.
  template <unsigned V>
  __device__ __forceinline__ void fold_rows(const T* in, uint64_t row_begin, uint64_t row_end, bool active,
                                            fold_t (&f)[kVec]) const {
    const uint64_t row_step = uint64_t(plan.warps_per_strip) * plan.rows_per_load;
    uint64_t row = row_begin + uint64_t(warp_in_strip) * plan.rows_per_load + row_in_load;
    if (!active || row >= row_end) return;
    const int64_t step = int64_t(row_step) * p.axis_stride;
    const T* at = in + int64_t(row) * p.axis_stride;
    fold_round<V, true, true>(at, step, row, row_step, row_end, f);
    for (;;) {
      at += int64_t(kColumnUnroll) * step;
      row += kColumnUnroll * row_step;
      if (row + (kColumnUnroll - 1) * row_step >= row_end) break;
      fold_round<V, false, false>(at, step, row, row_step, row_end, f);
    }
    if (row < row_end) fold_round<V, true, false>(at, step, row, row_step, row_end, f);
  }

  // Phase 2: lane c (c < width) folds the lanes of its columns, c + width, c + 2·width, …, as a
  // tree: each step halves the rows that hold values (the operator commutes). Every lane of the
  // warp calls it.
  __device__ __forceinline__ void fold_lanes(fold_t (&f)[kVec]) const {
    for (unsigned rows = plan.rows_per_load; rows > 1;) {
      const unsigned half = (rows + 1) / 2;
      const bool takes = row_in_load + half < rows;
#pragma unroll
      for (unsigned j = 0; j < kVec; ++j) {
        const Acc other = warp::shuffle_down(f[j].acc, int(half * plan.width));
        const bool other_has = __shfl_down_sync(warp::kFullMask, f[j].has ? 1u : 0u, half * plan.width) != 0;
        if (takes && other_has) f[j].add(other);
      }
      rows = half;
    }
  }

  // Phase 3: the first warp of each strip folds the strip's warps in warp order into `col`
  // (lanes < width). Every thread calls it.
  __device__ __forceinline__ void fold_warps(const fold_t (&f)[kVec], plain_fold (&col)[kVec]) {
#pragma unroll
    for (unsigned j = 0; j < kVec; ++j) col[j] = plain_fold{f[j].acc, f[j].has, p.op};
    if (plan.warps_per_strip == 1) return;
    __syncthreads();  // the previous unit is done with `values`
    if (lane < plan.width) {
#pragma unroll
      for (unsigned j = 0; j < kVec; ++j) store_value(threadIdx.x, j, f[j].acc, f[j].has);
    }
    __syncthreads();
    if (warp_in_strip == 0 && lane < plan.width) {
      for (unsigned w = 1; w < plan.warps_per_strip; ++w) {
        const unsigned t = (warp_id + w) * 32 + lane;
#pragma unroll
        for (unsigned j = 0; j < kVec; ++j)
          if (sh.holds[t][j]) col[j].add(value_at(t, j));
      }
    }
  }

  __device__ __forceinline__ void write(uint64_t o, uint64_t column, const plain_fold& col) const {
    p.out[o * p.inner + column] = p.form.finish(p.op, p.init, col.acc, col.has);
  }

  // A strip's partials (segmented_plan.hpp's layout): chunk c's column j at slot c·columns + j,
  // then set k's at (chunks + k)·columns + j.
  __device__ __forceinline__ tagged_partials<Acc> strip_partials(uint64_t strip_unit) const {
    const uint64_t count = column_partials_per_strip(plan);
    return {p.temp + p.layout.partials_word + strip_unit * count * kPartialWords<Acc>, unsigned(count), tag};
  }

  // Whether this block is the last of `expected` to arrive at `counter`, after every thread's
  // partials are stored. Every thread calls it.
  __device__ __forceinline__ bool arrives_last(unsigned long long* counter, uint64_t expected) {
    __syncthreads();  // every column's partial is stored (and fenced) before thread 0 arrives
    if (threadIdx.x == 0) sh.last = tagged_add(counter, tag, 1) + 1 == expected;
    __syncthreads();
    return sh.last;
  }

  // Threads t < columns store `value` of column t as partial row `row` (slots row·columns + t).
  __device__ __forceinline__ void store_row(const tagged_partials<Acc>& parts, uint64_t row, uint64_t strip,
                                            const plain_fold& value) const {
    const unsigned columns = plan.columns_per_strip();
    if (threadIdx.x < columns && strip * columns + threadIdx.x < p.inner) {
      parts.store(unsigned(row * columns + threadIdx.x), value.acc);
      __threadfence();
    }
  }

  // The fold of partial rows [first, first + count) per column, in row order, into threads
  // t < columns: thread t folds column t % columns over rows first + t / columns, + stripes, …
  // (several polled at once), then each column's stripes fold in order. `stalled` (every
  // thread): a partial never came. Every thread calls it.
  __device__ plain_fold fold_rows_of_partials(const tagged_partials<Acc>& parts, uint64_t first, uint64_t count,
                                              uint64_t strip, bool& stalled) {
    constexpr unsigned kPolls = partials_in_flight<Acc>();
    const unsigned columns = plan.columns_per_strip();
    const unsigned stripes = kSegmentThreads / columns;
    const unsigned my_column = threadIdx.x % columns, stripe = threadIdx.x / columns;
    const bool mine = stripe < stripes && strip * columns + my_column < p.inner;
    plain_fold g{Acc{}, false, p.op};
    bool gave_up = false;
    if (mine) {
      bounded_wait wait{p.timeout_ns};
      // Slots fit 32 bits (column_partials_per_strip), and so do rows.
      const unsigned rows = unsigned(count), first_slot = unsigned(first) * columns + my_column;
      for (unsigned base = stripe; base < rows; base += stripes * kPolls) {
        const auto row_of = [&](unsigned k) { return base + k * stripes; };
        const auto slot_of = [&](unsigned k) { return first_slot + row_of(k) * columns; };
        const auto taken = [&](unsigned k) { return row_of(k) < rows; };
        unsigned long long seen[kPolls][kPartialWords<Acc>];
#pragma unroll
        for (unsigned k = 0; k < kPolls; ++k)
          if (taken(k)) parts.load(slot_of(k), seen[k]);
        if (!gave_up && !parts.await_fresh(slot_of, taken, seen, wait)) gave_up = true;
#pragma unroll
        for (unsigned k = 0; k < kPolls; ++k)
          if (taken(k)) g.add(parts.value(seen[k]));
      }
    }
    __syncthreads();  // every thread is done reading `values`
    store_value(threadIdx.x, 0, g.acc, g.has);
    stalled = __syncthreads_or(gave_up);
    plain_fold total{Acc{}, false, p.op};
    if (threadIdx.x < columns) {
      for (unsigned s = 0; s < stripes; ++s)
        if (sh.holds[s * columns + threadIdx.x][0]) total.add(value_at(s * columns + threadIdx.x, 0));
    }
    return total;
  }

  // Phase 4 with several chunks (a unit is one strip, every warp on it): the chunk's partials
  // stored; the block that delivers its set's last chunk folds the set's chunks (and, with one
  // set, writes the strip); with several sets, it stores the set's partials, and the block that
  // delivers the last set folds the sets in order and writes the strip.
  __device__ void combine_chunks(uint64_t o, uint64_t strip, uint64_t chunk, const plain_fold (&col)[kVec]) {
    const unsigned columns = plan.columns_per_strip();
    const uint64_t strip_unit = o * plan.strips + strip;
    const tagged_partials<Acc> parts = strip_partials(strip_unit);
    unsigned long long* counters = p.temp + p.layout.counters_word + strip_unit * column_counters_per_strip(plan);
    if (warp_id == 0 && lane < plan.width && first_column(strip) < p.inner) {
      // Every column of a chunk holds a value: the chunk has rows, and its lanes read the first.
#pragma unroll
      for (unsigned j = 0; j < kVec; ++j)
        if (j < plan.vec) parts.store(unsigned(chunk * columns + lane_column * plan.vec + j), col[j].acc);
      __threadfence();
    }
    const uint64_t set = chunk / plan.chunks_per_set;
    if (!arrives_last(counters + 1 + set, plan.chunks_in_set(set))) return;
    // Step 1 folds the set's chunks; step 2, where there are several sets, the sets.
    uint64_t first = set * plan.chunks_per_set, count = plan.chunks_in_set(set);
    bool stalled = false;
    plain_fold total{Acc{}, false, p.op};
    for (bool sets_step = false;; sets_step = true) {
      total = fold_rows_of_partials(parts, first, count, strip, stalled);
      if (sets_step || plan.chunk_sets == 1) break;
      if (stalled && threadIdx.x == 0) record_stall(p.temp);
      store_row(parts, plan.chunks + set, strip, total);
      if (!arrives_last(counters, plan.chunk_sets)) return;
      first = plan.chunks;
      count = plan.chunk_sets;
    }
    stalled = stalled || (plan.chunk_sets > 1 && stall_recorded(p.temp));
    if (threadIdx.x < columns && strip * columns + threadIdx.x < p.inner) {
      const uint64_t column = strip * columns + threadIdx.x;
      if (stalled) {
        p.out[o * p.inner + column] = stalled_result<Out>();
        record_stall(p.temp);
      } else {
        write(o, column, total);
      }
    }
  }

  template <bool Chunked>
  __device__ void run_unit(uint64_t unit) {
    const uint64_t chunk = unit % plan.chunks, group_unit = unit / plan.chunks;
    const uint64_t o = group_unit / plan.groups, strip = (group_unit % plan.groups) * plan.strips_per_unit + strip_in_unit;
    const uint64_t column = first_column(strip);
    const bool active = strip < plan.strips && row_in_load < plan.rows_per_load && column < p.inner;
    const uint64_t row_begin = chunk * plan.rows_per_chunk;
    const uint64_t row_end = row_begin + plan.rows_per_chunk < p.axis ? row_begin + plan.rows_per_chunk : p.axis;
    const T* in = p.in + int64_t(o) * p.outer_stride + int64_t(column);
    fold_t f[kVec];
#pragma unroll
    for (unsigned j = 0; j < kVec; ++j) f[j] = new_fold();
    if (kVec > 1 && plan.vec == kVec) {
      fold_rows<kVec>(in, row_begin, row_end, active, f);
    } else {
      fold_rows<1>(in, row_begin, row_end, active, f);
    }
    fold_lanes(f);
    plain_fold col[kVec];
    fold_warps(f, col);
    if constexpr (Chunked) {
      combine_chunks(o, strip, chunk, col);
      return;
    }
    if (warp_in_strip == 0 && lane < plan.width && active) {
#pragma unroll
      for (unsigned j = 0; j < kVec; ++j)
        if (j < plan.vec) write(o, column + j, col[j]);
    }
  }
};

// Chunked: the plan cuts the axis (plan.chunks > 1). A kernel of its own, because the chunks'
// combine needs registers that would cost the plain kernel a resident block per SM.
template <class Params, bool Chunked>
__global__ void __launch_bounds__(kSegmentThreads) columns_kernel(const Params p) {
  using block_t = columns_block<Params>;
  __shared__ typename block_t::shared_state sh;
  block_t b{p, sh};
  if (blockIdx.x == 0 && threadIdx.x == 0) clear_stall_status(p.temp);
  for (uint64_t unit = blockIdx.x; unit < p.plan.units; unit += gridDim.x) b.template run_unit<Chunked>(unit);
}

}  // namespace warpfold::detail
