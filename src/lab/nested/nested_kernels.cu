// The nested kernels' host launches. This is the one translation unit compiled with relocatable
// device code (a kernel that launches kernels needs it), see src/CMakeLists.txt.
#include "lab/nested/nested_kernels.hpp"

#include "lab/nested/nested.cuh"

namespace warpfold::lab {

void launch_nested_reduce(NestedVariant variant, int* data, int* partials, unsigned grid, unsigned block,
                          NestedLaunchRecord* record, cudaStream_t stream) {
  switch (variant) {
    case NestedVariant::nested:
      nested::gpuRecursiveReduce<<<grid, block, 0, stream>>>(data, partials, block, record);
      return;
    case NestedVariant::nested_nosync:
      nested::gpuRecursiveReduceNosync<<<grid, block, 0, stream>>>(data, partials, block, record);
      return;
    case NestedVariant::nested2:
      // The book's host launch: half the threads, each folding a pair of the block's tile.
      nested::gpuRecursiveReduce2<<<grid, block / 2, 0, stream>>>(data, partials, static_cast<int>(block / 2),
                                                                 static_cast<int>(block), record);
      return;
  }
}

void launch_nested_hello(unsigned grid, unsigned block, NestedLaunchRecord* record, cudaStream_t stream) {
  nested::nestedHelloWorld<<<grid, block, 0, stream>>>(static_cast<int>(block), 0, record);
}

}  // namespace warpfold::lab
