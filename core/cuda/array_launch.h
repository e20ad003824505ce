// Launcher of the array CUDA kernel (core/cuda/array.cu), called by
// core/cuda/array_kernels.cc. Plain pointers and sizes only. Enqueues on `stream` and
// returns at once; a box with no elements launches nothing. Launch errors are for the
// caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/element_type.h"
#include "core/cuda/elementwise_launch.h"  // kMaxLaunchRank

struct CUstream_st;

namespace strata::cuda {

// A box of elements moved from one strided array to another. The box's element at the
// multi-index i (row-major over dims) is read at in_offset + sum(i[d] * in_strides[d])
// and written at out_offset + sum(i[d] * out_strides[d]), all in elements. A stride of 0
// reads one element for every index along that dim (a broadcast). Rank 0 is one element.
struct StridedCopy {
  int rank = 0;
  std::int64_t dims[kMaxLaunchRank] = {};
  std::int64_t in_strides[kMaxLaunchRank] = {};
  std::int64_t out_strides[kMaxLaunchRank] = {};
  std::int64_t in_offset = 0;
  std::int64_t out_offset = 0;
};

// Moves the box's elements of type `type` from `in` to `out` as they are (their bits: no
// conversion, so a NaN's payload survives), a thread per element. Elements the box does
// not cover are left as they were.
void launch_strided_copy(ElementType type, const void* in, void* out, const StridedCopy& copy, CUstream_st* stream);

}  // namespace strata::cuda
