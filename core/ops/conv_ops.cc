// conv2d and its two gradients: im2col over blocks of output positions (the forward
// pass) or of whole images (the gradients), then GEMM. Blocks run in parallel on the
// worker pool (each block's GEMM is one thread's product, cpu::gemm_serial); the im2col
// scratch is per thread and grows only when a larger block is first seen, so
// steady-state steps allocate nothing.
#include "core/ops/conv_ops.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <tuple>
#include <utility>

#include "core/cpu/gemm.h"
#include "core/cpu/packed_gemm.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/cuda/conv_kernels.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/cuda_kernel.h"
#include "core/ops/fused_relu.h"
#include "core/ops/pool_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// Geometry of one convolution, read from attributes and shapes.
struct Geom {
  std::int64_t n = 0, h = 0, w = 0, c = 0;    // input
  std::int64_t oh = 0, ow = 0, o = 0;         // output
  std::int64_t kh = 0, kw = 0;                // kernel window
  std::int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  std::int64_t groups = 1, cg = 0, og = 0;    // channels per group (in, out)
  std::int64_t kdim() const { return kh * kw * cg; }
  std::int64_t rows() const { return oh * ow; }  // output positions per image
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pb == 0 && pl == 0 && pr == 0 && groups == 1;
  }
};

const std::vector<std::int64_t>& attr_vec(const Attrs& a, const char* key) {
  return a.get<std::vector<std::int64_t>>(key);
}

Conv2DParams params_of(const Attrs& a) {
  return {attr_vec(a, "strides"), attr_vec(a, "dilations"), attr_vec(a, "pads"), a.get<std::int64_t>("groups")};
}

// The params read in place from a node's attributes: what kernels use on every run
// (params_of copies three vectors, which would allocate on every step).
struct ParamsRef {
  const std::vector<std::int64_t>& strides;
  const std::vector<std::int64_t>& dilations;
  const std::vector<std::int64_t>& pads;
  std::int64_t groups;
};

ParamsRef params_ref(const Attrs& a) {
  return {attr_vec(a, "strides"), attr_vec(a, "dilations"), attr_vec(a, "pads"), a.get<std::int64_t>("groups")};
}

Attrs attrs_of(const Conv2DParams& p) {
  return Attrs{{"strides", p.strides}, {"dilations", p.dilations}, {"pads", p.pads}, {"groups", p.groups}};
}

void check_params(const std::string& op, const Conv2DParams& p) {
  auto positive = [&](const std::vector<std::int64_t>& v, const char* what) {
    if (v.size() != 2 || v[0] < 1 || v[1] < 1) throw ValueError(op + ": " + what + " must be two positive integers");
  };
  positive(p.strides, "strides");
  positive(p.dilations, "dilations");
  if (p.pads.size() != 4 || *std::min_element(p.pads.begin(), p.pads.end()) < 0) {
    throw ValueError(op + ": pads must be four non-negative integers (top, bottom, left, right)");
  }
  if (p.groups < 1) throw ValueError(op + ": groups must be positive");
}

std::int64_t out_len(std::string_view op, const char* axis, std::int64_t size, std::int64_t k, std::int64_t s,
                     std::int64_t d, std::int64_t before, std::int64_t after) {
  if (size == kUnknownDim) return kUnknownDim;
  std::int64_t r = conv_output_length(size, k, s, d, before, after);
  if (r < 1) {
    throw ShapeError(std::string(op) + ": the kernel's " + axis + " extent " + std::to_string((k - 1) * d + 1) +
                     " is larger than the padded input's " + std::to_string(size + before + after));
  }
  return r;
}

// Fills geometry from x's shape (N, H, W, C), the kernel window and the params
// (Conv2DParams or ParamsRef).
template <typename Params>
Geom make_geom(const Shape& x, std::int64_t kh, std::int64_t kw, std::int64_t o, const Params& p,
               std::string_view op) {
  Geom g;
  g.n = x.dims()[0], g.h = x.dims()[1], g.w = x.dims()[2], g.c = x.dims()[3];
  g.kh = kh, g.kw = kw, g.o = o;
  g.sh = p.strides[0], g.sw = p.strides[1], g.dh = p.dilations[0], g.dw = p.dilations[1];
  g.pt = p.pads[0], g.pb = p.pads[1], g.pl = p.pads[2], g.pr = p.pads[3];
  g.groups = p.groups;
  if (g.c != kUnknownDim && g.c % g.groups != 0) {
    throw ShapeError(std::string(op) + ": input channels " + std::to_string(g.c) + " are not divisible by groups " +
                     std::to_string(g.groups));
  }
  if (o % g.groups != 0) {
    throw ShapeError(std::string(op) + ": output channels " + std::to_string(o) + " are not divisible by groups " +
                     std::to_string(g.groups));
  }
  g.cg = g.c == kUnknownDim ? kUnknownDim : g.c / g.groups;
  g.og = o / g.groups;
  g.oh = out_len(op, "height", g.h, kh, g.sh, g.dh, g.pt, g.pb);
  g.ow = out_len(op, "width", g.w, kw, g.sw, g.dw, g.pl, g.pr);
  return g;
}

void expect_rank(const std::string& op, const Shape& s, int rank, const char* what) {
  if (s.rank() != rank) {
    throw ShapeError(op + ": " + what + " must have rank " + std::to_string(rank) + ", got " + s.to_string());
  }
}

void check_kernel_channels(const std::string& op, const Shape& x, const Shape& k, std::int64_t groups) {
  if (x.dims()[3] != kUnknownDim && x.dims()[3] != k.dims()[2] * groups) {
    throw ShapeError(op + ": input " + x.to_string() + " has " + std::to_string(x.dims()[3]) +
                     " channels but the kernel " + k.to_string() + " expects " +
                     std::to_string(k.dims()[2] * groups) + (groups > 1 ? " (in/groups × groups)" : ""));
  }
}

// Per-thread scratch that only grows.
float* scratch(std::size_t floats) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < floats) buffer.resize(floats);
  return buffer.data();
}

// Images per block: enough output rows for an efficient GEMM, bounded scratch.
std::int64_t images_per_block(const Geom& g) {
  const std::int64_t rows = std::max<std::int64_t>(g.rows(), 1);
  const std::int64_t per = std::max<std::int64_t>(1, 2048 / rows);
  const int threads = cpu::num_threads();
  // Leave every thread at least one block when the batch allows it.
  const std::int64_t balanced = std::max<std::int64_t>(1, (g.n + threads - 1) / threads);
  return std::min(per, balanced);
}

// cols (positions, kdim) for group `gi` and the output positions [p0, p1), numbered
// over (image, output row, output column).
void im2col(const Geom& g, const float* x, std::int64_t p0, std::int64_t p1, std::int64_t gi, float* cols) {
  const std::int64_t kdim = g.kdim();
  // Without groups or horizontal dilation, a kernel row's kw·C inputs are one contiguous
  // run of NHWC memory: copied at once where it lies inside the image (most windows).
  const bool contiguous_rows = g.groups == 1 && g.dw == 1;
  const std::int64_t run = g.kw * g.c;
  for (std::int64_t pos = p0; pos < p1; ++pos) {
    const std::int64_t n = pos / g.rows(), oy = pos % g.rows() / g.ow, ox = pos % g.ow;
    const float* xn = x + n * g.h * g.w * g.c + gi * g.cg;
    float* row = cols + (pos - p0) * kdim;
    const std::int64_t ix0 = ox * g.sw - g.pl;
    for (std::int64_t ky = 0; ky < g.kh; ++ky) {
      const std::int64_t iy = oy * g.sh + ky * g.dh - g.pt;
      if (contiguous_rows && iy >= 0 && iy < g.h && ix0 >= 0 && ix0 + g.kw <= g.w) {
        std::memcpy(row, xn + (iy * g.w + ix0) * g.c, static_cast<std::size_t>(run) * sizeof(float));
        row += run;
        continue;
      }
      for (std::int64_t kx = 0; kx < g.kw; ++kx, row += g.cg) {
        const std::int64_t ix = ox * g.sw + kx * g.dw - g.pl;
        if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) {
          std::fill_n(row, g.cg, 0.f);
        } else {
          // A plain loop: few channels per group (the first layer's 1) make memcpy's
          // call cost dominate.
          const float* src = xn + (iy * g.w + ix) * g.c;
          for (std::int64_t c = 0; c < g.cg; ++c) row[c] = src[c];
        }
      }
    }
  }
}

// dx[images n0..n1, group gi] += col2im(cols).
void col2im_add(const Geom& g, const float* cols, std::int64_t n0, std::int64_t n1, std::int64_t gi, float* dx) {
  const std::int64_t kdim = g.kdim();
  const bool contiguous_rows = g.groups == 1 && g.dw == 1;  // as in im2col
  const std::int64_t run = g.kw * g.c;
  for (std::int64_t n = n0; n < n1; ++n) {
    float* dn = dx + n * g.h * g.w * g.c + gi * g.cg;
    for (std::int64_t oy = 0; oy < g.oh; ++oy) {
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        const float* row = cols + (((n - n0) * g.oh + oy) * g.ow + ox) * kdim;
        const std::int64_t ix0 = ox * g.sw - g.pl;
        for (std::int64_t ky = 0; ky < g.kh; ++ky) {
          const std::int64_t iy = oy * g.sh + ky * g.dh - g.pt;
          if (contiguous_rows && iy >= 0 && iy < g.h && ix0 >= 0 && ix0 + g.kw <= g.w) {
            float* __restrict dst = dn + (iy * g.w + ix0) * g.c;
            const float* __restrict src = row;
            for (std::int64_t t = 0; t < run; ++t) dst[t] += src[t];
            row += run;
            continue;
          }
          for (std::int64_t kx = 0; kx < g.kw; ++kx, row += g.cg) {
            const std::int64_t ix = ox * g.sw + kx * g.dw - g.pl;
            if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
            float* dst = dn + (iy * g.w + ix) * g.c;
            for (std::int64_t c = 0; c < g.cg; ++c) dst[c] += row[c];
          }
        }
      }
    }
  }
}

// Runs fn(p0, p1) over blocks of output positions (numbered over image, output row and
// column), in parallel: up to 2048 positions a block, and at least one block a thread,
// so that one image (batch-1 inference) still splits over the threads.
template <typename Fn>
void for_each_position_block(const Geom& g, Fn fn) {
  const std::int64_t positions = g.n * g.rows();
  const int threads = cpu::num_threads();
  const std::int64_t per = std::clamp<std::int64_t>((positions + threads - 1) / threads, 1, 2048);
  cpu::parallel_for((positions + per - 1) / per, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) fn(b * per, std::min(positions, (b + 1) * per));
  }, 1);
}

// Runs fn(n0, n1) over blocks of images, in parallel.
template <typename Fn>
void for_each_block(const Geom& g, Fn fn) {
  const std::int64_t per = images_per_block(g);
  const std::int64_t blocks = (g.n + per - 1) / per;
  cpu::parallel_for(blocks, [&](std::int64_t b0, std::int64_t b1) {
    for (std::int64_t b = b0; b < b1; ++b) fn(b * per, std::min(g.n, (b + 1) * per));
  }, 2);
}

// Below this depth (kh·kw·channels per group: the first layer of an image model, 9 for a
// 3×3 kernel on one channel) Eigen's GEMM spends its time packing; a direct loop with the
// output channels innermost (vectorized) is several times faster. Strata's packed kernel
// reads such an A in place and is faster still (the CNN's training step 12.3 to 11.5 ms,
// batch-1 inference 58.7 to 52.8 µs on one thread), so the loop serves builds without it.
constexpr std::int64_t kSmallDepth = 16;

// y[r, o] = Σ_k a[r, k]·b[k, o] for o < n; b and y have row stride ldb / ldy.
void small_depth_product(const float* a, std::int64_t rows, std::int64_t depth, const float* b, std::int64_t n,
                         std::int64_t ldb, float* y, std::int64_t ldy = -1) {
  if (ldy < 0) ldy = ldb;
  // Sixteen outputs at a time are summed in a local array the compiler keeps in
  // registers, so `out` is stored once instead of loaded and stored at every k.
  constexpr std::int64_t kLanes = 16;
  for (std::int64_t r = 0; r < rows; ++r) {
    float* out = y + r * ldy;
    const float* ar = a + r * depth;
    std::int64_t o0 = 0;
    for (; o0 + kLanes <= n; o0 += kLanes) {
      float acc[kLanes] = {};
      for (std::int64_t k = 0; k < depth; ++k) {
        const float v = ar[k];
        const float* br = b + k * ldb + o0;
        for (std::int64_t j = 0; j < kLanes; ++j) acc[j] += v * br[j];
      }
      for (std::int64_t j = 0; j < kLanes; ++j) out[o0 + j] = acc[j];
    }
    for (std::int64_t o = o0; o < n; ++o) out[o] = 0.f;
    for (std::int64_t k = 0; k < depth; ++k) {
      const float v = ar[k];
      const float* br = b + k * ldb;
      for (std::int64_t o = o0; o < n; ++o) out[o] += v * br[o];
    }
  }
}

// bias (may be null) and relu applied to rows [0, rows) of y (row stride g.o).
void epilogue(const Geom& g, float* y, std::int64_t rows, const float* bias, bool relu) {
  if (!bias && !relu) return;
  for (std::int64_t r = 0; r < rows; ++r) {
    float* row = y + r * g.o;
    if (bias) {
      for (std::int64_t o = 0; o < g.o; ++o) row[o] += bias[o];
    }
    if (relu) {
      for (std::int64_t o = 0; o < g.o; ++o) row[o] = row[o] > 0.f ? row[o] : 0.f;
    }
  }
}

void conv2d_forward(const Geom& g, const float* x, const float* k, float* y, const float* bias, bool relu) {
  if (g.pointwise()) {
    const std::int64_t rows = g.n * g.h * g.w;
    cpu::gemm(false, false, rows, g.o, g.c, x, g.c, k, g.o, y, g.o);
    cpu::parallel_for(rows, [&](std::int64_t b, std::int64_t e) { epilogue(g, y + b * g.o, e - b, bias, relu); },
                      std::max<std::int64_t>(1, cpu::kParallelThreshold / g.o));
    return;
  }
  const std::int64_t kdim = g.kdim();
  for_each_position_block(g, [&](std::int64_t p0, std::int64_t p1) {
    const std::int64_t rows = p1 - p0;
    float* cols = scratch(static_cast<std::size_t>(rows * kdim));
    float* yb = y + p0 * g.o;
    for (std::int64_t gi = 0; gi < g.groups; ++gi) {
      im2col(g, x, p0, p1, gi, cols);
      if (kdim <= kSmallDepth && !cpu::packed_gemm_available()) {  // see kSmallDepth
        small_depth_product(cols, rows, kdim, k + gi * g.og, g.og, g.o, yb + gi * g.og);
      } else {
        // y (rows × og) = cols (rows × kdim) · k (kdim × og).
        cpu::gemm_serial(false, false, rows, g.og, kdim, cols, kdim, k + gi * g.og, g.o, yb + gi * g.og, g.o, false);
      }
    }
    epilogue(g, yb, rows, bias, relu);  // while the block is in cache
  });
}

void conv2d_input_grad(const Geom& g, const float* dy, const float* k, float* dx) {
  if (g.pointwise()) {
    cpu::gemm(false, true, g.n * g.h * g.w, g.c, g.o, dy, g.o, k, g.o, dx, g.c);
    return;
  }
  const std::int64_t kdim = g.kdim();
  for_each_block(g, [&](std::int64_t n0, std::int64_t n1) {
    const std::int64_t rows = (n1 - n0) * g.rows();
    std::fill(dx + n0 * g.h * g.w * g.c, dx + n1 * g.h * g.w * g.c, 0.f);
    float* cols = scratch(static_cast<std::size_t>(rows * kdim));
    for (std::int64_t gi = 0; gi < g.groups; ++gi) {
      // cols (rows × kdim) = dy (rows × og) · kᵀ (og × kdim).
      cpu::gemm_serial(false, true, rows, kdim, g.og, dy + n0 * g.rows() * g.o + gi * g.og, g.o, k + gi * g.og, g.o,
                       cols, kdim, false);
      col2im_add(g, cols, n0, n1, gi, dx);
    }
  });
}

void conv2d_filter_grad(const Geom& g, const float* x, const float* dy, float* dk) {
  const std::int64_t kdim = g.kdim();
  const std::int64_t ksize = kdim * g.o;
  if (g.pointwise()) {
    cpu::gemm(true, false, g.c, g.o, g.n * g.h * g.w, x, g.c, dy, g.o, dk, g.o);
    return;
  }
  // Each thread sums its blocks into its own partial; the partials are added at the end.
  // They live in the calling thread's scratch (core/cpu/scratch.h), reused every run.
  const int threads = cpu::num_threads();
  float* partials = cpu::scratch(0, static_cast<std::size_t>(threads * ksize));
  std::fill_n(partials, threads * ksize, 0.f);
  for_each_block(g, [&](std::int64_t n0, std::int64_t n1) {
    float* part = partials + static_cast<std::int64_t>(cpu::thread_index()) * ksize;
    const std::int64_t rows = (n1 - n0) * g.rows();
    float* cols = scratch(static_cast<std::size_t>(rows * kdim));
    for (std::int64_t gi = 0; gi < g.groups; ++gi) {
      im2col(g, x, n0 * g.rows(), n1 * g.rows(), gi, cols);
      // dk (kdim × og) += colsᵀ (kdim × rows) · dy (rows × og).
      cpu::gemm_serial(true, false, kdim, g.og, rows, cols, kdim, dy + n0 * g.rows() * g.o + gi * g.og, g.o,
                       part + gi * g.og, g.o, true);
    }
  });
  std::fill(dk, dk + ksize, 0.f);
  for (int t = 0; t < threads; ++t) {
    const float* part = partials + static_cast<std::int64_t>(t) * ksize;
    for (std::int64_t i = 0; i < ksize; ++i) dk[i] += part[i];
  }
}

std::vector<TensorSpec> infer_conv2d(const InferContext& ctx) {
  if (ctx.inputs.size() != 2 && ctx.inputs.size() != 3) {
    throw ValueError("conv2d: takes (input, kernel) or (input, kernel, bias), got " +
                     std::to_string(ctx.inputs.size()) + " inputs");
  }
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "kernel");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  Conv2DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, x, 4, "input (N, H, W, C)");
  expect_rank(ctx.op, k, 4, "kernel (kh, kw, C/groups, O)");
  check_kernel_channels(ctx.op, x, k, p.groups);
  Geom g = make_geom(x, k.dims()[0], k.dims()[1], k.dims()[3], p, ctx.op);
  if (ctx.inputs.size() == 3 && ctx.inputs[2].shape != Shape{g.o}) {
    throw ShapeError(ctx.op + ": bias " + ctx.inputs[2].shape.to_string() + " does not match " +
                     std::to_string(g.o) + " output channels");
  }
  const std::string act = ctx.attrs.get_or<std::string>("activation", "");
  if (!act.empty() && act != "relu") throw ValueError(ctx.op + ": fused activation must be '' or 'relu', got '" + act + "'");
  return {{Shape{g.n, g.oh, g.ow, g.o}, DType::float32}};
}

std::vector<TensorSpec> infer_backprop_input(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0, "gradient");
  expect_float_input(ctx, 1, "kernel");
  const Shape& dy = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  Conv2DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, dy, 4, "gradient (N, OH, OW, O)");
  expect_rank(ctx.op, k, 4, "kernel (kh, kw, C/groups, O)");
  const auto& size = attr_vec(ctx.attrs, "input_size");
  if (dy.dims()[3] != kUnknownDim && dy.dims()[3] != k.dims()[3]) {
    throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " has " + std::to_string(dy.dims()[3]) +
                     " channels but the kernel " + k.to_string() + " produces " + std::to_string(k.dims()[3]));
  }
  Shape x{dy.dims()[0], size.at(0), size.at(1), k.dims()[2] * p.groups};
  Geom g = make_geom(x, k.dims()[0], k.dims()[1], k.dims()[3], p, ctx.op);
  if ((dy.dims()[1] != kUnknownDim && dy.dims()[1] != g.oh) || (dy.dims()[2] != kUnknownDim && dy.dims()[2] != g.ow)) {
    throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " does not match the output size (" +
                     std::to_string(g.oh) + ", " + std::to_string(g.ow) + ") of input " + x.to_string());
  }
  return {{x, DType::float32}};
}

std::vector<TensorSpec> infer_backprop_filter(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "gradient");
  const Shape& x = ctx.inputs[0].shape;
  const Shape& dy = ctx.inputs[1].shape;
  Conv2DParams p = params_of(ctx.attrs);
  check_params(ctx.op, p);
  expect_rank(ctx.op, x, 4, "input (N, H, W, C)");
  expect_rank(ctx.op, dy, 4, "gradient (N, OH, OW, O)");
  const auto& ks = attr_vec(ctx.attrs, "kernel_size");
  if (x.dims()[3] == kUnknownDim || dy.dims()[3] == kUnknownDim) {
    throw ShapeError(ctx.op + ": channel counts must be known, got " + x.to_string() + " and " + dy.to_string());
  }
  Geom g = make_geom(x, ks.at(0), ks.at(1), dy.dims()[3], p, ctx.op);
  if ((dy.dims()[1] != kUnknownDim && dy.dims()[1] != g.oh) || (dy.dims()[2] != kUnknownDim && dy.dims()[2] != g.ow)) {
    throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " does not match the output size of input " +
                     x.to_string());
  }
  return {{Shape{ks[0], ks[1], g.cg, g.o}, DType::float32}};
}

// The gradient before a fused relu, given dy, the gradient of the conv node `n`'s output
// y = relu(z): dz = dy·[y > 0]. When dy is max pooling's gradient of y alone (Conv2D
// followed by MaxPooling2D, the usual image model), one max_pool2d_relu_grad node makes
// dz and the bias gradient in a single pass, and the pool-gradient node autodiff made
// is left unused (the Program prunes it). Otherwise a relu_grad node; the bias gradient
// (second) is then not made here.
std::pair<Output, Output> relu_gradient(const Node& n, Output dy) {
  const Output y{dy.graph, n.id, 0};
  const Node& producer = dy.graph->node(dy.node);
  if (producer.op == "max_pool2d_grad" && producer.inputs.at(0) == y && dy.index == 0) {
    const Attrs& a = producer.attrs;
    const Pool2DParams pool{a.get<std::vector<std::int64_t>>("pool_size"), a.get<std::vector<std::int64_t>>("strides"),
                            a.get<std::vector<std::int64_t>>("pads")};
    return max_pool2d_relu_grad(y, producer.inputs.at(1), pool);
  }
  return {relu_grad(dy, y), Output{}};
}

}  // namespace

std::int64_t conv_output_length(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t dilation,
                                std::int64_t pad_before, std::int64_t pad_after) {
  const std::int64_t eff = (kernel - 1) * dilation + 1;
  const std::int64_t padded = size + pad_before + pad_after;
  if (padded < eff) return 0;
  return (padded - eff) / stride + 1;
}

void register_conv_ops(OpRegistry& r) {
  r.add({.name = "conv2d", .infer = infer_conv2d,
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& x = ctx.input(0);
           const Tensor& k = ctx.input(1);
           Geom g = make_geom(x.shape(), k.shape()[0], k.shape()[1], k.shape()[3], params_ref(ctx.node.attrs),
                              "conv2d");
           const float* bias = ctx.inputs.size() == 3 ? ctx.input(2).data<float>() : nullptr;
           const bool relu = fuses_relu(ctx.node);
           conv2d_forward(g, x.data<float>(), k.data<float>(), ctx.output(0).data<float>(), bias, relu);
         },
         // y = act(conv(x, k) + b): dz = relu_grad(dy, y) (or dy), then the adjoints of
         // the bilinear conv and the sum over (N, H, W) for the bias.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], k = n.inputs[1];
           Conv2DParams p = params_of(n.attrs);
           Output dz = g[0], db;
           if (fuses_relu(n)) {
             std::tie(dz, db) = relu_gradient(n, g[0]);
           }
           std::vector<Output> grads{conv2d_backprop_input(dz, k, {x.shape()[1], x.shape()[2]}, p),
                                     conv2d_backprop_filter(x, dz, {k.shape()[0], k.shape()[1]}, p)};
           if (n.inputs.size() == 3) grads.push_back(db.valid() ? db : reduce_sum(dz, {0, 1, 2}));
           return grads;
         },
         .cuda_kernel = STRATA_CUDNN_KERNEL(cuda::conv2d)});
  r.add({.name = "conv2d_backprop_input", .infer = infer_backprop_input,
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& k = ctx.input(1);
           Tensor& dx = ctx.output(0);
           Geom g = make_geom(dx.shape(), k.shape()[0], k.shape()[1], k.shape()[3], params_ref(ctx.node.attrs),
                              "conv2d_backprop_input");
           conv2d_input_grad(g, ctx.input(0).data<float>(), k.data<float>(), dx.data<float>());
         },
         // dx = B(dy, k): adjoint in dy is conv2d(·, k); in k it is backprop_filter(·, dy).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output dy = n.inputs[0], k = n.inputs[1];
           Conv2DParams p = params_of(n.attrs);
           return std::vector<Output>{conv2d(g[0], k, p),
                                      conv2d_backprop_filter(g[0], dy, {k.shape()[0], k.shape()[1]}, p)};
         },
         .cuda_kernel = STRATA_CUDNN_KERNEL(cuda::conv2d_backprop_input)});
  r.add({.name = "conv2d_backprop_filter", .infer = infer_backprop_filter,
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& x = ctx.input(0);
           const Tensor& dy = ctx.input(1);
           Tensor& dk = ctx.output(0);
           Geom g = make_geom(x.shape(), dk.shape()[0], dk.shape()[1], dk.shape()[3], params_ref(ctx.node.attrs),
                              "conv2d_backprop_filter");
           conv2d_filter_grad(g, x.data<float>(), dy.data<float>(), dk.data<float>());
         },
         // dk = F(x, dy): adjoint in x is backprop_input(dy, ·); in dy it is conv2d(x, ·).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], dy = n.inputs[1];
           Conv2DParams p = params_of(n.attrs);
           return std::vector<Output>{conv2d_backprop_input(dy, g[0], {x.shape()[1], x.shape()[2]}, p),
                                      conv2d(x, g[0], p)};
         },
         .cuda_kernel = STRATA_CUDNN_KERNEL(cuda::conv2d_backprop_filter)});
}

Output conv2d(Output x, Output kernel, const Conv2DParams& params) {
  return x.graph->add("conv2d", {x, kernel}, attrs_of(params));
}

Output conv2d_bias_activation(Output x, Output kernel, Output bias, const std::string& activation,
                              const Conv2DParams& params) {
  Attrs a = attrs_of(params);
  if (!activation.empty()) a.set("activation", activation);
  std::vector<Output> inputs{x, kernel};
  if (bias.valid()) inputs.push_back(bias);
  return x.graph->add("conv2d", inputs, std::move(a));
}

Output conv2d_backprop_input(Output dy, Output kernel, std::vector<std::int64_t> input_size,
                             const Conv2DParams& params) {
  Attrs a = attrs_of(params);
  a.set("input_size", std::move(input_size));
  return dy.graph->add("conv2d_backprop_input", {dy, kernel}, std::move(a));
}

Output conv2d_backprop_filter(Output x, Output dy, std::vector<std::int64_t> kernel_size,
                              const Conv2DParams& params) {
  Attrs a = attrs_of(params);
  a.set("kernel_size", std::move(kernel_size));
  return x.graph->add("conv2d_backprop_filter", {x, dy}, std::move(a));
}

}  // namespace strata::ops
