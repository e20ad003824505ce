// keras.ops sliding blocks of channels-first images (issue #38): unfold (im2col: (N, C, H, W)
// -> (N, C·kh·kw, L), the blocks' pixels by channel, then kernel row and column, L blocks in
// row-major order) and fold (col2im: the blocks summed back into (N, C, out_h, out_w)), as
// Keras's TensorFlow backend computes them (extract_patches; tensor_scatter_nd_add per kernel
// position, in the same order). Composed of pads, crops and reshapes: a strided pick is a crop,
// a pad to a multiple of the stride and a reshape that keeps the first of every `stride`
// samples; fold places each kernel position's blocks by the reverse. So both run on every
// device those ops run on, and each one's gradient is the other.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

// An int or a pair of ints (height, width), each at least `least`.
std::pair<std::int64_t, std::int64_t> pair_of(C c, const std::string& key, std::int64_t fallback,
                                              std::int64_t least) {
  std::vector<std::int64_t> v = c.axes(key).value_or(std::vector<std::int64_t>{fallback});
  if (v.size() == 1) v.push_back(v[0]);
  if (v.size() != 2) refuse(c, key, "an integer or a pair of integers is needed");
  if (v[0] < least || v[1] < least) refuse(c, key, "values of at least " + std::to_string(least) + " are needed");
  return {v[0], v[1]};
}

struct Blocks {
  std::int64_t kh = 0, kw = 0, dh = 1, dw = 1, ph = 0, pw = 0, sh = 1, sw = 1;
};

Blocks blocks_of(C c) {
  Blocks b;
  std::tie(b.kh, b.kw) = pair_of(c, "kernel_size", 1, 1);
  std::tie(b.dh, b.dw) = pair_of(c, "dilation", 1, 1);
  std::tie(b.ph, b.pw) = pair_of(c, "padding", 0, 0);
  std::tie(b.sh, b.sw) = pair_of(c, "stride", 1, 1);
  return b;
}

// Blocks along one axis of `size` samples (padded): (size − d (k − 1) − 1) / s + 1.
std::int64_t block_count(C c, std::int64_t size, std::int64_t k, std::int64_t d, std::int64_t s) {
  const std::int64_t span = d * (k - 1) + 1;
  if (size < span)
    throw ShapeError(c.where + ": a kernel spanning " + std::to_string(span) + " samples does not fit in " +
                     std::to_string(size));
  return (size - span) / s + 1;
}

Output resized(const Output& x, int axis, std::int64_t before, std::int64_t after) {
  std::vector<std::int64_t> b(static_cast<std::size_t>(rank_of(x)), 0), a = b;
  b[static_cast<std::size_t>(axis)] = before;
  a[static_cast<std::size_t>(axis)] = after;
  return ops::pad(x, b, a);
}

// x's samples offset, offset + stride, ... (count of them) along `axis`.
Output strided(C c, const Output& x, int axis, std::int64_t offset, std::int64_t count, std::int64_t stride) {
  const std::int64_t span = (count - 1) * stride + 1;
  Output y = slice(x, axis, offset, offset + span);
  if (stride == 1) return y;
  y = resized(y, axis, 0, stride - 1);  // count · stride samples
  std::vector<std::int64_t> split = reshape_target(y.shape(), c.where);
  split[static_cast<std::size_t>(axis)] = count;
  split.insert(split.begin() + axis + 1, stride);
  y = slice(ops::reshape(y, split), axis + 1, 0, 1);
  return drop_axis(y, axis + 1, c.where);
}

// strided's adjoint: x's `count` samples along `axis` placed at offset, offset + stride, ... of
// `size` samples, zeros between and around.
Output spread_along(C c, const Output& x, int axis, std::int64_t offset, std::int64_t stride, std::int64_t size) {
  const std::int64_t count = x.shape()[axis];
  Output y = x;
  if (stride > 1) {
    std::vector<std::int64_t> split = reshape_target(x.shape(), c.where);
    split.insert(split.begin() + axis + 1, 1);
    y = resized(ops::reshape(x, split), axis + 1, 0, stride - 1);  // (..., count, stride, ...)
    std::vector<std::int64_t> joined = reshape_target(x.shape(), c.where);
    joined[static_cast<std::size_t>(axis)] = count * stride;
    y = slice(ops::reshape(y, joined), axis, 0, (count - 1) * stride + 1);
  }
  return resized(y, axis, offset, size - offset - ((count - 1) * stride + 1));
}

void check_batch_of_images(C c, const Output& x, int rank, const char* what) {
  if (rank_of(x) != rank)
    throw ValueError(c.where + ": expects " + what + ", got " + x.shape().to_string());
}

Output unfold(C c) {
  const Output x = c.arg(0);
  check_batch_of_images(c, x, 4, "(N, C, H, W) images, rank 4");
  const Blocks b = blocks_of(c);
  const std::int64_t channels = known_size(c, "x", x, 1);
  const std::int64_t height = known_size(c, "x", x, 2) + 2 * b.ph, width = known_size(c, "x", x, 3) + 2 * b.pw;
  const std::int64_t nh = block_count(c, height, b.kh, b.dh, b.sh), nw = block_count(c, width, b.kw, b.dw, b.sw);
  const Output padded = ops::pad(x, {0, 0, b.ph, b.pw}, {0, 0, b.ph, b.pw});
  std::vector<Output> positions;  // (N, C, 1, nh · nw) per kernel position, row by row
  for (std::int64_t i = 0; i < b.kh; ++i) {
    const Output rows = strided(c, padded, 2, i * b.dh, nh, b.sh);
    for (std::int64_t j = 0; j < b.kw; ++j) {
      const Output block = strided(c, rows, 3, j * b.dw, nw, b.sw);  // (N, C, nh, nw)
      positions.push_back(ops::reshape(block, {-1, channels, 1, nh * nw}));
    }
  }
  return ops::reshape(ops::concat(positions, 2), {-1, channels * b.kh * b.kw, nh * nw});
}

Output fold(C c) {
  const Output x = c.arg(0);
  check_batch_of_images(c, x, 3, "(N, C·kh·kw, L) blocks, rank 3");
  const Blocks b = blocks_of(c);
  const auto [oh, ow] = pair_of(c, "output_size", 0, 1);
  const std::int64_t height = oh + 2 * b.ph, width = ow + 2 * b.pw;
  const std::int64_t nh = block_count(c, height, b.kh, b.dh, b.sh), nw = block_count(c, width, b.kw, b.dw, b.sw);
  const std::int64_t depth = known_size(c, "x", x, 1), count = known_size(c, "x", x, 2);
  if (depth % (b.kh * b.kw) != 0)
    throw ValueError(c.where + ": the second dimension of the input (" + std::to_string(depth) +
                     ") must be divisible by kernel_size product (" + std::to_string(b.kh * b.kw) + ")");
  if (count != nh * nw)
    throw ValueError(c.where + ": " + std::to_string(count) + " blocks do not make " + std::to_string(nh) + " x " +
                     std::to_string(nw) + " of them for output_size (" + std::to_string(oh) + ", " +
                     std::to_string(ow) + ")");
  const std::int64_t channels = depth / (b.kh * b.kw);
  const Output cut = ops::reshape(x, {-1, channels, b.kh * b.kw, nh, nw});
  Output sum;
  for (std::int64_t i = 0; i < b.kh; ++i) {
    for (std::int64_t j = 0; j < b.kw; ++j) {
      const std::int64_t k = i * b.kw + j;
      const Output block = drop_axis(slice(cut, 2, k, k + 1), 2, c.where);  // (N, C, nh, nw)
      const Output rows = spread_along(c, block, 2, i * b.dh, b.sh, height);
      const Output placed = spread_along(c, rows, 3, j * b.dw, b.sw, width);
      sum = sum.valid() ? ops::add(sum, placed) : placed;
    }
  }
  return ops::crop(sum, {0, 0, b.ph, b.pw}, {0, 0, b.ph, b.pw});
}

}  // namespace

const std::map<std::string, OpFn>& patch_ops() {
  static const std::map<std::string, OpFn> t = {
      {"Unfold", unfold},
      {"Fold", fold},
  };
  return t;
}

}  // namespace strata::layers::op_detail
