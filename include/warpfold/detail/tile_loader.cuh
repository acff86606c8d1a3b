#pragma once
// The tile loader: reads a range of elements at any alignment as a scalar head, a body of 16-byte
// vectors in tiles, and a scalar tail (reduce_plan.hpp's split). A tile is Threads × InFlight
// vectors that lie next to each other in memory; thread t loads vectors t, t + Threads, ... of
// it, all before using any, so that a tile costs one memory round trip. The full, segmented and
// axis reductions read through it; what is done with the elements (the fold) is the caller's.

#include <warpfold/detail/bulk_copy.cuh>
#include <warpfold/detail/reduce_policy.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace warpfold::detail {

// 16 bytes of T.
template <class T, unsigned N>
struct alignas(16) vector_of {
  T v[N];
};

// One 16-byte vector through the read-only path (ld.global.nc), one instruction, no cache hint
// (the hints cost time: docs/design.md's decision record).
template <class T, unsigned N>
__device__ __forceinline__ vector_of<T, N> load_vector(const vector_of<T, N>* p) {
  static_assert(sizeof(vector_of<T, N>) == 16, "vector loads are 16 bytes");
  uint4 raw;
  asm volatile("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(raw.x), "=r"(raw.y), "=r"(raw.z), "=r"(raw.w)
               : "l"(p));
  vector_of<T, N> out;
  memcpy(&out, &raw, 16);
  return out;
}

// The items of a range of T: 16-byte vectors where T tiles 16 bytes, T itself otherwise. Item i
// holds elements head + i·kElements … + kElements - 1 of the range.
template <class T>
struct range_items {
  using element = T;
  static constexpr unsigned kElements = vector_elements<T>;
  using vector = vector_of<T, kElements>;
  using item = std::conditional_t<(kElements > 1), vector, T>;

  const T* in;       // element 0 of the range
  uint64_t head;     // scalar elements before the first vector
  uint64_t vectors;  // items in the body

  __device__ __forceinline__ const vector* body() const { return reinterpret_cast<const vector*>(in + head); }
  __device__ __forceinline__ item load(uint64_t i) const {
    if constexpr (kElements > 1) return load_vector(body() + i);
    else return in[i];
  }
  // The range index of element j of item i.
  __device__ __forceinline__ uint64_t element_index(uint64_t i, unsigned j) const { return head + i * kElements + j; }
  // Calls visit(element, index) for each element of item v, number i, in order.
  template <class Visit>
  __device__ __forceinline__ static void for_each(const item& v, uint64_t first_index, Visit&& visit) {
    if constexpr (kElements > 1) {
#pragma unroll
      for (unsigned j = 0; j < kElements; ++j) visit(v.v[j], first_index + j);
    } else {
      visit(v, first_index);
    }
  }
};

// Tiles of Threads × InFlight items of a range, read by the calling block. Items: the range's
// items (range_items; a strided range's elements for the axis reductions).
template <class T, unsigned Threads, unsigned InFlight, class Items = range_items<T>>
struct tile_loader {
  using items_t = Items;
  using item = typename items_t::item;
  static constexpr unsigned kThreads = Threads;
  static constexpr unsigned kInFlight = InFlight;
  static constexpr uint64_t kTile = uint64_t(Threads) * InFlight;

  items_t items;

  __device__ __forceinline__ uint64_t full_tiles() const { return items.vectors / kTile; }
  // Thread t's item k of a tile: t + k·Threads.
  __device__ __forceinline__ uint64_t item_of(uint64_t tile, unsigned k) const {
    return tile * kTile + threadIdx.x + k * Threads;
  }
  // A whole tile's items, every load in flight before any is used.
  __device__ __forceinline__ void load_full(uint64_t tile, item (&v)[InFlight]) const {
#pragma unroll
    for (unsigned k = 0; k < InFlight; ++k) v[k] = items.load(item_of(tile, k));
  }
  // A partial tile (the body's last): every thread loads, past the body's end the last item
  // again. Unconditional loads go out together; ptxas splits predicated ones.
  __device__ __forceinline__ void load_partial(uint64_t tile, item (&v)[InFlight]) const {
#pragma unroll
    for (unsigned k = 0; k < InFlight; ++k) v[k] = items.load(min(item_of(tile, k), items.vectors - 1));
  }
  // load_partial's loads, clamped in 32 bits within the tile (tile · kTile < items.vectors). The
  // segments kernel's partial tile is often a segment's only one: with 64-bit clamps there, some
  // builds have ptxas fill the gaps between the loads with the first item's fold, and the later
  // loads wait for the first.
  __device__ __forceinline__ void load_partial_in_tile(uint64_t tile, item (&v)[InFlight]) const {
    const uint64_t first = tile * kTile;
    const unsigned last = items_in(tile) - 1;
#pragma unroll
    for (unsigned k = 0; k < InFlight; ++k) v[k] = items.load(first + min(threadIdx.x + k * Threads, last));
  }
  // How many of a partial tile's items are in the body (at least 1).
  __device__ __forceinline__ unsigned items_in(uint64_t tile) const {
    const uint64_t left = items.vectors - tile * kTile;
    return unsigned(left < kTile ? left : kTile);
  }
};

// Reads every full tile of `loader` from `first` on, `step` apart, by bulk copies into shared
// memory (bulk_copy.cuh), handing each to use_tile(v, tile) as load_full would have. Every thread
// of the block calls it, or none. Returns the first tile at or past the full ones.
template <unsigned Stages, class Loader, class UseTile>
__device__ __forceinline__ uint64_t bulk_read_full_tiles(const Loader& loader, uint64_t first, uint64_t step,
                                                         unsigned char* stages, uint64_t (&stage_full)[Stages],
                                                         UseTile&& use_tile) {
  return bulk::fold_tiles<Loader::kThreads, Loader::kInFlight, Stages>(loader.items.body(), first, step,
                                                                       loader.full_tiles(), stages, stage_full,
                                                                       use_tile);
}

}  // namespace warpfold::detail
