#pragma once
// Which accumulator types and operators NCCL can combine, as what, and where its arithmetic is
// warpfold's. The distributed reduce hands each GPU's partial result to NCCL, so the accumulator
// type (the type of `init`), not the element type, must be one NCCL carries; the operator must be
// one of NCCL's four built-ins.
//
//   accumulator: int8, uint8, int32, uint32, int64, uint64 (any integer type of those widths),
//                __half, __nv_bfloat16, float, double
//   operator:    warpfold::plus → ncclSum, multiplies → ncclProd, minimum → ncclMin, maximum → ncclMax
//
// Everything else (16-bit integers, bool, key_value / arg_min / arg_max, compensated sums,
// bitwise operators, user functors) is refused at compile time by the distributed functions, with
// the reasons below.
//
// How the partials are combined (combine_path_v), so that the result is warpfold::reduce's on one
// GPU over all the data:
//  * NCCL reduces them (ncclAllReduce / ncclReduce) where its arithmetic agrees: every operator on
//    integers (exact, wrapping as on one GPU), plus and multiplies on floating-point types (IEEE:
//    NaN and infinities propagate as on one GPU; the rounding differs as it differs between two
//    grids on one GPU).
//  * Gathered and folded where it does not: minimum and maximum on floating-point types. NCCL
//    combines those with fmin / fmax (__hmin / __hmax), where a number beats a NaN, while
//    warpfold's operators let a NaN win. Every rank's partial is gathered (ncclAllGather) and
//    folded in rank order by warpfold's own operator on the device (combine_plan.hpp).

#include <warpfold/ops.cuh>

#include <nccl.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <limits>
#include <type_traits>

namespace warpfold::distributed {

// nccl_data_type<Acc>::supported, and ::value, the NCCL type of Acc, where supported.
template <class Acc, class Enable = void>
struct nccl_data_type {
  static constexpr bool supported = false;
};

template <class Acc>
struct nccl_data_type<Acc, std::enable_if_t<std::is_integral_v<Acc> && !std::is_same_v<Acc, bool> &&
                                             (sizeof(Acc) == 1 || sizeof(Acc) == 4 || sizeof(Acc) == 8)>> {
  static constexpr bool supported = true;
  static constexpr ncclDataType_t value = sizeof(Acc) == 1   ? (std::is_signed_v<Acc> ? ncclInt8 : ncclUint8)
                                          : sizeof(Acc) == 4 ? (std::is_signed_v<Acc> ? ncclInt32 : ncclUint32)
                                                             : (std::is_signed_v<Acc> ? ncclInt64 : ncclUint64);
};

#define WARPFOLD_NCCL_DATA_TYPE(T, NCCL_TYPE)               \
  template <>                                               \
  struct nccl_data_type<T> {                                \
    static constexpr bool supported = true;                 \
    static constexpr ncclDataType_t value = NCCL_TYPE;      \
  }
WARPFOLD_NCCL_DATA_TYPE(__half, ncclFloat16);
WARPFOLD_NCCL_DATA_TYPE(__nv_bfloat16, ncclBfloat16);
WARPFOLD_NCCL_DATA_TYPE(float, ncclFloat32);
WARPFOLD_NCCL_DATA_TYPE(double, ncclFloat64);
#undef WARPFOLD_NCCL_DATA_TYPE

// nccl_red_op<Op>::supported, and ::value, NCCL's operator, where supported.
template <class Op>
struct nccl_red_op {
  static constexpr bool supported = false;
};
#define WARPFOLD_NCCL_RED_OP(OP, NCCL_OP)               \
  template <>                                           \
  struct nccl_red_op<OP> {                              \
    static constexpr bool supported = true;             \
    static constexpr ncclRedOp_t value = NCCL_OP;       \
  }
WARPFOLD_NCCL_RED_OP(plus, ncclSum);
WARPFOLD_NCCL_RED_OP(multiplies, ncclProd);
WARPFOLD_NCCL_RED_OP(minimum, ncclMin);
WARPFOLD_NCCL_RED_OP(maximum, ncclMax);
#undef WARPFOLD_NCCL_RED_OP

template <class Acc, class Op>
inline constexpr bool nccl_can_combine_v = nccl_data_type<Acc>::supported && nccl_red_op<Op>::supported;

// The floating-point types NCCL carries (their minimum and maximum differ from warpfold's).
template <class Acc>
inline constexpr bool nccl_floating_v = std::is_floating_point_v<Acc> || std::is_same_v<Acc, __half> ||
                                        std::is_same_v<Acc, __nv_bfloat16>;

enum class combine_path {
  nccl_reduces,   // ncclAllReduce / ncclReduce with NCCL's operator: it agrees with warpfold's
  gathered_fold,  // ncclAllGather, then warpfold's operator folds the partials in rank order
  unsupported     // refused at compile time (nccl_unsupported_reason says why)
};

// How the distributed functions combine partials of type Acc with Op (see the top of this file).
template <class Acc, class Op>
inline constexpr combine_path combine_path_v =
    !nccl_can_combine_v<Acc, Op> ? combine_path::unsupported
    : nccl_floating_v<Acc> && (std::is_same_v<Op, minimum> || std::is_same_v<Op, maximum>)
        ? combine_path::gathered_fold
        : combine_path::nccl_reduces;

// Why NCCL cannot combine partials of type Acc with Op, or nullptr when it can. The distributed
// functions state the same reasons in their static_asserts.
template <class Acc, class Op>
constexpr const char* nccl_unsupported_reason() {
  if constexpr (!nccl_data_type<Acc>::supported) {
    return "NCCL does not reduce this accumulator type: use int8, uint8, int32, uint32, int64, uint64, "
           "__half, __nv_bfloat16, float or double (the type of init)";
  } else if constexpr (!nccl_red_op<Op>::supported) {
    return "NCCL has no operator for this one: use warpfold::plus, multiplies, minimum or maximum "
           "(bitwise operators, arg_min, arg_max, compensated sums and user functors have no NCCL equivalent)";
  } else {
    return nullptr;
  }
}

namespace detail {
template <class Acc>
Acc acc_from_double(double x) {
  if constexpr (std::is_same_v<Acc, __half>) return __float2half(float(x));
  else if constexpr (std::is_same_v<Acc, __nv_bfloat16>) return __float2bfloat16(float(x));
  else return static_cast<Acc>(x);
}
template <class Acc>
Acc largest_of() {
  if constexpr (std::is_integral_v<Acc>) return std::numeric_limits<Acc>::max();
  else return acc_from_double<Acc>(HUGE_VAL);  // +inf in every floating type
}
template <class Acc>
Acc smallest_of() {
  if constexpr (std::is_integral_v<Acc>) return std::numeric_limits<Acc>::lowest();
  else return acc_from_double<Acc>(-HUGE_VAL);
}
}  // namespace detail

// The identity of Op on Acc: what a GPU that must not contribute `init` starts from (0 for plus,
// 1 for multiplies, the largest value or +inf for minimum, the smallest or -inf for maximum).
template <class Acc, class Op>
Acc identity_of() {
  static_assert(nccl_red_op<Op>::supported, "identity_of: only NCCL's four operators have a known identity");
  if constexpr (std::is_same_v<Op, plus>) return detail::acc_from_double<Acc>(0);
  else if constexpr (std::is_same_v<Op, multiplies>) return detail::acc_from_double<Acc>(1);
  else if constexpr (std::is_same_v<Op, minimum>) return detail::largest_of<Acc>();
  else return detail::smallest_of<Acc>();
}

}  // namespace warpfold::distributed
