#pragma once
// Host conversions between double and every element type the reduce supports, the 16-bit
// floating-point types included (their conversions are host-callable in cuda_fp16.h/cuda_bf16.h).
// CPU references and random inputs go through these.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

namespace warpfold::harness {

template <class T>
double to_double(const T& x) {
  if constexpr (std::is_same_v<T, __half>) return double(__half2float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return double(__bfloat162float(x));
  else return double(x);
}

template <class T>
T from_double(double x) {
  if constexpr (std::is_same_v<T, __half>) return __float2half(float(x));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16(float(x));
  else return T(x);
}

}  // namespace warpfold::harness
