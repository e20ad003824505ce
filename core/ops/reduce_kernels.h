// Reduction and broadcast-copy kernels shared by the reduce and shape op families.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace strata::ops {

enum class Reduction { sum, mean, max };

// out (keepdims layout of `in` over `axes`) = reduction of `in` over sorted `axes`.
void reduce_into(const Tensor& in, const std::vector<int>& axes, Reduction kind, Tensor& out);

// out[idx] = src[idx with broadcast dims pinned to 0], where src's shape (read as
// `src_shape`, same rank as out) has 1 or out's size in each dim; times `scale`.
void broadcast_into(const Tensor& src, const Shape& src_shape, Tensor& out, float scale = 1.0f);

// Axes along which `small` (right-aligned, padded with leading 1s) was broadcast to `big`.
std::vector<int> broadcast_axes(const Shape& small, const Shape& big);

}  // namespace strata::ops
