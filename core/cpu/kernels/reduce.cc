// The CPU kernels of the reductions (core/ops/reduce_ops.cc: sum, mean, max over axes, and
// expand_to, their adjoint), and the reduction and broadcast-copy helpers (reduce.h).
#include "core/cpu/kernels/reduce.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cpu {

using ops::Axes;
using ops::Strides;

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

void broadcast_into(const Tensor& src, const Strides& strides, Tensor& out, float scale) {
  const Shape& os = out.shape();
  const int rank = os.rank();
  const float* ps = src.data<float>();
  float* po = out.data<float>();
  const std::int64_t inner = rank ? os.dims()[rank - 1] : 1;
  const std::int64_t rows = inner ? out.size() / inner : 0;
  const std::int64_t step = rank ? strides[rank - 1] : 0;
  cpu::parallel_for(rows, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t row = b; row < e; ++row) {
      std::int64_t rem = row, off = 0;
      for (int d = rank - 2; d >= 0; --d) {
        off += (rem % os.dims()[d]) * strides[d];
        rem /= os.dims()[d];
      }
      float* orow = po + row * inner;
      for (std::int64_t j = 0; j < inner; ++j) orow[j] = ps[off + j * step] * scale;
    }
  }, cpu::threshold_for(inner));
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
