// Launchers of the elementwise CUDA kernels (core/cuda/elementwise.cu), called by the
// host code in core/cuda/*_kernels.cc. Plain pointers and sizes only, so that nvcc
// compiles elementwise.cu without the engine's headers. Each enqueues on `stream` and
// returns at once; n == 0 launches nothing. Launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/elementwise_kernels.h"

struct CUstream_st;

namespace strata::cuda {

inline constexpr int kMaxLaunchRank = 8;

// How the output's flat index maps to each operand: the output's dims, and each
// operand's strides in elements when read as broadcast to them (0 on broadcast dims).
struct BroadcastIndex {
  int rank = 0;
  std::int64_t dims[kMaxLaunchRank] = {};
  std::int64_t a_strides[kMaxLaunchRank] = {};
  std::int64_t b_strides[kMaxLaunchRank] = {};
};

// out[i] = op(a[a_full ? i : 0], b[b_full ? i : 0]) for i < n.
void launch_binary(BinaryOp op, const float* a, bool a_full, const float* b, bool b_full, float* out,
                   std::int64_t n, CUstream_st* stream);
// out[i] = op(a[offset_a(i)], b[offset_b(i)]) for i < n, offsets from `index`.
void launch_binary_broadcast(BinaryOp op, const float* a, const float* b, float* out, std::int64_t n,
                             const BroadcastIndex& index, CUstream_st* stream);
void launch_unary(UnaryOp op, const float* x, float* out, std::int64_t n, CUstream_st* stream);
void launch_select(const float* cond, const float* a, const float* b, float* out, std::int64_t n,
                   CUstream_st* stream);
// y[r][j] += bias[j] (when bias is not null), then y = max(y, 0) when relu: dense's
// epilogue over a rows x units row-major matrix.
void launch_bias_relu(float* y, const float* bias, bool relu, std::int64_t rows, std::int64_t units,
                      CUstream_st* stream);

}  // namespace strata::cuda
