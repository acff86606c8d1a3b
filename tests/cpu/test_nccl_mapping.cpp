// Which accumulator types and operators the distributed reduce hands to NCCL, as what, and the
// reasons it gives for the rest; the identities the GPUs other than rank 0 start from.
#include <warpfold/distributed/nccl_mapping.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

using namespace warpfold;
using namespace warpfold::distributed;

namespace {

struct user_functor {
  template <class T>
  T operator()(T a, T b) const { return a + b; }
};

template <class Acc, class Op>
std::string reason() {
  const char* r = nccl_unsupported_reason<Acc, Op>();
  return r ? r : "";
}

}  // namespace

TEST(NcclMapping, IntegersMapByWidthAndSign) {
  EXPECT_EQ(nccl_data_type<int8_t>::value, ncclInt8);
  EXPECT_EQ(nccl_data_type<signed char>::value, ncclInt8);
  EXPECT_EQ(nccl_data_type<uint8_t>::value, ncclUint8);
  EXPECT_EQ(nccl_data_type<int32_t>::value, ncclInt32);
  EXPECT_EQ(nccl_data_type<uint32_t>::value, ncclUint32);
  EXPECT_EQ(nccl_data_type<int64_t>::value, ncclInt64);
  EXPECT_EQ(nccl_data_type<long long>::value, ncclInt64);  // a distinct type from int64_t (long) on Linux
  EXPECT_EQ(nccl_data_type<uint64_t>::value, ncclUint64);
  EXPECT_EQ(nccl_data_type<unsigned long long>::value, ncclUint64);
}

TEST(NcclMapping, FloatingTypesMap) {
  EXPECT_EQ(nccl_data_type<__half>::value, ncclFloat16);
  EXPECT_EQ(nccl_data_type<__nv_bfloat16>::value, ncclBfloat16);
  EXPECT_EQ(nccl_data_type<float>::value, ncclFloat32);
  EXPECT_EQ(nccl_data_type<double>::value, ncclFloat64);
}

TEST(NcclMapping, OperatorsMap) {
  EXPECT_EQ(nccl_red_op<plus>::value, ncclSum);
  EXPECT_EQ(nccl_red_op<multiplies>::value, ncclProd);
  EXPECT_EQ(nccl_red_op<minimum>::value, ncclMin);
  EXPECT_EQ(nccl_red_op<maximum>::value, ncclMax);
  EXPECT_TRUE((nccl_can_combine_v<float, plus>));
  EXPECT_TRUE((nccl_can_combine_v<uint8_t, multiplies>));
  EXPECT_EQ((reason<double, maximum>()), "");
}

TEST(NcclMapping, UnsupportedTypesAreRefusedWithTheReason) {
  EXPECT_FALSE(nccl_data_type<int16_t>::supported);
  EXPECT_FALSE(nccl_data_type<uint16_t>::supported);
  EXPECT_FALSE(nccl_data_type<bool>::supported);
  EXPECT_FALSE(nccl_data_type<long double>::supported);
  EXPECT_FALSE(nccl_data_type<key_value<float>>::supported);
  EXPECT_FALSE(nccl_data_type<compensated<double>>::supported);
  EXPECT_FALSE((nccl_can_combine_v<int16_t, plus>));
  EXPECT_NE((reason<int16_t, plus>()).find("does not reduce this accumulator type"), std::string::npos);
  EXPECT_NE((reason<key_value<float>, arg_min>()).find("accumulator type"), std::string::npos);  // the type is named first
}

TEST(NcclMapping, UnsupportedOperatorsAreRefusedWithTheReason) {
  for (const std::string& r : {reason<int32_t, bit_and>(), reason<uint32_t, bit_or>(), reason<int64_t, bit_xor>(),
                               reason<float, user_functor>(), reason<double, compensated_plus>()}) {
    EXPECT_NE(r.find("NCCL has no operator"), std::string::npos) << r;
    EXPECT_NE(r.find("warpfold::plus, multiplies, minimum or maximum"), std::string::npos) << r;
  }
  EXPECT_FALSE((nccl_can_combine_v<int32_t, bit_and>));
  EXPECT_FALSE((nccl_can_combine_v<float, user_functor>));
}

TEST(NcclMapping, IdentitiesLeaveAnyValueUnchanged) {
  EXPECT_EQ((identity_of<int64_t, plus>()), 0);
  EXPECT_EQ((identity_of<uint8_t, multiplies>()), 1);
  EXPECT_EQ((identity_of<int32_t, minimum>()), INT32_MAX);
  EXPECT_EQ((identity_of<int32_t, maximum>()), INT32_MIN);
  EXPECT_EQ((identity_of<uint64_t, maximum>()), 0u);
  EXPECT_EQ((identity_of<float, minimum>()), INFINITY);
  EXPECT_EQ((identity_of<double, maximum>()), -INFINITY);
  EXPECT_EQ(__half2float(identity_of<__half, maximum>()), -INFINITY);
  EXPECT_EQ(__bfloat162float(identity_of<__nv_bfloat16, minimum>()), INFINITY);
  EXPECT_EQ(__half2float(identity_of<__half, multiplies>()), 1.0f);
  // The identity is neutral: op(identity, x) == x.
  for (double x : {-3.5, 0.0, 7.25}) {
    EXPECT_EQ(maximum{}(identity_of<double, maximum>(), x), x);
    EXPECT_EQ(minimum{}(identity_of<double, minimum>(), x), x);
    EXPECT_EQ(plus{}(identity_of<double, plus>(), x), x);
    EXPECT_EQ(multiplies{}(identity_of<double, multiplies>(), x), x);
  }
}
