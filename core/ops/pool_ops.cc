// Pooling kernels: direct loops over NHWC windows, parallel over (image, output row).
#include "core/ops/pool_ops.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/cuda/pool_kernels.h"
#include "core/cuda/upsample_kernels.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/cuda_kernel.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

struct PoolGeom {
  std::int64_t n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl;
};

Pool2DParams params_of(const Attrs& a) {
  return {a.get<std::vector<std::int64_t>>("pool_size"), a.get<std::vector<std::int64_t>>("strides"),
          a.get<std::vector<std::int64_t>>("pads")};
}

// The params read in place from a node's attributes: what kernels use on every run
// (params_of copies three vectors, which would allocate on every step).
struct ParamsRef {
  const std::vector<std::int64_t>& pool_size;
  const std::vector<std::int64_t>& strides;
  const std::vector<std::int64_t>& pads;
};

ParamsRef params_ref(const Attrs& a) {
  return {a.get<std::vector<std::int64_t>>("pool_size"), a.get<std::vector<std::int64_t>>("strides"),
          a.get<std::vector<std::int64_t>>("pads")};
}

Attrs attrs_of(const Pool2DParams& p) {
  return Attrs{{"pool_size", p.pool_size}, {"strides", p.strides}, {"pads", p.pads}};
}

// `p`: Pool2DParams or ParamsRef.
template <typename Params>
PoolGeom make_geom(std::string_view op, const Shape& x, const Params& p) {
  if (x.rank() != 4) throw ShapeError(std::string(op) + ": input must have rank 4 (N, H, W, C), got " + x.to_string());
  if (p.pool_size.size() != 2 || p.strides.size() != 2 || p.pads.size() != 4 || p.pool_size[0] < 1 ||
      p.pool_size[1] < 1 || p.strides[0] < 1 || p.strides[1] < 1) {
    throw ValueError(std::string(op) + ": pool_size and strides must be two positive integers, pads four");
  }
  // A pad as large as the pool would make windows wholly in padding, which pool nothing
  // (Keras's "valid" and "same" never make one; the kernels assume none).
  for (std::size_t i = 0; i < 4; ++i) {
    const std::int64_t k = p.pool_size[i / 2];
    if (p.pads[i] < 0 || p.pads[i] >= k) {
      throw ValueError(std::string(op) + ": pad " + std::to_string(p.pads[i]) + " (pads are top, bottom, left, right)" +
                       " must be at least 0 and smaller than the pool size " + std::to_string(k) +
                       " on its axis: a window wholly in padding pools nothing");
    }
  }
  PoolGeom g{x.dims()[0], x.dims()[1], x.dims()[2], x.dims()[3], 0, 0, p.pool_size[0], p.pool_size[1],
             p.strides[0], p.strides[1], p.pads[0], p.pads[2]};
  auto len = [&](std::int64_t size, std::int64_t k, std::int64_t s, std::int64_t before, std::int64_t after,
                 const char* axis) {
    if (size == kUnknownDim) return kUnknownDim;
    std::int64_t r = conv_output_length(size, k, s, 1, before, after);
    if (r < 1) {
      throw ShapeError(std::string(op) + ": pool " + axis + " " + std::to_string(k) +
                       " is larger than the padded input's " + std::to_string(size + before + after));
    }
    return r;
  };
  g.oh = len(g.h, g.kh, g.sh, p.pads[0], p.pads[1], "height");
  g.ow = len(g.w, g.kw, g.sw, p.pads[2], p.pads[3], "width");
  return g;
}

// Window bounds (clipped to the input) of output cell (oy, ox).
struct Window {
  std::int64_t y0, y1, x0, x1;
};
Window window(const PoolGeom& g, std::int64_t oy, std::int64_t ox) {
  std::int64_t y0 = oy * g.sh - g.pt, x0 = ox * g.sw - g.pl;
  return {std::max<std::int64_t>(y0, 0), std::min(y0 + g.kh, g.h), std::max<std::int64_t>(x0, 0),
          std::min(x0 + g.kw, g.w)};
}

template <typename Fn>
void for_each_output_row(const PoolGeom& g, Fn fn) {
  cpu::parallel_for(g.n * g.oh, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) fn(r / g.oh, r % g.oh);
  }, std::max<std::int64_t>(1, cpu::kParallelThreshold / std::max<std::int64_t>(1, g.ow * g.c * g.kh * g.kw)));
}

void max_pool_kernel(KernelContext& ctx) {
  PoolGeom g = make_geom("max_pool2d", ctx.input(0).shape(), params_ref(ctx.node.attrs));
  const float* x = ctx.input(0).data<float>();
  float* y = ctx.output(0).data<float>();
  for_each_output_row(g, [&](std::int64_t n, std::int64_t oy) {
    for (std::int64_t ox = 0; ox < g.ow; ++ox) {
      Window wd = window(g, oy, ox);
      float* out = y + ((n * g.oh + oy) * g.ow + ox) * g.c;
      std::fill(out, out + g.c, -std::numeric_limits<float>::infinity());
      for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
        for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) {
          const float* in = x + ((n * g.h + iy) * g.w + ix) * g.c;
          for (std::int64_t c = 0; c < g.c; ++c) out[c] = std::max(out[c], in[c]);
        }
      }
    }
  });
}

// dx: dy routed to the first maximum of each window (row-major window order). Channels
// are the inner loop (contiguous in NHWC); the per-channel best value and index live in a
// per-thread scratch that only grows.
// This thread's per-channel running maximum and where it is (a window position or an
// input offset), for the max-pool gradient; they only grow.
template <typename Index>
std::pair<float*, Index*> argmax_buffers(std::int64_t channels) {
  thread_local std::vector<float> best;
  thread_local std::vector<Index> where;
  if (best.size() < static_cast<std::size_t>(channels)) {
    best.resize(static_cast<std::size_t>(channels));
    where.resize(static_cast<std::size_t>(channels));
  }
  return {best.data(), where.data()};
}

// Windows that tile the input (strides equal to the pool size, no padding: Keras's
// default MaxPooling2D) send each input at most one gradient. Every element of dx is then
// written exactly once, with no zero-fill and no scatter, and the argmax is branch-free
// over channels (vectorized). Same result as the general loop: the first maximum wins.
bool windows_tile(const PoolGeom& g) {
  return g.sh == g.kh && g.sw == g.kw && g.pt == 0 && g.pl == 0 && g.oh * g.sh <= g.h && g.ow * g.sw <= g.w;
}

// With kThroughRelu (max_pool2d_relu_grad), x is a relu's output: a window whose maximum
// is not positive passes no gradient (the relu's gradient there is 0), and each window's
// passed gradient is added to its thread's row of `bias_partials` (threads × channels).
template <bool kThroughRelu = false>
void max_pool_grad_tiled(const PoolGeom& g, const float* x, const float* dy, float* dx,
                         float* bias_partials = nullptr) {
  const std::int64_t covered_w = g.ow * g.sw;
  for_each_output_row(g, [&](std::int64_t n, std::int64_t oy) {
#if !defined(__AVX512F__)
    auto [best, arg] = argmax_buffers<std::int32_t>(g.c);
#endif
    float* bias_part = kThroughRelu ? bias_partials + cpu::thread_index() * g.c : nullptr;
    auto at = [&](std::int64_t iy, std::int64_t ix) { return ((n * g.h + iy) * g.w + ix) * g.c; };
    const std::int64_t y0 = oy * g.sh;
    for (std::int64_t ox = 0; ox < g.ow; ++ox) {
      const std::int64_t x0 = ox * g.sw;
      const float* grad = dy + ((n * g.oh + oy) * g.ow + ox) * g.c;
#if defined(__AVX512F__)
      // The loop below, sixteen channels at a time with the same comparisons (ordered
      // "greater", so a NaN never wins, and the first maximum keeps the gradient).
      for (std::int64_t c0 = 0; c0 < g.c; c0 += 16) {
        const __mmask16 live = g.c - c0 >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (g.c - c0)) - 1);
        __m512 top = _mm512_maskz_loadu_ps(live, x + at(y0, x0) + c0);
        __m512i where = _mm512_setzero_si512();
        for (std::int32_t p = 1; p < g.kh * g.kw; ++p) {
          const __m512 v = _mm512_maskz_loadu_ps(live, x + at(y0 + p / g.kw, x0 + p % g.kw) + c0);
          const __mmask16 greater = _mm512_cmp_ps_mask(v, top, _CMP_GT_OQ);
          top = _mm512_mask_mov_ps(top, greater, v);
          where = _mm512_mask_mov_epi32(where, greater, _mm512_set1_epi32(p));
        }
        const __m512 gv = _mm512_maskz_loadu_ps(live, grad + c0);
        __mmask16 passes = live;
        if constexpr (kThroughRelu) {
          passes &= _mm512_cmp_ps_mask(top, _mm512_setzero_ps(), _CMP_GT_OQ);
          const __m512 sum = _mm512_add_ps(_mm512_maskz_loadu_ps(live, bias_part + c0), _mm512_maskz_mov_ps(passes, gv));
          _mm512_mask_storeu_ps(bias_part + c0, live, sum);
        }
        for (std::int32_t p = 0; p < g.kh * g.kw; ++p) {
          const __mmask16 here = passes & _mm512_cmpeq_epi32_mask(where, _mm512_set1_epi32(p));
          _mm512_mask_storeu_ps(dx + at(y0 + p / g.kw, x0 + p % g.kw) + c0, live, _mm512_maskz_mov_ps(here, gv));
        }
      }
#else
      const float* first = x + at(y0, x0);
      for (std::int64_t c = 0; c < g.c; ++c) best[c] = first[c], arg[c] = 0;
      for (std::int32_t p = 1; p < g.kh * g.kw; ++p) {
        const float* in = x + at(y0 + p / g.kw, x0 + p % g.kw);
        for (std::int64_t c = 0; c < g.c; ++c) {
          const bool greater = in[c] > best[c];
          best[c] = greater ? in[c] : best[c];
          arg[c] = greater ? p : arg[c];
        }
      }
      if constexpr (kThroughRelu) {
        for (std::int64_t c = 0; c < g.c; ++c) {
          if (!(best[c] > 0.f)) arg[c] = -1;  // no position gets the gradient
          bias_part[c] += best[c] > 0.f ? grad[c] : 0.f;
        }
      }
      for (std::int32_t p = 0; p < g.kh * g.kw; ++p) {
        float* out = dx + at(y0 + p / g.kw, x0 + p % g.kw);
        for (std::int64_t c = 0; c < g.c; ++c) out[c] = arg[c] == p ? grad[c] : 0.f;
      }
#endif
    }
    // Inputs no window covers: the columns right of the last window in these rows, and
    // (with the last output row) the rows below it.
    for (std::int64_t iy = y0; iy < y0 + g.kh; ++iy) {
      std::fill(dx + at(iy, covered_w), dx + at(iy, 0) + g.w * g.c, 0.f);
    }
    if (oy == g.oh - 1) std::fill(dx + at(y0 + g.kh, 0), dx + at(0, 0) + g.h * g.w * g.c, 0.f);
  });
}

void max_pool_grad_kernel(KernelContext& ctx) {
  const Tensor& xt = ctx.input(0);
  PoolGeom g = make_geom("max_pool2d_grad", xt.shape(), params_ref(ctx.node.attrs));
  const float* x = xt.data<float>();
  const float* dy = ctx.input(1).data<float>();
  float* dx = ctx.output(0).data<float>();
  if (windows_tile(g)) return max_pool_grad_tiled(g, x, dy, dx);
  // Parallel over images: windows of one image may overlap, images never do.
  cpu::parallel_for(g.n, [&](std::int64_t n0, std::int64_t n1) {
    auto [best, at] = argmax_buffers<std::int64_t>(g.c);
    std::fill(dx + n0 * g.h * g.w * g.c, dx + n1 * g.h * g.w * g.c, 0.f);
    for (std::int64_t n = n0; n < n1; ++n) {
      for (std::int64_t oy = 0; oy < g.oh; ++oy) {
        for (std::int64_t ox = 0; ox < g.ow; ++ox) {
          Window wd = window(g, oy, ox);
          const std::int64_t first = ((n * g.h + wd.y0) * g.w + wd.x0) * g.c;
          for (std::int64_t c = 0; c < g.c; ++c) best[c] = x[first + c], at[c] = first + c;
          for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
            for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) {
              const std::int64_t base = ((n * g.h + iy) * g.w + ix) * g.c;
              for (std::int64_t c = 0; c < g.c; ++c) {
                if (x[base + c] > best[c]) best[c] = x[base + c], at[c] = base + c;
              }
            }
          }
          const float* grad = dy + ((n * g.oh + oy) * g.ow + ox) * g.c;
          for (std::int64_t c = 0; c < g.c; ++c) dx[at[c]] += grad[c];
        }
      }
    }
  }, 2);
}

void avg_pool_kernel(KernelContext& ctx) {
  PoolGeom g = make_geom("avg_pool2d", ctx.input(0).shape(), params_ref(ctx.node.attrs));
  const float* x = ctx.input(0).data<float>();
  float* y = ctx.output(0).data<float>();
  for_each_output_row(g, [&](std::int64_t n, std::int64_t oy) {
    for (std::int64_t ox = 0; ox < g.ow; ++ox) {
      Window wd = window(g, oy, ox);
      float* out = y + ((n * g.oh + oy) * g.ow + ox) * g.c;
      std::fill(out, out + g.c, 0.f);
      for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
        for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) {
          const float* in = x + ((n * g.h + iy) * g.w + ix) * g.c;
          for (std::int64_t c = 0; c < g.c; ++c) out[c] += in[c];
        }
      }
      const float inv = 1.f / static_cast<float>((wd.y1 - wd.y0) * (wd.x1 - wd.x0));
      for (std::int64_t c = 0; c < g.c; ++c) out[c] *= inv;
    }
  });
}

void avg_pool_grad_kernel(KernelContext& ctx) {
  Tensor& dxt = ctx.output(0);
  PoolGeom g = make_geom("avg_pool2d_grad", dxt.shape(), params_ref(ctx.node.attrs));
  const float* dy = ctx.input(0).data<float>();
  float* dx = dxt.data<float>();
  cpu::parallel_for(g.n, [&](std::int64_t n0, std::int64_t n1) {
    std::fill(dx + n0 * g.h * g.w * g.c, dx + n1 * g.h * g.w * g.c, 0.f);
    for (std::int64_t n = n0; n < n1; ++n) {
      for (std::int64_t oy = 0; oy < g.oh; ++oy) {
        for (std::int64_t ox = 0; ox < g.ow; ++ox) {
          Window wd = window(g, oy, ox);
          const float* grad = dy + ((n * g.oh + oy) * g.ow + ox) * g.c;
          const float inv = 1.f / static_cast<float>((wd.y1 - wd.y0) * (wd.x1 - wd.x0));
          for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
            for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) {
              float* d = dx + ((n * g.h + iy) * g.w + ix) * g.c;
              for (std::int64_t c = 0; c < g.c; ++c) d[c] += grad[c] * inv;
            }
          }
        }
      }
    }
  }, 2);
}

std::vector<TensorSpec> infer_pool(const InferContext& ctx) {
  expect_inputs(ctx, 1);
  expect_float_input(ctx, 0);
  PoolGeom g = make_geom(ctx.op, ctx.inputs[0].shape, params_of(ctx.attrs));
  return {{Shape{g.n, g.oh, g.ow, g.c}, DType::float32}};
}

std::vector<std::int64_t> hw(const Output& x) { return {x.shape()[1], x.shape()[2]}; }

// Inputs (x, dy) of a max-pool gradient: float, dy shaped as x pooled. Returns the
// geometry.
PoolGeom check_max_pool_grad_inputs(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0);
  expect_float_input(ctx, 1, "gradient");
  PoolGeom g = make_geom(ctx.op, ctx.inputs[0].shape, params_of(ctx.attrs));
  if (!ctx.inputs[1].shape.is_compatible_with(Shape{g.n, g.oh, g.ow, g.c})) {
    throw ShapeError(ctx.op + ": gradient " + ctx.inputs[1].shape.to_string() + " does not match the pooled shape of " +
                     ctx.inputs[0].shape.to_string());
  }
  return g;
}

// The gradient through max pooling of a relu's output and through that relu, and the
// sum of it over (N, H, W): what a Conv2D(activation="relu") followed by MaxPooling2D
// needs for its pre-activation and bias gradients, in one pass over the activations
// instead of three (pool gradient, relu gradient, bias sum). conv2d's gradient builds it
// (conv_ops.cc).
void max_pool_relu_grad_kernel(KernelContext& ctx) {
  const Tensor& yt = ctx.input(0);
  PoolGeom g = make_geom("max_pool2d_relu_grad", yt.shape(), params_ref(ctx.node.attrs));
  const float* y = yt.data<float>();
  const float* dy = ctx.input(1).data<float>();
  float* dz = ctx.output(0).data<float>();
  float* db = ctx.output(1).data<float>();
  std::fill_n(db, g.c, 0.f);
  if (windows_tile(g)) {
    const int threads = cpu::num_threads();
    float* partials = cpu::scratch(0, static_cast<std::size_t>(threads * g.c));
    std::fill_n(partials, threads * g.c, 0.f);
    max_pool_grad_tiled<true>(g, y, dy, dz, partials);
    for (int t = 0; t < threads; ++t) {
      for (std::int64_t c = 0; c < g.c; ++c) db[c] += partials[t * g.c + c];
    }
    return;
  }
  // Overlapping or padded windows: the plain pool gradient, then the relu's mask and the
  // channel sums in a second pass.
  max_pool_grad_kernel(ctx);
  const std::int64_t positions = g.n * g.h * g.w;
  for (std::int64_t i = 0; i < positions; ++i) {
    for (std::int64_t c = 0; c < g.c; ++c) {
      float& v = dz[i * g.c + c];
      v = y[i * g.c + c] > 0.f ? v : 0.f;
      db[c] += v;
    }
  }
}

}  // namespace

void register_pool_ops(OpRegistry& r) {
  r.add({.name = "max_pool2d", .infer = infer_pool, .cpu_kernel = max_pool_kernel,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{max_pool2d_grad(n.inputs[0], g[0], params_of(n.attrs))};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::max_pool2d)});
  r.add({.name = "max_pool2d_grad",
         .infer = [](const InferContext& ctx) {
           check_max_pool_grad_inputs(ctx);
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .cpu_kernel = max_pool_grad_kernel,
         .differentiable = false,
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::max_pool2d_grad)});
  r.add({.name = "max_pool2d_relu_grad",
         .infer = [](const InferContext& ctx) {
           const PoolGeom g = check_max_pool_grad_inputs(ctx);
           if (g.c == kUnknownDim) throw ShapeError(ctx.op + ": the channel count must be known");
           return std::vector<TensorSpec>{ctx.inputs[0], {Shape{g.c}, DType::float32}};
         },
         .cpu_kernel = max_pool_relu_grad_kernel,
         .differentiable = false,
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::max_pool2d_relu_grad)});
  r.add({.name = "avg_pool2d", .infer = infer_pool, .cpu_kernel = avg_pool_kernel,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{avg_pool2d_grad(g[0], hw(n.inputs[0]), params_of(n.attrs))};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::avg_pool2d)});
  r.add({.name = "avg_pool2d_grad",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0, "gradient");
           const Shape& dy = ctx.inputs[0].shape;
           if (dy.rank() != 4) throw ShapeError(ctx.op + ": gradient must have rank 4, got " + dy.to_string());
           const auto& size = ctx.attrs.get<std::vector<std::int64_t>>("input_size");
           Shape x{dy.dims()[0], size.at(0), size.at(1), dy.dims()[3]};
           PoolGeom g = make_geom(ctx.op, x, params_of(ctx.attrs));
           if (!dy.is_compatible_with(Shape{g.n, g.oh, g.ow, g.c})) {
             throw ShapeError(ctx.op + ": gradient " + dy.to_string() + " does not match the pooled shape of " +
                              x.to_string());
           }
           return std::vector<TensorSpec>{{x, DType::float32}};
         },
         .cpu_kernel = avg_pool_grad_kernel,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{avg_pool2d(g[0], params_of(n.attrs))};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::avg_pool2d_grad)});
  r.add({.name = "upsample_nearest2d",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() != 4) throw ShapeError(ctx.op + ": input must have rank 4, got " + x.to_string());
           const auto& s = ctx.attrs.get<std::vector<std::int64_t>>("size");
           if (s.size() != 2 || s[0] < 1 || s[1] < 1) throw ValueError(ctx.op + ": size must be two positive integers");
           auto scale = [](std::int64_t d, std::int64_t f) { return d == kUnknownDim ? d : d * f; };
           return std::vector<TensorSpec>{
               {Shape{x.dims()[0], scale(x.dims()[1], s[0]), scale(x.dims()[2], s[1]), x.dims()[3]}, DType::float32}};
         },
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& xt = ctx.input(0);
           const auto& s = ctx.node.attrs.get<std::vector<std::int64_t>>("size");
           const std::int64_t n = xt.shape()[0], h = xt.shape()[1], w = xt.shape()[2], c = xt.shape()[3];
           const std::int64_t oh = h * s[0], ow = w * s[1];
           const float* x = xt.data<float>();
           float* y = ctx.output(0).data<float>();
           cpu::parallel_for(n * oh, [&](std::int64_t b, std::int64_t e) {
             for (std::int64_t r = b; r < e; ++r) {
               const std::int64_t img = r / oh, oy = r % oh;
               const float* src = x + ((img * h + oy / s[0]) * w) * c;
               float* dst = y + r * ow * c;
               for (std::int64_t ox = 0; ox < ow; ++ox) std::copy_n(src + (ox / s[1]) * c, c, dst + ox * c);
             }
           }, std::max<std::int64_t>(1, cpu::kParallelThreshold / std::max<std::int64_t>(1, ow * c)));
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const auto& s = n.attrs.get<std::vector<std::int64_t>>("size");
           Output pooled = avg_pool2d(g[0], {s, s, {0, 0, 0, 0}});
           return std::vector<Output>{mul(pooled, static_cast<float>(s[0] * s[1]))};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::upsample_nearest2d)});
}

Output max_pool2d(Output x, const Pool2DParams& p) { return x.graph->add("max_pool2d", {x}, attrs_of(p)); }
std::pair<Output, Output> max_pool2d_relu_grad(Output relu_output, Output dy, const Pool2DParams& p) {
  std::vector<Output> out = relu_output.graph->add_node("max_pool2d_relu_grad", {relu_output, dy}, attrs_of(p));
  return {out[0], out[1]};
}

Output max_pool2d_grad(Output x, Output dy, const Pool2DParams& p) {
  return x.graph->add("max_pool2d_grad", {x, dy}, attrs_of(p));
}
Output avg_pool2d(Output x, const Pool2DParams& p) { return x.graph->add("avg_pool2d", {x}, attrs_of(p)); }
Output avg_pool2d_grad(Output dy, std::vector<std::int64_t> input_size, const Pool2DParams& p) {
  Attrs a = attrs_of(p);
  a.set("input_size", std::move(input_size));
  return dy.graph->add("avg_pool2d_grad", {dy}, std::move(a));
}
Output upsample_nearest2d(Output x, std::vector<std::int64_t> size) {
  return x.graph->add("upsample_nearest2d", {x}, Attrs{{"size", std::move(size)}});
}

}  // namespace strata::ops
