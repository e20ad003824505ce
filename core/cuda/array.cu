// The array CUDA kernel: one strided copy that every op moving data without arithmetic
// is a case of (transpose, broadcast_like, pad, crop, concat: core/cuda/array_plan.h
// says how). A thread per element of the box finds its element's place in both arrays
// from its flat index; elements move as bits of their width, whatever their dtype.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/array_launch.h"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

template <typename Bits>
__global__ void strided_copy_kernel(const Bits* in, Bits* out, StridedCopy c, std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    std::int64_t rest = i, from = c.in_offset, to = c.out_offset;
    for (int d = c.rank - 1; d >= 0; --d) {
      const std::int64_t at = rest % c.dims[d];
      rest /= c.dims[d];
      from += at * c.in_strides[d];
      to += at * c.out_strides[d];
    }
    out[to] = in[from];
  }
}

template <typename Bits>
void launch(const void* in, void* out, const StridedCopy& copy, std::int64_t n, CUstream_st* stream) {
  strided_copy_kernel<<<blocks_for(n), kThreads, 0, stream>>>(static_cast<const Bits*>(in), static_cast<Bits*>(out),
                                                              copy, n);
}

}  // namespace

void launch_strided_copy(ElementType type, const void* in, void* out, const StridedCopy& copy, CUstream_st* stream) {
  std::int64_t n = 1;
  for (int d = 0; d < copy.rank; ++d) n *= copy.dims[d];
  if (n == 0) return;
  switch (type) {
    case ElementType::float32:
    case ElementType::int32: launch<std::uint32_t>(in, out, copy, n, stream); break;
    case ElementType::int64: launch<std::uint64_t>(in, out, copy, n, stream); break;
  }
}

}  // namespace strata::cuda
