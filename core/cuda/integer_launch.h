// Launchers of the integer ops' CUDA kernels (core/cuda/integer.cu), called by
// core/cuda/elementwise_kernels.cc, which registers them. Plain pointers and sizes only, so that nvcc compiles
// integer.cu without the engine's headers. Each enqueues on `stream` and returns at once;
// n == 0 launches nothing. Launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/element_type.h"
#include "core/cuda/elementwise_launch.h"  // BroadcastIndex
#include "core/integer_math.h"

struct CUstream_st;

namespace strata::cuda {

// out[i] = op(a[a_full ? i : 0], b[b_full ? i : 0]) for i < n, all three of `type` (int32
// or int64).
void launch_integer_binary(integer_math::IntegerOp op, ElementType type, const void* a, bool a_full, const void* b,
                           bool b_full, void* out, std::int64_t n, CUstream_st* stream);
// out[i] = op(a[offset_a(i)], b[offset_b(i)]) for i < n, offsets from `index`.
void launch_integer_binary_broadcast(integer_math::IntegerOp op, ElementType type, const void* a, const void* b,
                                     void* out, std::int64_t n, const BroadcastIndex& index, CUstream_st* stream);
// out[i] = ~x[i].
void launch_bitwise_not(ElementType type, const void* x, void* out, std::int64_t n, CUstream_st* stream);

}  // namespace strata::cuda
