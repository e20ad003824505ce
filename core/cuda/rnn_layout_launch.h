// Launchers of the layout kernels that put a recurrent op's operands where cuDNN's RNN
// API wants them and its results back where the op's outputs have them
// (core/cuda/rnn_layout.cu), called by core/cuda/cudnn_rnn.cc. Plain pointers and sizes
// only. Each enqueues on `stream` and returns at once; an empty range launches nothing.
// Launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/rnn_weight_layout.h"

struct CUstream_st;

namespace strata::cuda {

// Writes kernel, recurrent_kernel and bias into cuDNN's weight space `space`
// (pack_rnn_weight).
void launch_pack_rnn_weights(const RnnWeightLayout& layout, const float* kernel, const float* recurrent_kernel,
                             const float* bias, float* space, CUstream_st* stream);
// The inverse for gradients: reads cuDNN's weight gradients `space` into dkernel,
// drecurrent_kernel and dbias, in Keras's layouts (unpack_rnn_weight_grad).
void launch_unpack_rnn_weight_grads(const RnnWeightLayout& layout, const float* space, float* dkernel,
                                    float* drecurrent_kernel, float* dbias, CUstream_st* stream);

// out (B, T, W) = in with its steps in the opposite order: out[b, T-1-t, :] = in[b, t, :].
// `in` and `out` must not overlap.
void launch_reverse_steps(const float* in, float* out, std::int64_t B, std::int64_t T, std::int64_t W,
                          CUstream_st* stream);

// to[0..n) = value.
void launch_fill_int32(std::int32_t* to, std::int64_t n, std::int32_t value, CUstream_st* stream);

}  // namespace strata::cuda
