// The CPU kernels of conv2d and its two gradients (core/ops/conv_ops.h): im2col over
// blocks of output positions (the forward pass) or of whole images (the gradients), then GEMM.
// Blocks run in parallel on the worker pool (each block's GEMM is one thread's product,
// cpu::gemm_serial; a pointwise convolution is one cpu::gemm on x in place, and one with
// an input scale a product per image or one in all, scaled_pointwise_conv2d); the im2col
// scratch is per thread and grows only when a larger block is first seen, so steady-state
// steps allocate nothing.
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/cpu/depthwise_conv.h"
#include "core/cpu/direct_conv.h"
#include "core/cpu/gemm.h"
#include "core/cpu/kernels/output_rounding.h"
#include "core/cpu/kernels/packed_kernel.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/packed_gemm.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/cpu/vector_math.h"
#include "core/cpu/winograd_conv.h"
#include "core/op_registry.h"
#include "core/ops/conv_ops.h"
#include "core/ops/fused_activation.h"

namespace strata::cpu {
namespace {

using Geom = ops::Conv2DGeometry;

// Per-thread scratch that only grows.
float* im2col_scratch(std::size_t floats) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < floats) buffer.resize(floats);
  return buffer.data();
}

// k's rows scaled by s: out (C × O) = diag(s)·k.
void scale_rows(const Geom& g, const float* k, const float* s, float* out) {
  for (std::int64_t c = 0; c < g.c; ++c) {
    const float sc = s[c];
    const float* kc = k + c * g.o;
    float* oc = out + c * g.o;
    for (std::int64_t o = 0; o < g.o; ++o) oc[o] = kc[o] * sc;
  }
}

// A pointwise convolution of x·s (s per image and channel, a squeeze-and-excitation
// block's scale: the input_scale attribute) as x_n · (diag(s_n)·k): the kernel scaled
// costs C·O an image where the multiplication's own pass read and wrote H·W·C (the
// inference rewrite fuses it only where O < H·W). Sums round as x·(s·k), not (x·s)·k:
// within a rounding of each product. `images` outputs; x and s each have that many
// images or one (broadcast, as the multiplication would).
void scaled_pointwise_conv2d(const Geom& g, std::int64_t images, const float* x, bool x_per_image, const float* k,
                             const float* scale, bool scale_per_image, float* y, const cpu::Epilogue& epilogue) {
  const std::int64_t rows = g.h * g.w;
  const auto kernel_floats = static_cast<std::size_t>(g.c * g.o);
  if (!scale_per_image && x_per_image) {  // one scaled kernel: one product over every image's rows
    thread_local std::vector<float> scaled;
    scaled.resize(kernel_floats);
    scale_rows(g, k, scale, scaled.data());
    cpu::gemm(false, false, images * rows, g.o, g.c, x, g.c, scaled.data(), g.o, y, g.o, epilogue);
    return;
  }
  auto image = [&](std::int64_t n, float* scaled, bool serial) {
    scale_rows(g, k, scale + (scale_per_image ? n * g.c : 0), scaled);
    const float* xn = x + (x_per_image ? n * rows * g.c : 0);
    if (serial) {
      cpu::gemm_serial(false, false, rows, g.o, g.c, xn, g.c, scaled, g.o, y + n * rows * g.o, g.o, false,
                       epilogue.from_row(n * rows));
    } else {
      cpu::gemm(false, false, rows, g.o, g.c, xn, g.c, scaled, g.o, y + n * rows * g.o, g.o,
                epilogue.from_row(n * rows));
    }
  };
  if (images >= cpu::num_threads()) {  // an image a thread at a time, each its own scaled kernel
    cpu::parallel_for(images, [&](std::int64_t n0, std::int64_t n1) {
      thread_local std::vector<float> scaled;
      scaled.resize(kernel_floats);
      for (std::int64_t n = n0; n < n1; ++n) image(n, scaled.data(), true);
    }, 1);
    return;
  }
  thread_local std::vector<float> scaled;  // fewer images than threads: each product split over them
  scaled.resize(kernel_floats);
  for (std::int64_t n = 0; n < images; ++n) image(n, scaled.data(), false);
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
        // Copied a vector at a time in place: a run is short (3·16 floats in ResNet-20's
        // first stage), and memcpy's calls were a tenth of its training step.
        const float* src = xn + (iy * g.w + ix0) * g.c;
        simd::for_lanes(run, [&](std::int64_t i, auto t) { simd::store(row + i, simd::load_as(src + i, t)); });
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

// The step's packed kernel (core/cpu/kernels/packed_kernel.h), or null: where the
// convolution has groups, or its product is one row or one column, which cpu::gemm
// gives the matrix-vector kernel (a packed product would round differently, and a
// prediction must not change between the run before the pack and the runs after).
const cpu::PackedB* packed_kernel(KernelContext& ctx, const Geom& g) {
  if (g.groups != 1 || g.n * g.rows() <= 1 || g.o <= 1) return nullptr;
  cpu::PackedKernel* cache = cpu::PackedKernel::of(ctx);
  return cache ? cache->for_run(ctx.input(1), g.kdim(), g.o) : nullptr;
}

// The bias and the fused activation are applied by the GEMM to each tile row of y as it
// is written (cpu::Epilogue), not in a pass of their own over y afterwards.
void conv2d_forward(const Geom& g, const float* x, const float* k, float* y, const float* bias, cpu::Activation activation,
                    const cpu::PackedB* packed = nullptr, const float* residual = nullptr,
                    cpu::Rounding rounding = cpu::Rounding::kNone) {
  // The residual (y's shape) is added by the GEMM's epilogue as well.
  const cpu::Epilogue epilogue{bias, activation, residual, g.o, rounding};
  if (g.pointwise()) {
    const std::int64_t rows = g.n * g.h * g.w;
    if (packed && rows <= cpu::kPackedProductMaxRows) {
      cpu::gemm_prepacked(rows, x, g.c, *packed, y, g.o, epilogue);
    } else {
      cpu::gemm(false, false, rows, g.o, g.c, x, g.c, k, g.o, y, g.o, epilogue);
    }
    return;
  }
  if (cpu::is_depthwise(g)) {
    if (residual) throw NotImplementedError("conv2d: a fused residual on a depthwise convolution");  // see the rewrite
    cpu::depthwise_conv2d(g, x, k, bias, activation, y);
    // The output rounding (a Conv2D with groups = channels under mixed_bfloat16, a float16
    // scope's) in a pass after the kernel, which takes no epilogue.
    if (rounding != cpu::Rounding::kNone) {
      cpu::parallel_for(g.n * g.oh * g.ow * g.o, [&](std::int64_t begin, std::int64_t end) {
        cpu::apply_rounding(y + begin, end - begin, rounding);
      });
    }
    return;
  }
  const std::int64_t kdim = g.kdim();
  for_each_position_block(g, [&](std::int64_t p0, std::int64_t p1) {
    const std::int64_t rows = p1 - p0;
    float* cols = im2col_scratch(static_cast<std::size_t>(rows * kdim));
    float* yb = y + p0 * g.o;
    for (std::int64_t gi = 0; gi < g.groups; ++gi) {
      im2col(g, x, p0, p1, gi, cols);
      // Each group's columns of this block of y with their part of the bias and residual.
      const cpu::Epilogue group_epilogue = epilogue.from_row(p0).from_column(gi * g.og);
      if (packed) {
        cpu::packed_gemm_prepacked(rows, cols, kdim, *packed, yb, g.o, false, group_epilogue);
      } else if (kdim <= kSmallDepth && !cpu::packed_gemm_available()) {  // see kSmallDepth
        small_depth_product(cols, rows, kdim, k + gi * g.og, g.og, g.o, yb + gi * g.og);
        cpu::apply_epilogue(group_epilogue, yb + gi * g.og, g.o, rows, g.og);  // while the block is in cache
      } else {
        // y (rows × og) = cols (rows × kdim) · k (kdim × og).
        cpu::gemm_serial(false, false, rows, g.og, kdim, cols, kdim, k + gi * g.og, g.o, yb + gi * g.og, g.o, false,
                         group_epilogue);
      }
    }
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
    float* cols = im2col_scratch(static_cast<std::size_t>(rows * kdim));
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
    float* cols = im2col_scratch(static_cast<std::size_t>(rows * kdim));
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

// The step's 3×3 kernel transformed for Winograd (winograd_conv.h), redone when the
// weights change (every training step: 36·C·O floats, a small part of the step's
// convolution) or the kernels' path switched.
// For the input's gradient (conv2d_backprop_input), the kernel turned into the one whose
// convolution of dy is dx: rotated 180° in the window, input and output channels swapped.
struct WinogradKernelCache final : KernelCache {
  const cpu::WinogradKernel& for_run(const Tensor& kernel, std::int64_t c, std::int64_t o,
                                     bool for_input_gradient = false) {
    const Tensor::Version version = kernel.version();
    const std::int64_t in = for_input_gradient ? o : c, out = for_input_gradient ? c : o;
    if (!valid || version != seen || transformed.c() != in || transformed.o() != out ||
        (packed_gemm_available() && transformed.isa() != kernel_isa())) {
      const float* k = kernel.data<float>();
      if (for_input_gradient) {
        rotated.resize(static_cast<std::size_t>(9 * c * o));
        for (std::int64_t tap = 0; tap < 9; ++tap) {
          const float* from = k + (8 - tap) * c * o;  // (2 - ky, 2 - kx)
          float* to = rotated.data() + tap * c * o;
          for (std::int64_t ci = 0; ci < c; ++ci) {
            for (std::int64_t oi = 0; oi < o; ++oi) to[oi * c + ci] = from[ci * o + oi];
          }
        }
        k = rotated.data();
      }
      transformed.transform(k, in, out);
      seen = version;
      valid = true;
    }
    return transformed;
  }
  static WinogradKernelCache& of(KernelContext& ctx) {
    if (auto* cache = dynamic_cast<WinogradKernelCache*>(ctx.cache.get())) return *cache;
    ctx.cache = std::make_unique<WinogradKernelCache>();
    return static_cast<WinogradKernelCache&>(*ctx.cache);
  }

  cpu::WinogradKernel transformed;
  std::vector<float> rotated;
  Tensor::Version seen;
  bool valid = false;
};

void conv2d_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& k = ctx.input(1);
  Geom g = ops::conv2d_geometry(x.shape(), k.shape()[0], k.shape()[1], k.shape()[3], ctx.node.attrs, "conv2d");
  // (x, kernel[, bias][, input scale][, residual]): the input scale and the residual only
  // with their attributes (the inference rewrite's), the residual last.
  const bool has_residual = ctx.node.attrs.get_or<bool>("residual", false);
  const bool has_scale = ctx.node.attrs.get_or<bool>("input_scale", false);
  const std::size_t operands = ctx.inputs.size() - (has_residual ? 1 : 0) - (has_scale ? 1 : 0);
  const float* bias = operands == 3 ? ctx.input(2).data<float>() : nullptr;
  const float* residual = has_residual ? ctx.inputs.back()->data<float>() : nullptr;
  const ops::FusedActivation fused = ops::fused_activation(ctx.node);
  const cpu::Activation activation = fused == ops::FusedActivation::relu    ? cpu::Activation::kRelu
                                     : fused == ops::FusedActivation::relu6 ? cpu::Activation::kRelu6
                                     : fused == ops::FusedActivation::silu  ? cpu::Activation::kSilu
                                                                            : cpu::Activation::kNone;
  // An emulated bfloat16 layer's result, rounded as each row is written.
  const cpu::Rounding rounding = cpu::output_rounding(ctx.node);
  if (has_scale) {  // a pointwise convolution (inference checks it)
    const Tensor& scale = ctx.input(static_cast<int>(operands));
    const std::int64_t images = ctx.output(0).shape().dims()[0];
    scaled_pointwise_conv2d(g, images, x.data<float>(), g.n == images, k.data<float>(), scale.data<float>(),
                            scale.shape().dims()[0] == images && images != 1, ctx.output(0).data<float>(),
                            cpu::Epilogue{bias, activation, residual, g.o, rounding});
    return;
  }
  if (cpu::winograd_applies(g)) {
    const cpu::WinogradKernel& transformed = WinogradKernelCache::of(ctx).for_run(k, g.c, g.o);
    cpu::winograd_conv2d(g, x.data<float>(), transformed, ctx.output(0).data<float>(),
                         cpu::Epilogue{bias, activation, residual, g.o, rounding});
    return;
  }
  // A first layer's few input channels (a pointwise one stays a product on x in place).
  if (!g.pointwise() && cpu::direct_conv_applies(g)) {
    cpu::direct_conv2d(g, x.data<float>(), k.data<float>(), ctx.output(0).data<float>(),
                       cpu::Epilogue{bias, activation, residual, g.o, rounding});
    return;
  }
  conv2d_forward(g, x.data<float>(), k.data<float>(), ctx.output(0).data<float>(), bias, activation,
                 packed_kernel(ctx, g), residual, rounding);
}

void conv2d_backprop_input_kernel(KernelContext& ctx) {
  const Tensor& k = ctx.input(1);
  Tensor& dx = ctx.output(0);
  Geom g = ops::conv2d_geometry(dx.shape(), k.shape()[0], k.shape()[1], k.shape()[3], ctx.node.attrs,
                                "conv2d_backprop_input");
  if (cpu::is_depthwise(g) && g.og == 1) {
    cpu::depthwise_conv2d_input_grad(g, ctx.input(0).data<float>(), k.data<float>(), dx.data<float>());
    return;
  }
  // At stride 1, dx is dy convolved with the rotated kernel over dy padded by 2 - pad: by
  // Winograd where that convolution qualifies.
  if (cpu::winograd_supports(g) && g.pt <= 2 && g.pl <= 2 && g.pb <= 2 && g.pr <= 2) {
    Geom t = g;
    t.h = g.oh, t.w = g.ow, t.c = g.o, t.cg = g.o;
    t.oh = g.h, t.ow = g.w, t.o = g.c, t.og = g.c;
    t.pt = 2 - g.pt, t.pb = 2 - g.pb, t.pl = 2 - g.pl, t.pr = 2 - g.pr;
    if (cpu::winograd_applies(t)) {
      const cpu::WinogradKernel& rotated = WinogradKernelCache::of(ctx).for_run(k, g.c, g.o, true);
      cpu::winograd_conv2d(t, ctx.input(0).data<float>(), rotated, dx.data<float>(), {});
      return;
    }
  }
  conv2d_input_grad(g, ctx.input(0).data<float>(), k.data<float>(), dx.data<float>());
}

void conv2d_backprop_filter_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& dy = ctx.input(1);
  Tensor& dk = ctx.output(0);
  Geom g = ops::conv2d_geometry(x.shape(), dk.shape()[0], dk.shape()[1], dk.shape()[3], ctx.node.attrs,
                                "conv2d_backprop_filter");
  if (cpu::is_depthwise(g) && g.og == 1) {
    cpu::depthwise_conv2d_filter_grad(g, x.data<float>(), dy.data<float>(), dk.data<float>());
    return;
  }
  if (cpu::winograd_applies(g)) {
    cpu::winograd_conv2d_filter_grad(g, x.data<float>(), dy.data<float>(), dk.data<float>());
    return;
  }
  conv2d_filter_grad(g, x.data<float>(), dy.data<float>(), dk.data<float>());
}

}  // namespace

void register_conv_kernels(OpRegistry& r) {
  r.add_kernel("conv2d", DeviceType::cpu, {.run = conv2d_kernel});
  r.add_kernel("conv2d_backprop_input", DeviceType::cpu, {.run = conv2d_backprop_input_kernel});
  r.add_kernel("conv2d_backprop_filter", DeviceType::cpu, {.run = conv2d_backprop_filter_kernel});
}

}  // namespace strata::cpu
