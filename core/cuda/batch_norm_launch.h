// Launchers of the batch normalization CUDA kernels (core/cuda/batch_norm.cu), called by
// core/cuda/batch_norm_kernels.cc. Plain pointers and sizes only. Enqueue on `stream`
// and return at once; launch errors are for the caller to check.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

// x seen as (outer, channels, inner) around the normalized axis.
struct BatchNormShape {
  std::int64_t outer = 1, channels = 1, inner = 1;
};

// mean[c] and variance[c]: channel c's mean and biased variance over its outer·inner
// elements (0 and 0 over none). One block a channel, its sums in a fixed order.
void launch_batch_norm_statistics(const float* x, float* mean, float* variance, const BatchNormShape& s,
                                  CUstream_st* stream);

// y = (x − mean[c])·(1/√(variance[c] + ε)·γ[c]) + β[c], the CPU kernel's order.
void launch_batch_norm_apply(const float* x, const float* mean, const float* variance, const float* gamma,
                             const float* beta, float epsilon, float* y, const BatchNormShape& s, CUstream_st* stream);

// dbeta[c] = Σ dy, dgamma[c] = Σ dy·(x − mean[c])·r with r = 1/√(variance[c] + ε); then
// dx = γr·dy, plus in training (the statistics the batch's) the terms of the mean and
// variance: −γr²·dgamma·(x − mean)/N − γr·dbeta/N + dmean/N + 2·dvariance·(x − mean)/N.
void launch_batch_norm_gradient(const float* dy, const float* x, const float* gamma, const float* mean,
                                const float* variance, const float* dmean, const float* dvariance, float epsilon,
                                bool training, float* dx, float* dgamma, float* dbeta, const BatchNormShape& s,
                                CUstream_st* stream);

}  // namespace strata::cuda
