// Launchers of the 2-D pooling CUDA kernels (core/cuda/pool.cu), called by
// core/cuda/pool_kernels.cc. Plain pointers and sizes only. Each enqueues on `stream` and
// returns at once; an empty output launches nothing. Launch errors are for the caller.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

// x (n, h, w, c) pooled to (n, oh, ow, c) by kh x kw windows at strides (sh, sw), padded
// by pt rows on top and pl columns on the left (the bottom and right padding only shows
// in oh and ow). Padded cells never count, as on the CPU (core/cpu/kernels/pool.cc).
struct PoolShape {
  std::int64_t n = 0, h = 0, w = 0, c = 0, oh = 0, ow = 0;
  std::int64_t kh = 1, kw = 1, sh = 1, sw = 1, pt = 0, pl = 0;
};

// y = the largest in-bounds element of each window (a NaN never replaces a number; an
// empty window gives -inf).
void launch_max_pool(const float* x, float* y, const PoolShape& s, CUstream_st* stream);
// y = the mean of each window's in-bounds elements.
void launch_avg_pool(const float* x, float* y, const PoolShape& s, CUstream_st* stream);
// dx: each window's dy added to the window's first largest element of x (row-major order
// within the window), the windows taken in (oy, ox) order — the CPU's rule and order.
// With through_relu (x a relu's output, max_pool2d_relu_grad), a window whose largest
// element is not positive passes nothing. Writes all of dx.
void launch_max_pool_grad(const float* x, const float* dy, float* dx, const PoolShape& s, bool through_relu,
                          CUstream_st* stream);
// dx: each window's dy / (its in-bounds count) added to each of its in-bounds elements,
// in (oy, ox) order. Writes all of dx.
void launch_avg_pool_grad(const float* dy, float* dx, const PoolShape& s, CUstream_st* stream);

}  // namespace strata::cuda
