#pragma once
// The single-pass device-wide reduce kernel: it wires the layers together.
//
// One launch does all the work. Each block reads its share of the input through the tile loader
// (tile_loader.cuh), folds it in registers (thread_fold.cuh), reduces it across the block
// (block_reduce.cuh) and hands the block's total to the grid's combine (combine.cuh), whose last
// block writes the result. The kernel comes in three kinds (reduce_policy.hpp): narrow and wide
// tiles read by register loads, and the wide tiles read by bulk copies. The fold order depends
// only on the grid, the kernel and n, so floating-point results are bitwise reproducible run to
// run on a device.

#include <warpfold/block/block_reduce.cuh>
#include <warpfold/detail/bulk_copy.cuh>
#include <warpfold/detail/combine.cuh>
#include <warpfold/detail/reduce_plan.hpp>
#include <warpfold/detail/reduce_policy.hpp>
#include <warpfold/detail/thread_fold.cuh>
#include <warpfold/detail/tile_loader.cuh>

#include <cstdint>
#include <type_traits>

namespace warpfold::detail {

// One reduce's arguments. `Form` says what happens to each element as it is loaded and to the
// total at the end (reduce_forms.cuh): form.lift<Acc>(element, index) gives the accumulator,
// form.finish(op, init, total, has_total) the output (has_total is false for n = 0).
template <class T, class Acc, class Out, class Op, class Form>
struct reduce_params {
  using input = T;
  using accumulator = Acc;
  using op_type = Op;
  using form_type = Form;
  const T* in;
  uint64_t n;
  reduce_plan plan;
  unsigned long long* temp;  // tagged_partial_bytes<Acc>(gridDim.x): the header, then the partials
  Out* out;
  Acc init;
  Op op;
  Form form;
  unsigned long long key;         // the call's key (call_key), for the partials' tags
  unsigned long long timeout_ns;  // the bound on the combiner's wait
};

// The scalar head and tail of the input (fewer than a vector's elements each), read by the first
// threads of block 0 before the body, so that their round trip overlaps the first tile's, and
// folded after it.
template <class T>
struct scalar_ends {
  unsigned head, tail;
  uint64_t tail_start;
  bool has_head, has_tail;
  T head_item{}, tail_item{};

  __device__ __forceinline__ static scalar_ends load(const T* in, const reduce_plan& plan, unsigned vector_elements) {
    scalar_ends e{unsigned(plan.head), unsigned(plan.tail), plan.head + plan.vectors * vector_elements};
    e.has_head = blockIdx.x == 0 && threadIdx.x < e.head;
    e.has_tail = blockIdx.x == 0 && threadIdx.x < e.tail;
    if (e.has_head) e.head_item = in[threadIdx.x];
    if (e.has_tail) e.tail_item = in[e.tail_start + threadIdx.x];
    return e;
  }
  template <class Fold>
  __device__ __forceinline__ void fold_into(Fold& f) const {
    if (has_head) f.add_element(head_item, threadIdx.x);
    if (has_tail) f.add_element(tail_item, tail_start + threadIdx.x);
  }
};

// Block b's tiles of the body: b, b + grid, ... A full first tile is folded apart from the loop
// and unguarded (no predicates, and the fold knows it starts empty), since a block with a single
// tile runs little else; the bulk kernel brings full tiles through shared memory instead. The
// body's partial last tile is loaded whole and folded only in range. Returns whether the block's
// first tile was full.
template <kernel_kind Kind, class Loader, class Fold>
__device__ __forceinline__ bool fold_block_tiles(const Loader& loader, Fold& f) {
  constexpr unsigned kInFlight = Loader::kInFlight;
  using item = typename Loader::item;
  const auto fold_tile = [&](const item(&v)[kInFlight], uint64_t tile) {
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k) f.add_item(loader.items, v[k], loader.item_of(tile, k));
  };
  const uint64_t full_tiles = loader.full_tiles();
  const bool first_tile_full = blockIdx.x < full_tiles;
  uint64_t tile = blockIdx.x;
  if constexpr (Kind == kernel_kind::bulk && bulk::kCompiled && Loader::items_t::kElements > 1) {
    constexpr unsigned kStages = compiled_policy().bulk_stages;
    extern __shared__ __align__(128) unsigned char bulk_stages[];  // kStages wide tiles
    __shared__ uint64_t stage_full[kStages];
    if (first_tile_full) tile = bulk_read_full_tiles<kStages>(loader, tile, gridDim.x, bulk_stages, stage_full, fold_tile);
  } else if (first_tile_full) {
    const auto fold_full_tile = [&](uint64_t t) {
      item v[kInFlight];
      loader.load_full(t, v);
      fold_tile(v, t);
    };
    fold_full_tile(tile);
    for (tile += gridDim.x; tile < full_tiles; tile += gridDim.x) fold_full_tile(tile);
  }
  // The fold's item numbers come from `first`, computed once: recomputed at each use, ptxas sinks the
  // last load into the fold's branch (the live SASS test holds this).
  const auto fold_partial_tile = [&](uint64_t t) {
    const uint64_t first = t * Loader::kTile + threadIdx.x;
    const unsigned in_tile = loader.items_in(t);
    item v[kInFlight];
    loader.load_partial(t, v);
#pragma unroll
    for (unsigned k = 0; k < kInFlight; ++k)
      if (threadIdx.x + k * Loader::kThreads < in_tile) f.add_item(loader.items, v[k], first + k * Loader::kThreads);
  };
  if (tile == full_tiles && tile * Loader::kTile < loader.items.vectors) fold_partial_tile(tile);
  return first_tile_full;
}

// The threads holding a value form a prefix of the block: those with an item in its first tile
// (all of them where that tile is full), and in block 0 those with a head or tail element. The
// count is the same for the whole block (0 only for n = 0, in one block).
template <class Loader>
__device__ __forceinline__ int threads_with_values(const Loader& loader, bool first_tile_full, unsigned head,
                                                   unsigned tail) {
  int valid = int(Loader::kThreads);
  if (!first_tile_full) {
    const uint64_t first_item = uint64_t(blockIdx.x) * Loader::kTile;
    valid = loader.items.vectors > first_item ? int(loader.items.vectors - first_item) : 0;  // < kTile here
    valid = min(valid, int(Loader::kThreads));
    if (blockIdx.x == 0) valid = max(valid, int(max(head, tail)));
  }
  return valid;
}

template <class Params, kernel_kind Kind>
__global__ void __launch_bounds__(kThreads,
                                  (min_blocks_per_sm<typename Params::input, typename Params::accumulator>(
                                      Kind, kCompiledArch)))
    single_pass(const Params p) {
  using T = typename Params::input;
  using Acc = typename Params::accumulator;
  using Op = typename Params::op_type;
  using loader_t = tile_loader<T, kThreads, compiled_policy().vectors(Kind)>;
  __shared__ block::reduce_storage<Acc, kThreads> storage;

  auto combine = grid_combine<Acc, Op, kThreads>::enter(p.temp, p.key, p.timeout_ns);
  const scalar_ends<T> ends = scalar_ends<T>::load(p.in, p.plan, vector_elements<T>);
  const loader_t loader{{p.in, p.plan.head, p.plan.vectors}};
  thread_fold<Acc, Op, typename Params::form_type> f{Acc{}, false, p.op, p.form};
  const bool first_tile_full = fold_block_tiles<Kind>(loader, f);
  ends.fold_into(f);
  const int valid = threads_with_values(loader, first_tile_full, ends.head, ends.tail);

  combine.before_block_reduce();
  // valid is the block's own, so every thread or none reaches the barriers inside; a block whose
  // threads all hold a value skips the lane tests.
  const Acc block_total = first_tile_full ? block::reduce_all<kThreads>(f.acc, p.op, storage)
                          : valid         ? block::reduce<kThreads>(f.acc, p.op, valid, storage)
                                          : Acc{};
  if (gridDim.x == 1) {  // one block: no partials
    if (threadIdx.x == 0) *p.out = p.form.finish(p.op, p.init, block_total, valid > 0);
    return;
  }
  if (!combine.combiner) {
    combine.store_partial(block_total);
    return;
  }
  using Out = std::remove_pointer_t<decltype(p.out)>;
  combine.finish(
      block_total, p.op, storage, [&](const Acc& total) { *p.out = p.form.finish(p.op, p.init, total, true); },
      [&] { *p.out = stalled_result<Out>(); });
}

}  // namespace warpfold::detail
