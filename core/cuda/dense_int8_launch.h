// Launchers of dense_int8's CUDA kernels (core/cuda/dense_int8.cu), called by
// core/cuda/matmul_kernels.cc: Keras's int8 Dense product (core/ops.h, dense_int8), in
// the arithmetic of the CPU kernel (core/cpu/kernels/matmul.cc). Plain pointers and sizes
// only. Each enqueues on `stream` and returns at once; launch errors are for the caller to
// check.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

// Each row of x (rows × in) as Keras's AbsMaxQuantizer makes it: scales[r] = 127 /
// (max |x[r]| + 1e-7) and q[r] = clip(round_half_even(x[r] · scale), -127, 127); a row with
// NaN or an infinity gets a NaN scale and zeros.
void launch_quantize_rows_int8(const float* x, std::int64_t rows, std::int64_t in, std::int8_t* q, float* scales,
                               CUstream_st* stream);

// y (rows × units) = float(q · kernel, summed in int32) / (kernel_scale · scales[row]), the
// kernel (in × units) holding int8 values as float32 integers; plus bias (units, or null),
// then relu where asked (NaN becomes 0, as the relu op's).
void launch_dense_int8_product(const std::int8_t* q, const float* scales, const float* kernel,
                               const float* kernel_scale, const float* bias, bool relu, std::int64_t rows,
                               std::int64_t in, std::int64_t units, float* y, CUstream_st* stream);

}  // namespace strata::cuda
