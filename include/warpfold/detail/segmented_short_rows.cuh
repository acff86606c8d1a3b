#pragma once
// The short-rows kernel: reduce rows of one size, each a whole number of 16-byte vectors and at
// most 32 of them (a fixed-size segmented_reduce of 4 to 128 floats, x.sum(dim=-1) of a matrix
// of such rows), where every row starts on a vector boundary.
//
// Such rows need no classification and no offsets: a row of `items` vectors is read by a group
// of `lanes` lanes (items rounded up to a power of two), one vector each, so that a warp's loads
// cover 32 / lanes whole rows side by side. Each thread keeps kShortRowsInFlight rows' loads in
// flight and folds its vector of each (elements in order). Where a row fills its lanes, the lanes
// then fold all four rows at once by halving exchanges (each shuffle carries a value of a
// different row, so that four rows take 3 + log2(lanes / 4) shuffles, not 4 · log2(lanes)), and
// the lanes left holding a row's total write it; other rows' lanes fold each other, halving, and
// the row's first lane writes it. The order depends on the row's size only.

#include <warpfold/detail/segmented_fold.cuh>
#include <warpfold/detail/segmented_plan.hpp>
#include <warpfold/detail/segmented_sources.cuh>
#include <warpfold/detail/thread_fold.cuh>
#include <warpfold/detail/tile_loader.cuh>

#include <cstdint>

namespace warpfold::detail {

inline constexpr unsigned kShortRowsInFlight = 4;  // vectors per thread in flight
inline constexpr unsigned kShortRowsMaxItems = 32;  // vectors per row at most: one per lane of a warp

// How the short-rows kernel reads rows of `size` elements, `row_stride` apart: `items` vectors
// per row over `lanes` lanes (2^shift). `fits` is false where the rows are not whole vectors,
// exceed a warp's vectors, or do not all start on a vector boundary (then the segments kernel
// reads them).
struct short_rows_shape {
  bool fits = false;
  unsigned items = 0, lanes = 0, shift = 0;
};
inline short_rows_shape plan_short_rows(uint64_t size, unsigned vector_elements, uintptr_t address, unsigned elem_bytes,
                                        int64_t outer_stride, uint64_t inner, int64_t inner_stride) {
  short_rows_shape s;
  if (vector_elements <= 1 || size == 0 || size % vector_elements != 0) return s;
  if (size / vector_elements > kShortRowsMaxItems) return s;
  const uint64_t vector_bytes = uint64_t(vector_elements) * elem_bytes;
  const bool aligned = address % vector_bytes == 0 && outer_stride % int64_t(vector_elements) == 0 &&
                       (inner <= 1 || inner_stride % int64_t(vector_elements) == 0);
  if (!aligned) return s;
  s.items = unsigned(size / vector_elements);
  s.lanes = 1;
  while (s.lanes < s.items) {
    s.lanes *= 2;
    ++s.shift;
  }
  s.fits = true;
  return s;
}

template <class T, class Acc, class Out, class Op, class Form>
struct short_rows_params {
  using input = T;
  using accumulator = Acc;
  using output = Out;
  using op_type = Op;
  using form_type = Form;
  rows_source<T, false> rows;
  uint64_t count;  // rows
  short_rows_shape shape;
  unsigned long long* temp;
  Out* out;
  Acc init;
  Op op;
  Form form;
};

template <class Params>
struct short_rows_block {
  using T = typename Params::input;
  using Acc = typename Params::accumulator;
  using Op = typename Params::op_type;
  using Form = typename Params::form_type;
  using items_t = range_items<T>;
  using item = typename items_t::item;
  using fold_t = thread_fold<Acc, Op, Form>;

  const Params& p;
  unsigned lane_in_row;

  // The items of row r: its vectors, no scalar head.
  __device__ __forceinline__ items_t row_items(uint64_t r) const {
    return {p.rows.in + p.rows.slot(r).base, 0, p.shape.items};
  }

  __device__ __forceinline__ void write(uint64_t row, const Acc& total) const {
    if (row < p.count) p.out[row] = p.form.finish(p.op, p.init, total, true);
  }

  // Rows of slots [first, first + kShortRowsInFlight·threads): the thread's vector of each,
  // every load out before any fold, then the rows' lanes folded and the rows written. The
  // thread's rows lie threads / lanes apart, from the row of slot first + thread.
  __device__ __forceinline__ void fold_round(uint64_t first) const {
    constexpr unsigned R = kShortRowsInFlight;
    const uint64_t row0 = (first + threadIdx.x) >> p.shape.shift, apart = blockDim.x >> p.shape.shift;
    item v[R];
    bool reads[R];
#pragma unroll
    for (unsigned k = 0; k < R; ++k) {
      reads[k] = row0 + k * apart < p.count && lane_in_row < p.shape.items;
      if (reads[k]) v[k] = row_items(row0 + k * apart).load(lane_in_row);
    }
    Acc acc[R];
#pragma unroll
    for (unsigned k = 0; k < R; ++k) {
      fold_t f{Acc{}, false, p.op, p.form};
      if (reads[k]) f.add_item(row_items(row0 + k * apart), v[k], lane_in_row);
      acc[k] = f.acc;
    }
    if (p.shape.items == p.shape.lanes) {
      fold_full_rows(acc, row0, apart);
    } else {
#pragma unroll
      for (unsigned k = 0; k < R; ++k) {
        const Acc total = reduce_in_group(acc[k], p.op, p.shape.lanes, lane_in_row, p.shape.items);
        if (lane_in_row == 0) write(row0 + k * apart, total);
      }
    }
  }

  // Rows whose every lane holds a vector: the first exchange leaves each lane two of the four
  // rows, the second one, and the rest fold that one; lanes that differ only below lanes / 4
  // then hold the same row's total, and the first of them writes it.
  __device__ __forceinline__ void fold_full_rows(Acc (&acc)[kShortRowsInFlight], uint64_t row0, uint64_t apart) const {
    static_assert(kShortRowsInFlight == 4, "the exchanges below halve four rows twice");
    const unsigned lanes = p.shape.lanes;
    if (lanes == 1) {
#pragma unroll
      for (unsigned k = 0; k < 4; ++k) write(row0 + k * apart, acc[k]);
      return;
    }
    const unsigned half = lanes / 2, quarter = lanes / 4;
    const bool upper = (lane_in_row & half) != 0;
    const Acc low = exchange_halves(acc[0], acc[2], p.op, int(half), upper);
    const Acc high = exchange_halves(acc[1], acc[3], p.op, int(half), upper);
    const unsigned pair = upper ? 2 : 0;  // rows pair and pair + 1 are this lane's
    if (lanes == 2) {
      write(row0 + pair * apart, low);
      write(row0 + (pair + 1) * apart, high);
      return;
    }
    const bool second = (lane_in_row & quarter) != 0;
    const Acc halves = exchange_halves(low, high, p.op, int(quarter), second);
    const Acc total = fold_lanes_below(halves, p.op, quarter / 2, lane_in_row);
    if ((lane_in_row & (quarter - 1)) == 0) write(row0 + (pair + (second ? 1 : 0)) * apart, total);
  }
};

template <class Params>
__global__ void __launch_bounds__(kSegmentThreads) short_rows_kernel(const Params p) {
  if (blockIdx.x == 0 && threadIdx.x == 0) clear_stall_status(p.temp);  // nothing here waits
  const short_rows_block<Params> b{p, threadIdx.x & (p.shape.lanes - 1)};
  const uint64_t slots = p.count * p.shape.lanes, round = uint64_t(kShortRowsInFlight) * blockDim.x;
  for (uint64_t first = uint64_t(blockIdx.x) * round; first < slots; first += uint64_t(gridDim.x) * round) {
    b.fold_round(first);
  }
}

// An axis of one to kFewRowsMax rows over outputs side by side (x.sum(dim=0) of one to three rows,
// each output a column): output i folds elements i, i + row_stride, … in row order, lifted and
// finished, so the reduction is a map. A thread keeps kSingleInFlight loads in flight (items of
// kSingleInFlight / rows outputs per round), an item being a vector of the input where input,
// output and row stride allow (by_vectors), else one element; loads and stores are coalesced. The
// columns kernel folds such a column in the same order (a lane's rows in order), so the bits do not
// depend on which of the two runs.
inline constexpr unsigned kSingleInFlight = 8;
inline constexpr unsigned kFewRowsMax = 3;  // from 4 rows on, the columns kernel keeps enough loads in flight

template <class T, class Acc, class Out, class Op, class Form>
struct single_elements_params {
  using input = T;
  using accumulator = Acc;
  using output = Out;
  using op_type = Op;
  using form_type = Form;
  const T* in;
  uint64_t count;  // outputs
  unsigned rows;
  int64_t row_stride;  // elements
  unsigned long long* temp;
  Out* out;
  Acc init;
  Op op;
  Form form;
  bool by_vectors;
};

// The vector of V outputs is stored at once where it is a power of two of at most 16 bytes.
template <class Out, unsigned V>
inline constexpr bool stores_output_vectors =
    V > 1 && sizeof(Out) * V <= 16 && (sizeof(Out) * V & (sizeof(Out) * V - 1)) == 0;

template <class Params>
struct single_elements_map {
  using T = typename Params::input;
  using Out = typename Params::output;
  using fold_t = thread_fold<typename Params::accumulator, typename Params::op_type, typename Params::form_type>;
  const Params& p;

  // Output j of an item whose rows are x[0], …, x[Rows - 1].
  template <unsigned Rows, unsigned V>
  __device__ __forceinline__ Out output_of(const column_vector<T, V> (&x)[Rows], unsigned j) const {
    fold_t f{{}, false, p.op, p.form};
    f.add_element(x[0].e[j], 0);
#pragma unroll
    for (unsigned r = 1; r < Rows; ++r) f.add_next_element(x[r].e[j], r);
    return p.form.finish(p.op, p.init, f.acc, true);
  }

  // Items [0, items) of V outputs each, item i holding outputs i·V … i·V + V − 1, Rows rows each.
  template <unsigned Rows, unsigned V>
  __device__ __forceinline__ void map_items(uint64_t items) const {
    using item = column_vector<T, V>;
    constexpr unsigned kItems = kSingleInFlight / Rows;
    const item* in = reinterpret_cast<const item*>(p.in);
    const int64_t step = p.row_stride / int64_t(V);
    const uint64_t round = uint64_t(kItems) * blockDim.x;
    for (uint64_t first = uint64_t(blockIdx.x) * round; first < items; first += uint64_t(gridDim.x) * round) {
      item v[kItems][Rows];
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) {
        const uint64_t i = first + k * blockDim.x + threadIdx.x;
        const item* at = in + (i < items ? i : items - 1);  // unconditional: the loads go out together
#pragma unroll
        for (unsigned r = 0; r < Rows; ++r) v[k][r] = at[int64_t(r) * step];
      }
#pragma unroll
      for (unsigned k = 0; k < kItems; ++k) {
        const uint64_t i = first + k * blockDim.x + threadIdx.x;
        if (i < items) store<Rows>(i, v[k]);
      }
    }
  }

  template <unsigned Rows, unsigned V>
  __device__ __forceinline__ void store(uint64_t i, const column_vector<T, V> (&v)[Rows]) const {
    if constexpr (stores_output_vectors<Out, V>) {
      column_vector<Out, V> o;
#pragma unroll
      for (unsigned j = 0; j < V; ++j) o.e[j] = output_of<Rows>(v, j);
      reinterpret_cast<column_vector<Out, V>*>(p.out)[i] = o;
    } else {
#pragma unroll
      for (unsigned j = 0; j < V; ++j) p.out[i * V + j] = output_of<Rows>(v, j);
    }
  }

  // Every output, Rows rows each: vectors where the layout allows, then the outputs past the last
  // whole vector by the last block's first threads.
  template <unsigned Rows, unsigned V>
  __device__ __forceinline__ void map_all() const {
    if (V == 1 || !p.by_vectors) {
      map_items<Rows, 1>(p.count);
      return;
    }
    const uint64_t vectors = p.count / V;
    if (vectors > 0) map_items<Rows, V>(vectors);
    const uint64_t i = vectors * V + threadIdx.x;
    if (blockIdx.x == gridDim.x - 1 && i < p.count) {
      column_vector<T, 1> x[Rows];
#pragma unroll
      for (unsigned r = 0; r < Rows; ++r) x[r].e[0] = p.in[int64_t(i) + int64_t(r) * p.row_stride];
      p.out[i] = output_of<Rows>(x, 0);
    }
  }
};

template <class Params>
__global__ void __launch_bounds__(kSegmentThreads) single_elements_kernel(const Params p) {
  constexpr unsigned V = column_vector_elements<typename Params::input>;
  if (blockIdx.x == 0 && threadIdx.x == 0) clear_stall_status(p.temp);  // nothing here waits
  const single_elements_map<Params> map{p};
  static_assert(kFewRowsMax == 3, "one case per row count");
  switch (p.rows) {
    case 1: map.template map_all<1, V>(); break;
    case 2: map.template map_all<2, V>(); break;
    default: map.template map_all<3, V>(); break;
  }
}

}  // namespace warpfold::detail
