// conv3d and its two gradients: vol2col over blocks of output lines (one output row of
// one depth plane: OW positions), then Eigen GEMM, in the style of conv2d (conv_ops.cc).
// Their CUDA kernels are cuDNN's (core/cuda/cudnn_conv3d_kernels.cc).
// A block holds about kBlockRows output positions, so the column scratch stays bounded
// (and mostly in cache) however large a volume is; it is per-thread scratch
// that only grows (core/cpu/scratch.h), so steady-state steps allocate nothing.
#include "core/ops/conv3d_ops.h"

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <string>
#include <string_view>

#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/cuda/conv_kernels.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/cuda_kernel.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

using ColMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::ColMajor>;
using Strided = Eigen::OuterStride<>;
using CMapT = Eigen::Map<const ColMajor, 0, Strided>;
using MMapT = Eigen::Map<ColMajor, 0, Strided>;
using Ints = std::vector<std::int64_t>;

// Scratch slots: the filter gradient's per-thread partials live in the calling thread's
// slot 0 while every thread's columns use slot 1.
constexpr int kPartialSlot = 0, kColsSlot = 1;

// Geometry of one 3-D convolution; arrays are (depth, height, width).
struct Geom {
  std::int64_t n = 0, c = 0, o = 0, groups = 1, cg = 0, og = 0;
  std::array<std::int64_t, 3> in{}, out{}, k{}, s{}, d{}, before{};
  std::int64_t line() const { return out[2]; }                      // output positions per line
  std::int64_t lines() const { return n * out[0] * out[1]; }         // output lines in all
  std::int64_t lines_per_image() const { return out[0] * out[1]; }
  std::int64_t kdim() const { return k[0] * k[1] * k[2] * cg; }
  std::int64_t image() const { return in[0] * in[1] * in[2] * c; }  // input floats per image
};

const Ints& attr_vec(const Attrs& a, const char* key) { return a.get<Ints>(key); }

Conv3DParams params_of(const Attrs& a) {
  return {attr_vec(a, "strides"), attr_vec(a, "dilations"), attr_vec(a, "pads"), a.get<std::int64_t>("groups")};
}

Attrs attrs_of(const Conv3DParams& p) {
  return Attrs{{"strides", p.strides}, {"dilations", p.dilations}, {"pads", p.pads}, {"groups", p.groups}};
}

void check_params(const std::string& op, const Conv3DParams& p) {
  auto positive = [&](const Ints& v, const char* what) {
    if (v.size() != 3 || *std::min_element(v.begin(), v.end()) < 1) {
      throw ValueError(op + ": " + what + " must be three positive integers");
    }
  };
  positive(p.strides, "strides");
  positive(p.dilations, "dilations");
  if (p.pads.size() != 6 || *std::min_element(p.pads.begin(), p.pads.end()) < 0) {
    throw ValueError(op + ": pads must be six non-negative integers (front, back, top, bottom, left, right)");
  }
  if (p.groups < 1) throw ValueError(op + ": groups must be positive");
}

// Geometry from x's shape (N, D, H, W, C), the kernel window and the attributes (read in
// place: kernels run this on every step). Throws ShapeError when a window does not fit.
Geom make_geom(std::string_view op, const Shape& x, const Ints& window, std::int64_t o, const Ints& strides,
               const Ints& dilations, const Ints& pads, std::int64_t groups) {
  static constexpr const char* kAxes[] = {"depth", "height", "width"};
  Geom g;
  g.n = x.dims()[0], g.c = x.dims()[4], g.o = o, g.groups = groups;
  if (g.c != kUnknownDim && g.c % groups != 0) {
    throw ShapeError(std::string(op) + ": input channels " + std::to_string(g.c) + " are not divisible by groups " +
                     std::to_string(groups));
  }
  if (o % groups != 0) {
    throw ShapeError(std::string(op) + ": output channels " + std::to_string(o) + " are not divisible by groups " +
                     std::to_string(groups));
  }
  g.cg = g.c == kUnknownDim ? kUnknownDim : g.c / groups;
  g.og = o / groups;
  for (std::size_t a = 0; a < 3; ++a) {
    g.in[a] = x.dims()[a + 1], g.k[a] = window.at(a), g.s[a] = strides[a], g.d[a] = dilations[a];
    g.before[a] = pads[2 * a];
    if (g.in[a] == kUnknownDim) {
      g.out[a] = kUnknownDim;
      continue;
    }
    g.out[a] = conv_output_length(g.in[a], g.k[a], g.s[a], g.d[a], pads[2 * a], pads[2 * a + 1]);
    if (g.out[a] < 1) {
      throw ShapeError(std::string(op) + ": the kernel's " + kAxes[a] + " extent " +
                       std::to_string((g.k[a] - 1) * g.d[a] + 1) + " is larger than the padded input's " +
                       std::to_string(g.in[a] + pads[2 * a] + pads[2 * a + 1]) + " (input " + x.to_string() + ")");
    }
  }
  return g;
}

Geom geom_of(std::string_view op, const Shape& x, const Ints& window, std::int64_t o, const Attrs& a) {
  return make_geom(op, x, window, o, attr_vec(a, "strides"), attr_vec(a, "dilations"), attr_vec(a, "pads"),
                   a.get<std::int64_t>("groups"));
}

Ints window_of(const Shape& kernel) { return {kernel.dims()[0], kernel.dims()[1], kernel.dims()[2]}; }

void expect_rank(const std::string& op, const Shape& s, int rank, const char* what) {
  if (s.rank() != rank) {
    throw ShapeError(op + ": " + what + " must have rank " + std::to_string(rank) + ", got " + s.to_string());
  }
}

// Visits the windows of output line u (image n, depth z, row y): fn(row, column, input
// offset or -1 when padded), each row's cells in kernel order (kz, ky, kx), cg channels
// apiece.
template <typename Fn>
void for_each_tap(const Geom& g, std::int64_t u, std::int64_t gi, std::int64_t base_row, Fn fn) {
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
void vol2col(const Geom& g, const float* x, std::int64_t u0, std::int64_t u1, std::int64_t gi, float* cols) {
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
void col2vol_add(const Geom& g, const float* cols, std::int64_t u0, std::int64_t u1, std::int64_t gi, float* dx) {
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
std::int64_t lines_per_block(const Geom& g) {
  return std::max<std::int64_t>(1, kBlockRows / std::max<std::int64_t>(g.line(), 1));
}

// fn(u0, u1) over blocks of output lines, in parallel.
template <typename Fn>
void for_each_block(const Geom& g, Fn fn) {
  const std::int64_t per = lines_per_block(g);
  const std::int64_t balanced = std::max<std::int64_t>(1, (g.lines() + cpu::num_threads() - 1) / cpu::num_threads());
  const std::int64_t block = std::min(per, balanced);
  const std::int64_t blocks = (g.lines() + block - 1) / block;
  cpu::parallel_for(blocks, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) fn(b * block, std::min(g.lines(), (b + 1) * block));
  }, 2);
}

void conv3d_forward(const Geom& g, const float* x, const float* k, float* y) {
  const std::int64_t kdim = g.kdim();
  for_each_block(g, [&](std::int64_t u0, std::int64_t u1) {
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

void conv3d_input_grad(const Geom& g, const float* dy, const float* k, float* dx) {
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

void conv3d_filter_grad(const Geom& g, const float* x, const float* dy, float* dk) {
  const std::int64_t kdim = g.kdim();
  const std::int64_t ksize = kdim * g.o;
  // Each thread sums its blocks into its own partial; the partials are added at the end.
  const int threads = cpu::num_threads();
  float* partials = cpu::scratch(kPartialSlot, static_cast<std::size_t>(threads * ksize));
  std::fill_n(partials, threads * ksize, 0.f);
  for_each_block(g, [&](std::int64_t u0, std::int64_t u1) {
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

// The output dims (OD, OH, OW) of g must match those of dy (unknown dims match anything).
void expect_output_dims(const std::string& op, const Shape& dy, const Geom& g, const Shape& x) {
  for (std::size_t a = 0; a < 3; ++a) {
    const std::int64_t have = dy.dims()[a + 1];
    if (have != kUnknownDim && g.out[a] != kUnknownDim && have != g.out[a]) {
      throw ShapeError(op + ": gradient " + dy.to_string() + " does not match the output size (" +
                       std::to_string(g.out[0]) + ", " + std::to_string(g.out[1]) + ", " + std::to_string(g.out[2]) +
                       ") of input " + x.to_string());
    }
  }
}

std::vector<TensorSpec> infer_conv3d(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "kernel");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  const Conv3DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, x, 5, "input (N, D, H, W, C)");
  expect_rank(ctx.op, k, 5, "kernel (kd, kh, kw, C/groups, O)");
  if (x.dims()[4] != kUnknownDim && x.dims()[4] != k.dims()[3] * p.groups) {
    throw ShapeError(ctx.op + ": input " + x.to_string() + " has " + std::to_string(x.dims()[4]) +
                     " channels but the kernel " + k.to_string() + " expects " +
                     std::to_string(k.dims()[3] * p.groups) + (p.groups > 1 ? " (in/groups × groups)" : ""));
  }
  const Geom g = make_geom(ctx.op, x, window_of(k), k.dims()[4], p.strides, p.dilations, p.pads, p.groups);
  return {{Shape{g.n, g.out[0], g.out[1], g.out[2], g.o}, DType::float32}};
}

std::vector<TensorSpec> infer_backprop_input(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0, "gradient");
  expect_float_input(ctx, 1, "kernel");
  const Shape& dy = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  const Conv3DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, dy, 5, "gradient (N, OD, OH, OW, O)");
  expect_rank(ctx.op, k, 5, "kernel (kd, kh, kw, C/groups, O)");
  if (dy.dims()[4] != kUnknownDim && dy.dims()[4] != k.dims()[4]) {
    throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " has " + std::to_string(dy.dims()[4]) +
                     " channels but the kernel " + k.to_string() + " produces " + std::to_string(k.dims()[4]));
  }
  const Ints& size = attr_vec(ctx.attrs, "input_size");
  if (size.size() != 3) throw ValueError(ctx.op + ": input_size must be three integers (D, H, W)");
  const Shape x{dy.dims()[0], size[0], size[1], size[2], k.dims()[3] * p.groups};
  const Geom g = make_geom(ctx.op, x, window_of(k), k.dims()[4], p.strides, p.dilations, p.pads, p.groups);
  expect_output_dims(ctx.op, dy, g, x);
  return {{x, DType::float32}};
}

std::vector<TensorSpec> infer_backprop_filter(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "gradient");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& dy = ctx.inputs[1].shape;
  const Conv3DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, x, 5, "input (N, D, H, W, C)");
  expect_rank(ctx.op, dy, 5, "gradient (N, OD, OH, OW, O)");
  const Ints& ks = attr_vec(ctx.attrs, "kernel_size");
  if (ks.size() != 3 || *std::min_element(ks.begin(), ks.end()) < 1) {
    throw ValueError(ctx.op + ": kernel_size must be three positive integers");
  }
  if (x.dims()[4] == kUnknownDim || dy.dims()[4] == kUnknownDim) {
    throw ShapeError(ctx.op + ": channel counts must be known, got " + x.to_string() + " and " + dy.to_string());
  }
  const Geom g = make_geom(ctx.op, x, ks, dy.dims()[4], p.strides, p.dilations, p.pads, p.groups);
  expect_output_dims(ctx.op, dy, g, x);
  return {{Shape{ks[0], ks[1], ks[2], g.cg, g.o}, DType::float32}};
}

Ints spatial_of(const Output& x) { return {x.shape()[1], x.shape()[2], x.shape()[3]}; }

}  // namespace

void register_conv3d_ops(OpRegistry& r) {
  r.add({.name = "conv3d", .infer = infer_conv3d,
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& x = ctx.input(0);
           const Tensor& k = ctx.input(1);
           const Geom g = geom_of("conv3d", x.shape(), window_of(k.shape()), k.shape()[4], ctx.node.attrs);
           conv3d_forward(g, x.data<float>(), k.data<float>(), ctx.output(0).data<float>());
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], k = n.inputs[1];
           const Conv3DParams p = params_of(n.attrs);
           return std::vector<Output>{conv3d_backprop_input(g[0], k, spatial_of(x), p),
                                      conv3d_backprop_filter(x, g[0], window_of(k.shape()), p)};
         },
         .cuda_kernel = STRATA_CUDNN_KERNEL(cuda::conv3d)});
  r.add({.name = "conv3d_backprop_input", .infer = infer_backprop_input,
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& k = ctx.input(1);
           Tensor& dx = ctx.output(0);
           const Geom g = geom_of("conv3d_backprop_input", dx.shape(), window_of(k.shape()), k.shape()[4],
                                  ctx.node.attrs);
           conv3d_input_grad(g, ctx.input(0).data<float>(), k.data<float>(), dx.data<float>());
         },
         // dx = B(dy, k): adjoint in dy is conv3d(·, k); in k it is backprop_filter(·, dy).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output dy = n.inputs[0], k = n.inputs[1];
           const Conv3DParams p = params_of(n.attrs);
           return std::vector<Output>{conv3d(g[0], k, p),
                                      conv3d_backprop_filter(g[0], dy, window_of(k.shape()), p)};
         },
         .cuda_kernel = STRATA_CUDNN_KERNEL(cuda::conv3d_backprop_input)});
  r.add({.name = "conv3d_backprop_filter", .infer = infer_backprop_filter,
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& x = ctx.input(0);
           Tensor& dk = ctx.output(0);
           const Geom g = geom_of("conv3d_backprop_filter", x.shape(), window_of(dk.shape()), dk.shape()[4],
                                  ctx.node.attrs);
           conv3d_filter_grad(g, x.data<float>(), ctx.input(1).data<float>(), dk.data<float>());
         },
         // dk = F(x, dy): adjoint in x is backprop_input(dy, ·); in dy it is conv3d(x, ·).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], dy = n.inputs[1];
           const Conv3DParams p = params_of(n.attrs);
           return std::vector<Output>{conv3d_backprop_input(dy, g[0], spatial_of(x), p), conv3d(x, g[0], p)};
         },
         .cuda_kernel = STRATA_CUDNN_KERNEL(cuda::conv3d_backprop_filter)});
}

Output conv3d(Output x, Output kernel, const Conv3DParams& params) {
  return x.graph->add("conv3d", {x, kernel}, attrs_of(params));
}

Output conv3d_backprop_input(Output dy, Output kernel, std::vector<std::int64_t> input_size,
                             const Conv3DParams& params) {
  Attrs a = attrs_of(params);
  a.set("input_size", std::move(input_size));
  return dy.graph->add("conv3d_backprop_input", {dy, kernel}, std::move(a));
}

Output conv3d_backprop_filter(Output x, Output dy, std::vector<std::int64_t> kernel_size,
                              const Conv3DParams& params) {
  Attrs a = attrs_of(params);
  a.set("kernel_size", std::move(kernel_size));
  return x.graph->add("conv3d_backprop_filter", {x, dy}, std::move(a));
}

}  // namespace strata::ops
