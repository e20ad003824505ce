// The CPU kernels of conv3d and its two gradients (core/ops/conv_ops.h): vol2col over
// blocks of output lines (one output row of one depth plane: OW positions), then Eigen
// GEMM, in the style of conv2d (conv.cc).
// A block holds about kBlockRows output positions, so the column scratch stays bounded
// (and mostly in cache) however large a volume is; it is per-thread scratch
// that only grows (core/cpu/scratch.h), so steady-state steps allocate nothing.
#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/op_registry.h"
#include "core/ops/conv_ops.h"

namespace strata::cpu {
namespace {

using ColMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using Strided = Eigen::OuterStride<>;
using CMapT = Eigen::Map<const ColMajor, 0, Strided>;
using MMapT = Eigen::Map<ColMajor, 0, Strided>;
using Geom3D = ops::Conv3DGeometry;

// Scratch slots: the filter gradient's per-thread partials live in the calling thread's
// slot 0 while every thread's columns use slot 1.
constexpr int kPartialSlot = 0, kColsSlot = 1;

// Visits the windows of output line u (image n, depth z, row y): fn(row, column, input
// offset or -1 when padded), each row's cells in kernel order (kz, ky, kx), cg channels
// apiece.
template <typename Fn>
void for_each_tap(const Geom3D& g, std::int64_t u, std::int64_t gi, std::int64_t base_row, Fn fn) {
  const std::int64_t y = u % g.out[1], z = (u / g.out[1]) % g.out[0], n = u / g.lines_per_image();
  const std::int64_t image = n * g.image() + gi * g.cg;
  std::int64_t row = base_row;
  for (std::int64_t x = 0; x < g.out[2]; ++x, ++row) {
    std::int64_t col = 0;
    for (std::int64_t kz = 0; kz < g.k[0]; ++kz) {
      const std::int64_t iz = z * g.s[0] + kz * g.d[0] - g.before[0];
      for (std::int64_t ky = 0; ky < g.k[1]; ++ky) {
        const std::int64_t iy = y * g.s[1] + ky * g.d[1] - g.before[1];
        for (std::int64_t kx = 0; kx < g.k[2]; ++kx, col += g.cg) {
          const std::int64_t ix = x * g.s[2] + kx * g.d[2] - g.before[2];
          const bool inside = iz >= 0 && iz < g.in[0] && iy >= 0 && iy < g.in[1] && ix >= 0 && ix < g.in[2];
          fn(row, col, inside ? image + ((iz * g.in[1] + iy) * g.in[2] + ix) * g.c : -1);
        }
      }
    }
  }
}

// cols (rows of lines [u0, u1), kdim) for group gi.
void vol2col(const Geom3D& g, const float* x, std::int64_t u0, std::int64_t u1, std::int64_t gi, float* cols) {
  const std::int64_t kdim = g.kdim();
  for (std::int64_t u = u0; u < u1; ++u) {
    for_each_tap(g, u, gi, (u - u0) * g.line(), [&](std::int64_t row, std::int64_t col, std::int64_t at) {
      float* dst = cols + row * kdim + col;
      if (at < 0) {
        std::fill_n(dst, g.cg, 0.f);
      } else {
        for (std::int64_t ch = 0; ch < g.cg; ++ch) dst[ch] = x[at + ch];
      }
    });
  }
}

// dx += col2vol(cols) for lines [u0, u1), group gi.
void col2vol_add(const Geom3D& g, const float* cols, std::int64_t u0, std::int64_t u1, std::int64_t gi, float* dx) {
  const std::int64_t kdim = g.kdim();
  for (std::int64_t u = u0; u < u1; ++u) {
    for_each_tap(g, u, gi, (u - u0) * g.line(), [&](std::int64_t row, std::int64_t col, std::int64_t at) {
      if (at < 0) return;
      const float* src = cols + row * kdim + col;
      for (std::int64_t ch = 0; ch < g.cg; ++ch) dx[at + ch] += src[ch];
    });
  }
}

// Output positions per block: enough for an efficient GEMM, few enough that the block's
// columns stay in cache between vol2col and the product.
constexpr std::int64_t kBlockRows = 512;
std::int64_t lines_per_block(const Geom3D& g) {
  return std::max<std::int64_t>(1, kBlockRows / std::max<std::int64_t>(g.line(), 1));
}

// fn(u0, u1) over blocks of output lines, in parallel.
template <typename Fn>
void for_each_volume_block(const Geom3D& g, Fn fn) {
  const std::int64_t per = lines_per_block(g);
  const std::int64_t balanced = std::max<std::int64_t>(1, (g.lines() + cpu::num_threads() - 1) / cpu::num_threads());
  const std::int64_t block = std::min(per, balanced);
  const std::int64_t blocks = (g.lines() + block - 1) / block;
  cpu::parallel_for(blocks, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) fn(b * block, std::min(g.lines(), (b + 1) * block));
  }, 2);
}

void conv3d_forward(const Geom3D& g, const float* x, const float* k, float* y) {
  const std::int64_t kdim = g.kdim();
  for_each_volume_block(g, [&](std::int64_t u0, std::int64_t u1) {
    const std::int64_t rows = (u1 - u0) * g.line();
    float* cols = cpu::scratch(kColsSlot, static_cast<std::size_t>(rows * kdim));
    float* yb = y + u0 * g.line() * g.o;
    for (std::int64_t gi = 0; gi < g.groups; ++gi) {
      vol2col(g, x, u0, u1, gi, cols);
      // yᵀ (og × rows) = kᵀ (og × kdim) · colsᵀ (kdim × rows), column-major views.
      CMapT kt(k + gi * g.og, g.og, kdim, Strided(g.o));
      CMapT ct(cols, kdim, rows, Strided(kdim));
      MMapT(yb + gi * g.og, g.og, rows, Strided(g.o)).noalias() = kt * ct;
    }
  });
}

void conv3d_input_grad(const Geom3D& g, const float* dy, const float* k, float* dx) {
  const std::int64_t kdim = g.kdim();
  const std::int64_t per = lines_per_block(g);
  // Windows of one image overlap and those of two images never do: parallel over images.
  cpu::parallel_for(g.n, [&](std::int64_t n0, std::int64_t n1) {
    std::fill(dx + n0 * g.image(), dx + n1 * g.image(), 0.f);
    for (std::int64_t u0 = n0 * g.lines_per_image(); u0 < n1 * g.lines_per_image(); u0 += per) {
      const std::int64_t u1 = std::min(n1 * g.lines_per_image(), u0 + per);
      const std::int64_t rows = (u1 - u0) * g.line();
      float* cols = cpu::scratch(kColsSlot, static_cast<std::size_t>(rows * kdim));
      for (std::int64_t gi = 0; gi < g.groups; ++gi) {
        // colsᵀ (kdim × rows) = k (kdim × og) · dyᵀ (og × rows), column-major views.
        CMapT gt(dy + u0 * g.line() * g.o + gi * g.og, g.og, rows, Strided(g.o));
        CMapT kt(k + gi * g.og, g.og, kdim, Strided(g.o));
        MMapT(cols, kdim, rows, Strided(kdim)).noalias() = kt.transpose() * gt;
        col2vol_add(g, cols, u0, u1, gi, dx);
      }
    }
  }, 1);
}

void conv3d_filter_grad(const Geom3D& g, const float* x, const float* dy, float* dk) {
  const std::int64_t kdim = g.kdim();
  const std::int64_t ksize = kdim * g.o;
  // Each thread sums its blocks into its own partial; the partials are added at the end.
  const int threads = cpu::num_threads();
  float* partials = cpu::scratch(kPartialSlot, static_cast<std::size_t>(threads * ksize));
  std::fill_n(partials, threads * ksize, 0.f);
  for_each_volume_block(g, [&](std::int64_t u0, std::int64_t u1) {
    float* part = partials + static_cast<std::int64_t>(cpu::thread_index()) * ksize;
    const std::int64_t rows = (u1 - u0) * g.line();
    float* cols = cpu::scratch(kColsSlot, static_cast<std::size_t>(rows * kdim));
    for (std::int64_t gi = 0; gi < g.groups; ++gi) {
      vol2col(g, x, u0, u1, gi, cols);
      // dkᵀ (og × kdim) += dyᵀ (og × rows) · cols (rows × kdim), column-major views.
      CMapT gt(dy + u0 * g.line() * g.o + gi * g.og, g.og, rows, Strided(g.o));
      CMapT ct(cols, kdim, rows, Strided(kdim));
      MMapT(part + gi * g.og, g.og, kdim, Strided(g.o)).noalias() += gt * ct.transpose();
    }
  });
  std::fill(dk, dk + ksize, 0.f);
  for (int t = 0; t < threads; ++t) {
    const float* part = partials + static_cast<std::int64_t>(t) * ksize;
    for (std::int64_t i = 0; i < ksize; ++i) dk[i] += part[i];
  }
}

void conv3d_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& k = ctx.input(1);
  const Geom3D g =
      ops::conv_geometry<3>("conv3d", x.shape(), ops::conv_window<3>(k.shape()), k.shape()[4], ctx.node.attrs);
  conv3d_forward(g, x.data<float>(), k.data<float>(), ctx.output(0).data<float>());
}

void conv3d_backprop_input_kernel(KernelContext& ctx) {
  const Tensor& k = ctx.input(1);
  Tensor& dx = ctx.output(0);
  const Geom3D g = ops::conv_geometry<3>("conv3d_backprop_input", dx.shape(), ops::conv_window<3>(k.shape()),
                                       k.shape()[4], ctx.node.attrs);
  conv3d_input_grad(g, ctx.input(0).data<float>(), k.data<float>(), dx.data<float>());
}

void conv3d_backprop_filter_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& dk = ctx.output(0);
  const Geom3D g = ops::conv_geometry<3>("conv3d_backprop_filter", x.shape(), ops::conv_window<3>(dk.shape()),
                                       dk.shape()[4], ctx.node.attrs);
  conv3d_filter_grad(g, x.data<float>(), ctx.input(1).data<float>(), dk.data<float>());
}

}  // namespace

void register_conv3d_kernels(OpRegistry& r) {
  r.add_kernel("conv3d", DeviceType::cpu, {.run = conv3d_kernel});
  r.add_kernel("conv3d_backprop_input", DeviceType::cpu, {.run = conv3d_backprop_input_kernel});
  r.add_kernel("conv3d_backprop_filter", DeviceType::cpu, {.run = conv3d_backprop_filter_kernel});
}

}  // namespace strata::cpu
