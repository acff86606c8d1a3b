#pragma once
// Host entry points of the nested kernels (nested.cuh). They live in their own
// static library, the only one built with relocatable device code and linked against the device
// runtime (cudadevrt), so the rest of the build keeps whole-program compilation.

#include "lab/nested/nested_launch_record.hpp"

#include <cuda_runtime_api.h>

#include <string_view>

namespace warpfold::lab {

// The seed's three nested reductions, in the seed's order.
enum class NestedVariant { nested, nested_nosync, nested2 };

inline constexpr NestedVariant kNestedVariants[] = {NestedVariant::nested, NestedVariant::nested_nosync,
                                                    NestedVariant::nested2};

// Launches the top grid of a nested reduction on `stream`: `data` holds grid × block elements,
// reduced in place; `partials` receives one sum per block. Asynchronous; the caller checks
// cudaGetLastError() for the host-side launch. `block` is a power of two of at least 2.
void launch_nested_reduce(NestedVariant variant, int* data, int* partials, unsigned grid, unsigned block,
                          NestedLaunchRecord* record, cudaStream_t stream);

// Launches nestedHelloWorld<<<grid, block>>>(block, 0) on `stream`. Asynchronous.
void launch_nested_hello(unsigned grid, unsigned block, NestedLaunchRecord* record, cudaStream_t stream);

}  // namespace warpfold::lab
