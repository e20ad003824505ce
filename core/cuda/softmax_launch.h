// Launchers of the softmax and sparsemax CUDA kernels (core/cuda/softmax.cu,
// core/cuda/sparsemax.cu), called by core/cuda/softmax_kernels.cc. Plain pointers and
// sizes only. A tensor is read as
// `lanes` 1-D lanes of n elements along the op's axis: lane l starts at
// (l / inner) * n * inner + l % inner and its elements are `inner` apart (inner is 1 on
// the last axis). Each enqueues on `stream` and returns at once; lanes == 0 or n == 0
// launches nothing. Launch errors are for the caller to check.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

struct LaneShape {
  std::int64_t lanes = 0;  // outer * inner
  std::int64_t n = 0;      // the axis's length
  std::int64_t inner = 1;  // the product of the dims after the axis
};

// y = softmax(x) along each lane, or log_softmax(x) when log_space: the CPU kernel's
// expressions (core/cpu/kernels/nn.cc), after subtracting the lane's max.
void launch_softmax(const float* x, float* y, const LaneShape& shape, bool log_space, CUstream_st* stream);
// out = y * (g - sum(g * y)) along each lane: the softmax's gradient given its output y.
void launch_softmax_grad(const float* g, const float* y, float* out, const LaneShape& shape, CUstream_st* stream);
// y = sparsemax(x) along each lane, Keras's threshold as the CPU kernel computes it.
void launch_sparsemax(const float* x, float* y, const LaneShape& shape, CUstream_st* stream);
// dx = sparsemax's gradient given the incoming gradient g and the op's input x.
void launch_sparsemax_grad(const float* g, const float* x, float* dx, const LaneShape& shape, CUstream_st* stream);

}  // namespace strata::cuda
