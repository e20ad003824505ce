// The layout kernels around cuDNN's RNN (core/cuda/rnn_layout_launch.h): a thread per
// element; the weights' per-element functions are core/cuda/rnn_weight_layout.h's.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/rnn_layout_launch.h"

namespace strata::cuda {

namespace {

__global__ void pack_rnn_weights_kernel(RnnWeightLayout l, const float* __restrict__ kernel,
                                        const float* __restrict__ recurrent_kernel, const float* __restrict__ bias,
                                        float* __restrict__ space, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    pack_rnn_weight(l, i, kernel, recurrent_kernel, bias, space);
  }
}

__global__ void unpack_rnn_weight_grads_kernel(RnnWeightLayout l, const float* __restrict__ space,
                                               float* __restrict__ dkernel, float* __restrict__ drecurrent_kernel,
                                               float* __restrict__ dbias, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    unpack_rnn_weight_grad(l, i, space, dkernel, drecurrent_kernel, dbias);
  }
}

__global__ void reverse_steps_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t T,
                                     std::int64_t W, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const std::int64_t w = i % W, t = i / W % T, b = i / (W * T);
    out[(b * T + (T - 1 - t)) * W + w] = in[i];
  }
}

__global__ void fill_int32_kernel(std::int32_t* to, std::int32_t value, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) to[i] = value;
}

}  // namespace

void launch_pack_rnn_weights(const RnnWeightLayout& layout, const float* kernel, const float* recurrent_kernel,
                             const float* bias, float* space, CUstream_st* stream) {
  const std::int64_t count = rnn_weight_elements(layout);
  if (count == 0) return;
  pack_rnn_weights_kernel<<<blocks_for(count), kThreads, 0, stream>>>(layout, kernel, recurrent_kernel, bias, space,
                                                                       count);
}

void launch_unpack_rnn_weight_grads(const RnnWeightLayout& layout, const float* space, float* dkernel,
                                    float* drecurrent_kernel, float* dbias, CUstream_st* stream) {
  const std::int64_t count = rnn_weight_elements(layout);
  if (count == 0) return;
  unpack_rnn_weight_grads_kernel<<<blocks_for(count), kThreads, 0, stream>>>(layout, space, dkernel,
                                                                              drecurrent_kernel, dbias, count);
}

void launch_reverse_steps(const float* in, float* out, std::int64_t B, std::int64_t T, std::int64_t W,
                          CUstream_st* stream) {
  const std::int64_t count = B * T * W;
  if (count == 0) return;
  reverse_steps_kernel<<<blocks_for(count), kThreads, 0, stream>>>(in, out, T, W, count);
}

void launch_fill_int32(std::int32_t* to, std::int64_t n, std::int32_t value, CUstream_st* stream) {
  if (n == 0) return;
  fill_int32_kernel<<<blocks_for(n), kThreads, 0, stream>>>(to, value, n);
}

}  // namespace strata::cuda
