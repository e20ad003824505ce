// Reduction and broadcast-copy helpers of the CPU kernels, shared by the reduce and shape
// families (core/cpu/kernels/reduce.cc, shape.cc).
#pragma once

#include "core/ops/small_vec.h"
#include "core/tensor.h"

namespace strata::cpu {

enum class Reduction { sum, mean, max };

// out (keepdims layout of `in` over `axes`) = reduction of `in` over sorted `axes`.
void reduce_into(const Tensor& in, const ops::Axes& axes, Reduction kind, Tensor& out);

// out[idx] = src[sum of idx[d] * src_strides[d]] * scale: a broadcast read of `src`
// (strides 0 on broadcast dims; see ops::broadcast_strides and ops::reduced_strides).
void broadcast_into(const Tensor& src, const ops::Strides& src_strides, Tensor& out, float scale = 1.0f);

}  // namespace strata::cpu
