#pragma once
// Builds the module's full-reduce entries (entries.hpp) from the library's public API:
// warpfold::reduce for the folds, warpfold::argmin / argmax for the index searches,
// warpfold::reproducible_sum for the reproducible sums. Included by each entries_*.cu, which lists
// the signatures of its dtype family (entries_axis.cuh builds on it for reduces along an axis and
// per segment).

#include "entries.hpp"

#include <warpfold/ops.cuh>
#include <warpfold/reduce.cuh>
#include <warpfold/reproducible.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace warpfold::python {

// The dtype names the Python side uses for each C++ type.
template <class T>
constexpr const char* dtype_name() {
  if constexpr (std::is_same_v<T, int8_t>) return "int8";
  else if constexpr (std::is_same_v<T, uint8_t>) return "uint8";
  else if constexpr (std::is_same_v<T, int16_t>) return "int16";
  else if constexpr (std::is_same_v<T, uint16_t>) return "uint16";
  else if constexpr (std::is_same_v<T, int32_t>) return "int32";
  else if constexpr (std::is_same_v<T, uint32_t>) return "uint32";
  else if constexpr (std::is_same_v<T, int64_t>) return "int64";
  else if constexpr (std::is_same_v<T, uint64_t>) return "uint64";
  else if constexpr (std::is_same_v<T, __half>) return "float16";
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return "bfloat16";
  else if constexpr (std::is_same_v<T, float>) return "float32";
  else if constexpr (std::is_same_v<T, double>) return "float64";
  else static_assert(sizeof(T) == 0, "a dtype the module has no name for");
}

template <class T>
inline constexpr bool is_float_like = std::is_floating_point_v<T> || std::is_same_v<T, __half> ||
                                      std::is_same_v<T, __nv_bfloat16>;

// The largest and smallest value of T, infinities for floating types: the starting values of
// min and max (the Python side never asks either of an empty array).
template <class T>
T highest() {
  if constexpr (is_float_like<T>) return T(std::numeric_limits<float>::infinity());
  else return std::numeric_limits<T>::max();
}
template <class T>
T lowest() {
  if constexpr (is_float_like<T>) return T(-std::numeric_limits<float>::infinity());
  else return std::numeric_limits<T>::lowest();
}

// The folds: an operator of ops.cuh, the name Python knows it by and its starting value. A float
// sum starts from -0.0, the identity of IEEE addition (+0.0 would turn a sum of -0.0 into +0.0).
// Integer sums and products accumulate in unsigned types: they wrap modulo 2^bits by definition,
// which gives the two's-complement bits of the signed result as well.
template <class Op>
constexpr const char* fold_name() {
  if constexpr (std::is_same_v<Op, warpfold::plus>) return "sum";
  else if constexpr (std::is_same_v<Op, warpfold::multiplies>) return "prod";
  else if constexpr (std::is_same_v<Op, warpfold::minimum>) return "min";
  else if constexpr (std::is_same_v<Op, warpfold::maximum>) return "max";
  else if constexpr (std::is_same_v<Op, warpfold::bit_and>) return "and";
  else if constexpr (std::is_same_v<Op, warpfold::bit_or>) return "or";
  else if constexpr (std::is_same_v<Op, warpfold::bit_xor>) return "xor";
  else static_assert(sizeof(Op) == 0, "an operator the module has no name for");
}

template <class Op, class Acc>
Acc fold_init() {
  if constexpr (std::is_same_v<Op, warpfold::plus>) return std::is_floating_point_v<Acc> ? Acc(-0.0) : Acc(0);
  else if constexpr (std::is_same_v<Op, warpfold::multiplies>) return Acc(1);
  else if constexpr (std::is_same_v<Op, warpfold::minimum>) return highest<Acc>();
  else if constexpr (std::is_same_v<Op, warpfold::maximum>) return lowest<Acc>();
  else if constexpr (std::is_same_v<Op, warpfold::bit_and>) return Acc(~Acc(0));
  else return Acc(0);  // bit_or, bit_xor
}

template <class T, class Acc, class Out>
std::string entry_key(const char* op) {
  return std::string(op) + "/" + dtype_name<T>() + "/" + dtype_name<Acc>() + "/" + dtype_name<Out>();
}

// --- folds into the accumulator type ----------------------------------------------------------

template <class Op, class T, class Acc>
cudaError_t fold_temp_bytes(size_t& bytes) {
  return warpfold::reduce(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<Acc*>(nullptr), 0, Op{},
                          fold_init<Op, Acc>(), nullptr);
}

template <class Op, class T, class Acc>
cudaError_t fold_run(void* temp, size_t temp_bytes, const void* in, void* out, uint64_t n, cudaStream_t stream) {
  return warpfold::reduce(temp, temp_bytes, static_cast<const T*>(in), static_cast<Acc*>(out), n, Op{},
                          fold_init<Op, Acc>(), stream);
}

// --- results staged in temp storage and converted ----------------------------------------------
// warpfold writes its accumulator type (or key_value for argmin/argmax) only. Where the result
// has another type (a float accumulator returned as float16 or bfloat16, an argmin's position as
// int64), the fold writes into the end of the temp storage and convert_results turns each staged
// value into the result: the fold's own temp storage, 16-byte aligned, then the staged values.

constexpr size_t kSlotBytes = 16;
constexpr size_t align_slot(size_t bytes) { return (bytes + kSlotBytes - 1) / kSlotBytes * kSlotBytes; }
inline size_t staged_bytes(uint64_t count, size_t size) { return align_slot(size_t(count) * size); }

template <class Out, class Acc>
__device__ Out converted(const Acc& value) {
  return Out(value);
}
template <class Out, class T>
__device__ Out converted(const warpfold::key_value<T>& value) {
  return Out(value.index);
}

template <class Stage, class Out>
__global__ void convert_results(const Stage* staged, Out* out, uint64_t count) {
  const uint64_t step = uint64_t(gridDim.x) * blockDim.x;
  for (uint64_t i = uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += step) {
    out[i] = converted<Out>(staged[i]);
  }
}

// The temp storage of a fold needing fold_bytes, with `count` staged values of Stage after it.
template <class Stage>
size_t with_stage(size_t fold_bytes, uint64_t count) {
  return align_slot(fold_bytes) + staged_bytes(count, sizeof(Stage));
}

// Runs fold(fold_temp_bytes, staged) into the staged values at the end of `temp`, then converts
// them into out[0, count).
template <class Stage, class Out, class Fold>
cudaError_t run_staged(void* temp, size_t temp_bytes, void* out, uint64_t count, cudaStream_t stream, Fold fold) {
  const size_t stage = staged_bytes(count, sizeof(Stage));
  if (temp_bytes < stage) return cudaErrorInvalidValue;
  const size_t fold_bytes = (temp_bytes - stage) / kSlotBytes * kSlotBytes;
  Stage* staged = reinterpret_cast<Stage*>(static_cast<unsigned char*>(temp) + fold_bytes);
  if (cudaError_t rc = fold(fold_bytes, staged); rc != cudaSuccess || count == 0) return rc;
  constexpr unsigned kConvertThreads = 256, kMaxBlocks = 4096;
  const uint64_t wanted = (count + kConvertThreads - 1) / kConvertThreads;
  const unsigned blocks = unsigned(wanted < kMaxBlocks ? wanted : kMaxBlocks);
  Out* typed_out = static_cast<Out*>(out);
  const Stage* staged_in = staged;
  void* args[] = {&staged_in, &typed_out, &count};
  return cudaLaunchKernel(reinterpret_cast<const void*>(&convert_results<Stage, Out>), dim3(blocks),
                          dim3(kConvertThreads), args, 0, stream);
}

// --- folds whose result is narrowed (a float accumulator returned as float16 or bfloat16) --------
// The public reduce writes its accumulator's type. The dispatch under it writes any output type,
// converting the one total it writes, so a narrowed result needs no staging and no second kernel
// (whose launch doubled a small call's host time).

template <class Op, class T, class Acc, class Out>
cudaError_t narrowed_temp_bytes(size_t& bytes) {
  return warpfold::detail::dispatch_reduce(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<Out*>(nullptr),
                                           0, fold_init<Op, Acc>(), Op{},
                                           warpfold::detail::convert<warpfold::identity>{}, nullptr);
}

template <class Op, class T, class Acc, class Out>
cudaError_t narrowed_run(void* temp, size_t temp_bytes, const void* in, void* out, uint64_t n, cudaStream_t stream) {
  return warpfold::detail::dispatch_reduce(temp, temp_bytes, static_cast<const T*>(in), static_cast<Out*>(out), n,
                                           fold_init<Op, Acc>(), Op{}, warpfold::detail::convert<warpfold::identity>{},
                                           stream);
}

// --- reproducible sums ----------------------------------------------------------------------------
// warpfold::reproducible_sum: bits that depend on the values alone. A float16 or bfloat16 result is
// the float sum converted by the same kernel (the library's binned fold with a narrower output).

// The library's binned sum of T into Out: its own float or double, or float16 or bfloat16
// written through the form's finish. The library's reproducible_sum is the first case.
template <class T, class Out>
cudaError_t binned_sum(void* temp, size_t& temp_bytes, const void* in, void* out, uint64_t n, cudaStream_t stream) {
  using Sum = warpfold::reproducible_sum_t<T>;
  return warpfold::detail::dispatch_binned(temp, temp_bytes, static_cast<const T*>(in), static_cast<Out*>(out), n,
                                           warpfold::detail::binned_sum_form<Sum>{}, stream);
}

// The module asks once per entry, so the query is for many elements: binned sums take the wide
// kernel above a few MiB, whose grid the query must cover, and below it a grid no larger.
template <class T, class Out>
cudaError_t reproducible_temp_bytes(size_t& bytes) {
  constexpr uint64_t kMany = uint64_t(1) << 40;
  return binned_sum<T, Out>(nullptr, bytes, nullptr, nullptr, kMany, nullptr);
}

template <class T, class Out>
cudaError_t reproducible_run(void* temp, size_t temp_bytes, const void* in, void* out, uint64_t n,
                             cudaStream_t stream) {
  return binned_sum<T, Out>(temp, temp_bytes, in, out, n, stream);
}

// --- argmin / argmax ----------------------------------------------------------------------------
// The result is a key_value<T>: 16 bytes, the index (uint64) at byte 8, where the Python side
// reads it as the second of two int64 words.

template <class T>
constexpr bool index_at_byte_8() {
  return sizeof(warpfold::key_value<T>) == 16 && offsetof(warpfold::key_value<T>, index) == 8;
}

template <bool Max, class T>
cudaError_t search_temp_bytes(size_t& bytes) {
  auto* out = static_cast<warpfold::key_value<T>*>(nullptr);
  if constexpr (Max) return warpfold::argmax(nullptr, bytes, static_cast<const T*>(nullptr), out, 0, nullptr);
  else return warpfold::argmin(nullptr, bytes, static_cast<const T*>(nullptr), out, 0, nullptr);
}

template <bool Max, class T>
cudaError_t search_run(void* temp, size_t temp_bytes, const void* in, void* out, uint64_t n, cudaStream_t stream) {
  static_assert(index_at_byte_8<T>(), "the Python side reads the index at byte 8");
  auto* typed_out = static_cast<warpfold::key_value<T>*>(out);
  if constexpr (Max) return warpfold::argmax(temp, temp_bytes, static_cast<const T*>(in), typed_out, n, stream);
  else return warpfold::argmin(temp, temp_bytes, static_cast<const T*>(in), typed_out, n, stream);
}

// --- what each family lists -----------------------------------------------------------------------

// Fold of T into each accumulator in Accs, the result of the accumulator's own type.
template <class Op, class T, class... Accs>
void add_folds(entry_table& table) {
  (table.full.push_back(
       {entry_key<T, Accs, Accs>(fold_name<Op>()), &fold_temp_bytes<Op, T, Accs>, &fold_run<Op, T, Accs>}),
   ...);
}

// Sums and products of T into each accumulator in Accs.
template <class T, class... Accs>
void add_sums_and_products(entry_table& table) {
  add_folds<warpfold::plus, T, Accs...>(table);
  add_folds<warpfold::multiplies, T, Accs...>(table);
}

// Fold of T in float, the result converted to each type in Outs.
template <class Op, class T, class... Outs>
void add_narrowed_folds(entry_table& table) {
  (table.full.push_back({entry_key<T, float, Outs>(fold_name<Op>()), &narrowed_temp_bytes<Op, T, float, Outs>,
                         &narrowed_run<Op, T, float, Outs>}),
   ...);
}

// Sums and products of T in float, the result converted to each type in Outs.
template <class T, class... Outs>
void add_narrowed_sums_and_products(entry_table& table) {
  add_narrowed_folds<warpfold::plus, T, Outs...>(table);
  add_narrowed_folds<warpfold::multiplies, T, Outs...>(table);
}

// min, max, argmin and argmax of each type in Ts (min and max fold in the type itself).
template <class... Ts>
void add_searches(entry_table& table) {
  (add_folds<warpfold::minimum, Ts, Ts>(table), ...);
  (add_folds<warpfold::maximum, Ts, Ts>(table), ...);
  (table.full.push_back({entry_key<Ts, Ts, int64_t>("argmin"), &search_temp_bytes<false, Ts>, &search_run<false, Ts>}),
   ...);
  (table.full.push_back({entry_key<Ts, Ts, int64_t>("argmax"), &search_temp_bytes<true, Ts>, &search_run<true, Ts>}),
   ...);
}

// Reproducible sums of T, the result of each type in Outs ("reproducible_sum/T/float or double/Out").
template <class T, class... Outs>
void add_reproducible_sums(entry_table& table) {
  constexpr uint64_t capacity = warpfold::detail::binned_params<warpfold::reproducible_sum_t<T>>::capacity;
  (table.full.push_back({entry_key<T, warpfold::reproducible_sum_t<T>, Outs>("reproducible_sum"),
                         &reproducible_temp_bytes<T, Outs>, &reproducible_run<T, Outs>, capacity}),
   ...);
}

// and, or, xor of each unsigned type in Us (signed inputs share them: the bits are the same).
template <class... Us>
void add_bitwise(entry_table& table) {
  static_assert((std::is_unsigned_v<Us> && ...), "bitwise folds are listed once, for the unsigned type");
  (add_folds<warpfold::bit_and, Us, Us>(table), ...);
  (add_folds<warpfold::bit_or, Us, Us>(table), ...);
  (add_folds<warpfold::bit_xor, Us, Us>(table), ...);
}

}  // namespace warpfold::python
