// Reduction and broadcast-copy kernels shared by the reduce and shape op families.
#pragma once

#include <vector>

#include "core/ops/small_vec.h"
#include "core/tensor.h"

namespace strata::ops {

enum class Reduction { sum, mean, max };

// out (keepdims layout of `in` over `axes`) = reduction of `in` over sorted `axes`.
void reduce_into(const Tensor& in, const Axes& axes, Reduction kind, Tensor& out);

// out[idx] = src[sum of idx[d] * src_strides[d]] * scale: a broadcast read of `src`
// (strides 0 on broadcast dims; see broadcast_strides and reduced_strides).
void broadcast_into(const Tensor& src, const Strides& src_strides, Tensor& out, float scale = 1.0f);

// Axes along which `small` (right-aligned, padded with leading 1s) was broadcast to `big`.
Axes broadcast_axes(const Shape& small, const Shape& big);

}  // namespace strata::ops
