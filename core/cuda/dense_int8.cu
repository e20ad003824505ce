// dense_int8's CUDA kernels (core/cuda/dense_int8_launch.h): a block per row quantizes it
// (its largest magnitude reduced in shared memory), then a thread per output sums its
// int8 products in int32, exactly, as the CPU's int8 GEMM does.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/dense_int8_launch.h"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

__global__ void quantize_rows_int8_kernel(const float* __restrict__ x, std::int64_t rows, std::int64_t in,
                                          std::int8_t* __restrict__ q, float* __restrict__ scales) {
  __shared__ float largest[kThreads];
  __shared__ int finite[kThreads];
  for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const float* row = x + r * in;
    float m = 0.f;
    int ok = 1;
    for (std::int64_t i = threadIdx.x; i < in; i += blockDim.x) {
      ok &= isfinite(row[i]) ? 1 : 0;
      m = fmaxf(m, fabsf(row[i]));
    }
    largest[threadIdx.x] = m;
    finite[threadIdx.x] = ok;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (static_cast<int>(threadIdx.x) < half) {
        largest[threadIdx.x] = fmaxf(largest[threadIdx.x], largest[threadIdx.x + half]);
        finite[threadIdx.x] &= finite[threadIdx.x + half];
      }
      __syncthreads();
    }
    const bool row_finite = finite[0] != 0;
    const float scale = __fdiv_rn(127.f, __fadd_rn(largest[0], 1e-7f));
    if (threadIdx.x == 0) scales[r] = row_finite ? scale : __int_as_float(0x7fc00000);
    for (std::int64_t i = threadIdx.x; i < in; i += blockDim.x) {
      const float v = fminf(fmaxf(rintf(__fmul_rn(row[i], scale)), -127.f), 127.f);
      q[r * in + i] = row_finite ? static_cast<std::int8_t>(v) : std::int8_t{0};
    }
    __syncthreads();  // the shared sums are the next row's
  }
}

__global__ void dense_int8_product_kernel(const std::int8_t* __restrict__ q, const float* __restrict__ scales,
                                          const float* __restrict__ kernel, const float* __restrict__ kernel_scale,
                                          const float* __restrict__ bias, bool relu, std::int64_t rows,
                                          std::int64_t in, std::int64_t units, float* __restrict__ y) {
  const std::int64_t n = rows * units;
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t r = o / units, j = o - r * units;
    const std::int8_t* row = q + r * in;
    std::int32_t sum = 0;
    for (std::int64_t i = 0; i < in; ++i) {
      // As the CPU kernel reads it: rounded into int8's range, NaN as 0 (a kernel set by
      // hand may hold anything; Keras's holds integers in [-127, 127]).
      const float w = kernel[i * units + j];
      const std::int32_t k = isnan(w) ? 0 : __float2int_rn(fminf(fmaxf(w, -128.f), 127.f));
      sum += static_cast<std::int32_t>(row[i]) * k;
    }
    float v = __fdiv_rn(static_cast<float>(sum), __fmul_rn(kernel_scale[j], scales[r]));
    if (bias) v = __fadd_rn(v, bias[j]);
    y[o] = relu ? (v > 0.f ? v : 0.f) : v;
  }
}

}  // namespace

void launch_quantize_rows_int8(const float* x, std::int64_t rows, std::int64_t in, std::int8_t* q, float* scales,
                               CUstream_st* stream) {
  if (rows == 0) return;
  const unsigned blocks = static_cast<unsigned>(rows < (1 << 16) ? rows : (1 << 16));
  quantize_rows_int8_kernel<<<blocks, kThreads, 0, stream>>>(x, rows, in, q, scales);
}

void launch_dense_int8_product(const std::int8_t* q, const float* scales, const float* kernel,
                               const float* kernel_scale, const float* bias, bool relu, std::int64_t rows,
                               std::int64_t in, std::int64_t units, float* y, CUstream_st* stream) {
  const std::int64_t n = rows * units;
  if (n == 0) return;
  dense_int8_product_kernel<<<blocks_for(n), kThreads, 0, stream>>>(q, scales, kernel, kernel_scale, bias, relu, rows,
                                                                    in, units, y);
}

}  // namespace strata::cuda
