// The CPU kernels of the reductions (core/ops/reduce_ops.cc: sum, mean, max over axes, and
// expand_to, their adjoint), and the reduction and broadcast-copy helpers (reduce.h).
#include "core/cpu/kernels/reduce.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cpu {

using ops::Axes;
using ops::Strides;

namespace {

// A sum over many rows into few columns (BatchNormalization's statistics and their
// gradients: N·H·W rows of C channels) runs over blocks of this many rows, each block
// summed by one thread into its partial, the partials then added in block order: every
// thread reads its own rows once (over columns, each thread read every row of the tensor
// for its columns, and the training step of ResNet-20 spent a quarter of its time there),
// and the sums depend on the shape alone, not on the thread count.
constexpr std::int64_t kRowsPerBlock = 256;
constexpr std::int64_t kBlockedMaxColumns = 1024;

// acc[i] = Σ_r rows[r·width + i] over `count` ≥ 1 rows, four rows per pass.
void sum_rows(const float* rows, std::int64_t count, std::int64_t width, float* __restrict acc) {
  std::copy_n(rows, width, acc);
  std::int64_t r = 1;
  for (; r + 4 <= count; r += 4) {
    const float* __restrict a = rows + r * width;
    const float* __restrict b = a + width;
    const float* __restrict c = b + width;
    const float* __restrict d = c + width;
    for (std::int64_t i = 0; i < width; ++i) acc[i] += (a[i] + b[i]) + (c[i] + d[i]);
  }
  for (; r < count; ++r) {
    const float* __restrict a = rows + r * width;
    for (std::int64_t i = 0; i < width; ++i) acc[i] += a[i];
  }
}

}  // namespace

void reduce_into(const Tensor& in, const Axes& axes, Reduction kind, Tensor& out) {
  const Shape& s = in.shape();
  const int rank = s.rank();
  const float* src = in.data<float>();
  float* dst = out.data<float>();
  const float init = kind == Reduction::max ? -std::numeric_limits<float>::infinity() : 0.0f;
  std::int64_t reduced_count = 1;
  for (int a : axes) reduced_count *= s.dims()[a];
  const float scale = kind == Reduction::mean && reduced_count > 0 ? 1.0f / static_cast<float>(reduced_count) : 1.0f;

  bool contiguous = true;
  for (std::size_t i = 1; i < axes.size(); ++i) contiguous &= axes[i] == axes[i - 1] + 1;
  if (axes.empty()) {
    std::copy_n(src, in.size(), dst);
    return;
  }
  if (contiguous) {
    // View as [outer][mid][inner] with mid the reduced block: out[o][i] = red_m in[o][m][i].
    const std::int64_t outer = s.product(0, axes.front());
    const std::int64_t mid = s.product(axes.front(), axes.back() + 1);
    const std::int64_t inner = s.product(axes.back() + 1, rank);
    if (inner == 1) {
      cpu::parallel_for(outer, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t o = b; o < e; ++o) {
          const float* row = src + o * mid;
          float acc = init;
          if (kind == Reduction::max) {
            for (std::int64_t m = 0; m < mid; ++m) acc = std::max(acc, row[m]);
          } else {
            for (std::int64_t m = 0; m < mid; ++m) acc += row[m];
          }
          dst[o] = acc * scale;
        }
      }, cpu::threshold_for(mid));
      return;
    }
    // (Rows of more than kBlockedMaxColumns split well by columns: each thread reads a
    // long run of every row. Bounding them also bounds the partials' buffer.)
    if (kind != Reduction::max && mid >= 2 * kRowsPerBlock && inner <= kBlockedMaxColumns) {  // see kRowsPerBlock
      const std::int64_t blocks = (mid + kRowsPerBlock - 1) / kRowsPerBlock;
      float* partials = scratch(0, static_cast<std::size_t>(outer * blocks * inner));
      cpu::parallel_for(outer * blocks, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t item = b; item < e; ++item) {
          const std::int64_t o = item / blocks, m0 = item % blocks * kRowsPerBlock;
          sum_rows(src + (o * mid + m0) * inner, std::min(kRowsPerBlock, mid - m0), inner, partials + item * inner);
        }
      }, cpu::threshold_for(kRowsPerBlock * inner));
      for (std::int64_t o = 0; o < outer; ++o) {
        float* drow = dst + o * inner;
        const float* first = partials + o * blocks * inner;
        std::copy_n(first, inner, drow);
        for (std::int64_t blk = 1; blk < blocks; ++blk) {
          const float* part = first + blk * inner;
          for (std::int64_t i = 0; i < inner; ++i) drow[i] += part[i];
        }
        if (scale != 1.0f) {
          for (std::int64_t i = 0; i < inner; ++i) drow[i] *= scale;
        }
      }
      return;
    }
    // Parallel over output columns keeps the summation order fixed per element.
    cpu::parallel_for(outer * inner, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t oi = b; oi < e; ++oi) dst[oi] = init;
      std::int64_t o_begin = b / inner, o_end = (e - 1) / inner;
      for (std::int64_t o = o_begin; o <= o_end; ++o) {
        std::int64_t i0 = o == o_begin ? b % inner : 0;
        std::int64_t i1 = o == o_end ? (e - 1) % inner + 1 : inner;
        float* drow = dst + o * inner;
        for (std::int64_t m = 0; m < mid; ++m) {
          const float* srow = src + (o * mid + m) * inner;
          if (kind == Reduction::max) {
            for (std::int64_t i = i0; i < i1; ++i) drow[i] = std::max(drow[i], srow[i]);
          } else {
            for (std::int64_t i = i0; i < i1; ++i) drow[i] += srow[i];
          }
        }
        if (scale != 1.0f) {
          for (std::int64_t i = i0; i < i1; ++i) drow[i] *= scale;
        }
      }
    }, cpu::threshold_for(mid));
    return;
  }
  // General case: walk every input element once.
  const Strides out_strides = ops::reduced_strides(s, axes);
  std::fill_n(dst, out.size(), init);
  Strides idx;
  for (int d = 0; d < rank; ++d) idx.push_back(0);
  for (std::int64_t flat = 0; flat < in.size(); ++flat) {
    std::int64_t o = 0;
    for (int d = 0; d < rank; ++d) o += idx[d] * out_strides[d];
    dst[o] = kind == Reduction::max ? std::max(dst[o], src[flat]) : dst[o] + src[flat];
    for (int d = rank - 1; d >= 0; --d) {
      if (++idx[d] < s.dims()[d]) break;
      idx[d] = 0;
    }
  }
  if (scale != 1.0f) {
    for (std::int64_t i = 0; i < out.size(); ++i) dst[i] *= scale;
  }
}

void broadcast_into(const Tensor& src, const Strides& src_strides, Tensor& out, float scale) {
  if (out.size() == 0) return;
  // out is contiguous, so its walk collapses wherever src's does (ops::collapse_dims).
  Strides strides = src_strides;
  const Strides dims = ops::collapse_dims(out.shape(), strides);
  const int rank = static_cast<int>(dims.size());
  const float* ps = src.data<float>();
  float* po = out.data<float>();
  const std::int64_t inner = dims[dims.size() - 1];
  const std::int64_t rows = out.size() / inner;
  const std::int64_t step = strides[dims.size() - 1];
  bool one_row = true;  // every row of out the same row of src (a per-channel vector's broadcast)
  for (int d = 0; d + 1 < rank; ++d) one_row &= strides[static_cast<std::size_t>(d)] == 0;
  cpu::parallel_for_rows(rows, inner, [&](std::int64_t row, std::int64_t begin, std::int64_t end) {
    float* orow = po + row * inner;
    if (one_row && step == 1) {
      for (std::int64_t j = begin; j < end; ++j) orow[j] = ps[j] * scale;
      return;
    }
    std::int64_t rem = row, off = 0;
    for (int d = rank - 2; d >= 0; --d) {
      const auto at = static_cast<std::size_t>(d);
      off += (rem % dims[at]) * strides[at];
      rem /= dims[at];
    }
    for (std::int64_t j = begin; j < end; ++j) orow[j] = ps[off + j * step] * scale;
  });
}

namespace {

KernelFn reduce_kernel(Reduction kind) {
  return [kind](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    auto axes = ops::reduction_axes(ctx.node.op, ctx.node.attrs.get<std::vector<std::int64_t>>("axes"), x.rank());
    reduce_into(x, axes, kind, ctx.output(0));
  };
}

void expand_to_kernel(KernelContext& ctx) {
  const Tensor& g = ctx.input(0);
  Tensor& out = ctx.output(0);
  auto axes = ops::reduction_axes("expand_to", ctx.node.attrs.get<std::vector<std::int64_t>>("axes"), out.rank());
  float scale = 1.0f;
  if (ctx.node.attrs.get<bool>("mean")) {
    std::int64_t count = 1;
    for (int a : axes) count *= out.shape().dims()[a];
    scale = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
  }
  // g holds the reduction in keepdims layout (or the same order without the 1s).
  broadcast_into(g, ops::reduced_strides(out.shape(), axes), out, scale);
}

}  // namespace

void register_reduce_kernels(OpRegistry& r) {
  r.add_kernel("reduce_sum", DeviceType::cpu, {.run = reduce_kernel(Reduction::sum)});
  r.add_kernel("reduce_mean", DeviceType::cpu, {.run = reduce_kernel(Reduction::mean)});
  r.add_kernel("reduce_max", DeviceType::cpu, {.run = reduce_kernel(Reduction::max)});
  r.add_kernel("expand_to", DeviceType::cpu, {.run = expand_to_kernel});
}

}  // namespace strata::cpu
