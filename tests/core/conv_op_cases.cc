// Op cases for the conv, pooling and array op families (core/ops/conv_ops.cc,
// pool_ops.cc, array_ops.cc): finite-difference gradient checks over several
// geometries (padding, strides, dilation, groups, the 1×1 fast path) and forward values
// against naive loops written here. Registered into op_gradients_test's table.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/pool_ops.h"
#include "op_cases.h"

namespace strata::testing::conv_op_cases {
namespace {

using V = const std::vector<Output>&;
using ops::Conv2DParams;
using ops::Pool2DParams;

struct Geo {
  std::int64_t n, h, w, c, o, kh, kw;
  Conv2DParams p;
  std::int64_t oh() const { return ops::conv_output_length(h, kh, p.strides[0], p.dilations[0], p.pads[0], p.pads[1]); }
  std::int64_t ow() const { return ops::conv_output_length(w, kw, p.strides[1], p.dilations[1], p.pads[2], p.pads[3]); }
};

// Calls f(n, oy, ox, o, ky, kx, c, x_index) for every in-bounds term of the convolution sum.
template <typename F>
void each_term(const Geo& g, F f) {
  const std::int64_t cg = g.c / g.p.groups, og = g.o / g.p.groups;
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t oy = 0; oy < g.oh(); ++oy)
      for (std::int64_t ox = 0; ox < g.ow(); ++ox)
        for (std::int64_t o = 0; o < g.o; ++o)
          for (std::int64_t ky = 0; ky < g.kh; ++ky)
            for (std::int64_t kx = 0; kx < g.kw; ++kx)
              for (std::int64_t c = 0; c < cg; ++c) {
                std::int64_t iy = oy * g.p.strides[0] + ky * g.p.dilations[0] - g.p.pads[0];
                std::int64_t ix = ox * g.p.strides[1] + kx * g.p.dilations[1] - g.p.pads[2];
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                std::int64_t xi = ((n * g.h + iy) * g.w + ix) * g.c + (o / og) * cg + c;
                std::int64_t ki = ((ky * g.kw + kx) * cg + c) * g.o + o;
                std::int64_t yi = ((n * g.oh() + oy) * g.ow() + ox) * g.o + o;
                f(xi, ki, yi);
              }
}

Tensor ref_conv(const Geo& g, const Tensor& x, const Tensor& k) {
  Tensor y(Shape{g.n, g.oh(), g.ow(), g.o});
  each_term(g, [&](auto xi, auto ki, auto yi) { y.data<float>()[yi] += x.data<float>()[xi] * k.data<float>()[ki]; });
  return y;
}
Tensor ref_input_grad(const Geo& g, const Tensor& dy, const Tensor& k) {
  Tensor dx(Shape{g.n, g.h, g.w, g.c});
  each_term(g, [&](auto xi, auto ki, auto yi) { dx.data<float>()[xi] += dy.data<float>()[yi] * k.data<float>()[ki]; });
  return dx;
}
Tensor ref_filter_grad(const Geo& g, const Tensor& x, const Tensor& dy) {
  Tensor dk(Shape{g.kh, g.kw, g.c / g.p.groups, g.o});
  each_term(g, [&](auto xi, auto ki, auto yi) { dk.data<float>()[ki] += x.data<float>()[xi] * dy.data<float>()[yi]; });
  return dk;
}

std::vector<std::pair<std::string, Geo>> geometries() {
  return {
      {"3x3 valid", {2, 5, 6, 3, 4, 3, 3, {}}},
      // 36 output positions: on two threads the forward's blocks of 18 cross an image.
      {"3 images", {3, 5, 6, 3, 4, 3, 3, {}}},
      {"3x2 pads 1,2,0,1 stride 2", {2, 6, 5, 2, 3, 3, 2, {{2, 2}, {1, 1}, {1, 2, 0, 1}, 1}}},
      {"dilation 2 stride (1,2)", {1, 7, 7, 2, 2, 3, 3, {{1, 2}, {2, 2}, {2, 2, 2, 2}, 1}}},
      {"groups 2", {2, 4, 5, 4, 6, 2, 3, {{1, 1}, {1, 1}, {0, 1, 1, 1}, 2}}},
      {"1x1 pointwise", {2, 3, 4, 3, 5, 1, 1, {}}},
      // Depthwise (one input channel per group: the CPU's direct kernel, core/cpu/
      // depthwise_conv.h): 83 channels fill its blocks of 64, 16 and one; then a depth
      // multiplier of 2 with strides, dilation and uneven padding.
      {"depthwise 83 channels same", {1, 4, 5, 83, 83, 3, 3, {{1, 1}, {1, 1}, {1, 1, 1, 1}, 83}}},
      {"depthwise dm 2 stride 2 dilation (2,1) pads 2,1,0,1", {2, 7, 6, 9, 18, 3, 2, {{2, 2}, {2, 1}, {2, 1, 0, 1}, 9}}},
      // 3×3 and 5×5 depthwise rows wide enough for several of the interior kernel's tiles
      // (six pixels at stride 1, three at stride 2), between edge columns: stride 1 "same",
      // stride 2 with TensorFlow's "same" pads, stride 2 "valid"; 40 channels (whole vectors,
      // and a rest with AVX-512's 16 lanes).
      {"depthwise 3x3 stride 1 wide rows", {1, 3, 14, 40, 40, 3, 3, {{1, 1}, {1, 1}, {1, 1, 1, 1}, 40}}},
      {"depthwise 3x3 stride 2 pads 0,1", {1, 5, 17, 40, 40, 3, 3, {{2, 2}, {1, 1}, {0, 1, 0, 1}, 40}}},
      {"depthwise 3x3 stride 2 valid", {2, 5, 15, 24, 24, 3, 3, {{2, 2}, {1, 1}, {0, 0, 0, 0}, 24}}},
      {"depthwise 5x5 stride 1 same", {1, 5, 13, 20, 20, 5, 5, {{1, 1}, {1, 1}, {2, 2, 2, 2}, 20}}},
      // Nine images: the depthwise kernel gradient's blocks of four images and a partial one.
      {"depthwise 3x3 stride 1 same, nine images", {9, 4, 5, 19, 19, 3, 3, {{1, 1}, {1, 1}, {1, 1, 1, 1}, 19}}},
      {"depthwise 5x5 stride 2 pads 1,2", {1, 7, 16, 16, 16, 5, 5, {{2, 2}, {1, 1}, {1, 2, 1, 2}, 16}}},
      // 5×5 tiles over several whole vectors (40 channels), rows with tiles of six and four
      // (stride 1) and of three and one (stride 2, EfficientNet's pads 1,2).
      {"depthwise 5x5 stride 1 same wide rows", {1, 3, 14, 40, 40, 5, 5, {{1, 1}, {1, 1}, {2, 2, 2, 2}, 40}}},
      {"depthwise 5x5 stride 2 pads 1,2 wide rows", {1, 7, 19, 40, 40, 5, 5, {{2, 2}, {1, 1}, {1, 2, 1, 2}, 40}}},
      // Stride-1 rows whose interior is tiles of six and then four and one (11 pixels), or
      // six and two (8 pixels).
      {"depthwise 3x3 stride 1, 11 interior pixels", {1, 2, 13, 16, 16, 3, 3, {{1, 1}, {1, 1}, {1, 1, 1, 1}, 16}}},
      {"depthwise 3x3 stride 1, 8 interior pixels", {1, 2, 10, 16, 16, 3, 3, {{1, 1}, {1, 1}, {1, 1, 1, 1}, 16}}},
      // 5×5 remainders: one interior pixel with 84 channels (edge pixels four vectors at a
      // time on either instruction set, then one, then 4 or 0 channels left), six and two,
      // and at stride 2 three and two.
      {"depthwise 5x5 stride 1, one interior pixel, 84 channels", {1, 2, 5, 84, 84, 5, 5, {{1, 1}, {1, 1}, {2, 2, 2, 2}, 84}}},
      {"depthwise 5x5 stride 1, 8 interior pixels", {1, 2, 12, 24, 24, 5, 5, {{1, 1}, {1, 1}, {2, 2, 2, 2}, 24}}},
      {"depthwise 5x5 stride 2 pads 1,2, 5 interior pixels", {1, 5, 14, 24, 24, 5, 5, {{2, 2}, {1, 1}, {1, 2, 1, 2}, 24}}},
      // A window the tiles do not take (dilation 2): whole vectors in blocks of four and of
      // one (row_block_vectors), then the channels left one at a time.
      {"depthwise 3x3 dilation 2, 88 channels", {1, 3, 4, 88, 88, 3, 3, {{1, 1}, {2, 2}, {2, 2, 2, 2}, 88}}},
  };
}

std::vector<GradCase> conv2d_cases() {
  std::vector<GradCase> cases;
  std::uint64_t seed = 500;
  for (const auto& [label, geometry] : geometries()) {
    const Geo g = geometry;  // lambdas capture it: clang 14 cannot capture a structured binding
    cases.push_back({label, binary([g](Output x, Output k) { return ops::conv2d(x, k, g.p); }),
                     {uniform({g.n, g.h, g.w, g.c}, -1, 1, seed), uniform({g.kh, g.kw, g.c / g.p.groups, g.o}, -1, 1, seed + 1)},
                     [g](const std::vector<Tensor>& in) { return ref_conv(g, in[0], in[1]); },
                     // Bilinear, like the filter gradient below: a larger step, no truncation.
                     GradientCheckOptions{.epsilon = 1e-2f}});
    seed += 2;
  }
  // Bias fused into the kernel, every geometry.
  for (const auto& [label, geometry] : geometries()) {
    const Geo g = geometry;  // lambdas capture it: clang 14 cannot capture a structured binding
    cases.push_back(
        {label + ", bias fused",
         [g](Graph&, V in) { return ops::conv2d_bias_activation(in[0], in[1], in[2], "", g.p); },
         {uniform({g.n, g.h, g.w, g.c}, -1, 1, seed), uniform({g.kh, g.kw, g.c / g.p.groups, g.o}, -1, 1, seed + 1),
          uniform({g.o}, -0.5f, 0.5f, seed + 2)},
         [g](const std::vector<Tensor>& in) {
           Tensor y = ref_conv(g, in[0], in[1]);
           for (std::int64_t i = 0; i < y.size(); ++i) y.data<float>()[i] += in[2].data<float>()[i % g.o];
           return y;
         },
         // The bias raises the checked sum's magnitude: float32 rounding of it, divided by
         // the step, reaches a few 1e-3. Linear in the bias and bilinear in x and k, so
         // the larger step of the cases above costs no truncation error and divides that
         // rounding less (the 83-channel depthwise case sums 1,660 outputs).
         GradientCheckOptions{.epsilon = 1e-2f, .atol = 6e-3f}});
    seed += 3;
  }
  // Bias and relu fused (what Conv2D(..., activation = "relu") builds). One input channel,
  // |x| >= 0.2 and kernel >= 0.5 keep every pre-activation at least 0.1 from relu's kink.
  Geo one{2, 3, 4, 1, 3, 1, 1, {}};
  cases.push_back({"1x1, one channel, bias and relu fused",
                   [one](Graph&, V in) { return ops::conv2d_bias_activation(in[0], in[1], in[2], "relu", one.p); },
                   {away_from_zero({2, 3, 4, 1}, 0.2f, 1.f, seed), uniform({1, 1, 1, 3}, 0.5f, 1.f, seed + 1),
                    tensor<float>({3}, {0.f, 0.f, 0.f})},
                   [one](const std::vector<Tensor>& in) {
                     Tensor y = ref_conv(one, in[0], in[1]);
                     for (float& v : y.values<float>()) v = v > 0.f ? v : 0.f;
                     return y;
                   }});
  return cases;
}

std::vector<GradCase> backprop_input_cases() {
  std::vector<GradCase> cases;
  std::uint64_t seed = 600;
  for (const auto& [label, geometry] : geometries()) {
    const Geo g = geometry;  // lambdas capture it: clang 14 cannot capture a structured binding
    cases.push_back({label,
                     binary([g](Output dy, Output k) { return ops::conv2d_backprop_input(dy, k, {g.h, g.w}, g.p); }),
                     {uniform({g.n, g.oh(), g.ow(), g.o}, -1, 1, seed), uniform({g.kh, g.kw, g.c / g.p.groups, g.o}, -1, 1, seed + 1)},
                     [g](const std::vector<Tensor>& in) { return ref_input_grad(g, in[0], in[1]); },
                     // Bilinear, as conv2d above. The checked sum's float32 rounding,
                     // divided by the step, reaches a few 1e-3 on the larger cases (the
                     // depthwise 5×5 one sums 1,300 outputs: 4e-3 once its kernels summed
                     // in their own order), so the bias-fused cases' floor; the analytic
                     // gradients are conv2d and conv2d_backprop_filter, each held to its
                     // reference within 1e-5 by its own cases.
                     GradientCheckOptions{.epsilon = 1e-2f, .atol = 6e-3f}});
    seed += 2;
  }
  return cases;
}

std::vector<GradCase> backprop_filter_cases() {
  std::vector<GradCase> cases;
  std::uint64_t seed = 700;
  for (const auto& [label, geometry] : geometries()) {
    const Geo g = geometry;  // lambdas capture it: clang 14 cannot capture a structured binding
    cases.push_back({label,
                     binary([g](Output x, Output dy) { return ops::conv2d_backprop_filter(x, dy, {g.kh, g.kw}, g.p); }),
                     {uniform({g.n, g.h, g.w, g.c}, -1, 1, seed), uniform({g.n, g.oh(), g.ow(), g.o}, -1, 1, seed + 1)},
                     [g](const std::vector<Tensor>& in) { return ref_filter_grad(g, in[0], in[1]); },
                     // Linear in each input, so a central difference has no truncation
                     // error at any step; a larger step divides float32's rounding of the
                     // checked sum less (at 1e-3 it reached 5e-3, and which elements it hit
                     // depended on the GEMM kernel's order of summation).
                     GradientCheckOptions{.epsilon = 1e-2f}});
    seed += 2;
  }
  return cases;
}

// Naive pooling over NHWC with in-bounds windows.
Tensor ref_pool(const Tensor& x, const Pool2DParams& p, bool max) {
  const auto& d = x.shape().dims();
  std::int64_t oh = ops::conv_output_length(d[1], p.pool_size[0], p.strides[0], 1, p.pads[0], p.pads[1]);
  std::int64_t ow = ops::conv_output_length(d[2], p.pool_size[1], p.strides[1], 1, p.pads[2], p.pads[3]);
  Tensor y(Shape{d[0], oh, ow, d[3]});
  for (std::int64_t n = 0; n < d[0]; ++n)
    for (std::int64_t oy = 0; oy < oh; ++oy)
      for (std::int64_t ox = 0; ox < ow; ++ox)
        for (std::int64_t c = 0; c < d[3]; ++c) {
          float acc = max ? -std::numeric_limits<float>::infinity() : 0.f;
          int count = 0;
          for (std::int64_t ky = 0; ky < p.pool_size[0]; ++ky)
            for (std::int64_t kx = 0; kx < p.pool_size[1]; ++kx) {
              std::int64_t iy = oy * p.strides[0] + ky - p.pads[0], ix = ox * p.strides[1] + kx - p.pads[2];
              if (iy < 0 || iy >= d[1] || ix < 0 || ix >= d[2]) continue;
              float v = x.data<float>()[((n * d[1] + iy) * d[2] + ix) * d[3] + c];
              acc = max ? std::max(acc, v) : acc + v;
              ++count;
            }
          y.data<float>()[((n * oh + oy) * ow + ox) * d[3] + c] = max ? acc : acc / static_cast<float>(count);
        }
  return y;
}

std::vector<std::pair<std::string, Pool2DParams>> pool_geometries() {
  return {{"2x2 valid", {{2, 2}, {2, 2}, {0, 0, 0, 0}}},
          {"3x3 stride 2 same", {{3, 3}, {2, 2}, {1, 1, 1, 1}}},
          {"2x3 stride 1 pads 0,1,1,1", {{2, 3}, {1, 1}, {0, 1, 1, 1}}}};
}

std::vector<GradCase> pool_cases(bool max) {
  std::vector<GradCase> cases;
  std::uint64_t seed = max ? 800 : 850;
  for (const auto& [label, pool] : pool_geometries()) {
    const Pool2DParams p = pool;  // lambdas capture it: clang 14 cannot capture a structured binding
    // Max: distinct values 0.01 apart (no ties within the finite-difference step), small
    // enough that float32 rounding of the checked sum stays below the step's resolution.
    Tensor x = max ? distinct({2, 5, 6, 2}, seed++) : uniform({2, 5, 6, 2}, -1, 1, seed++);
    if (max) {
      for (float& v : x.values<float>()) v *= 0.1f;
    }
    cases.push_back({label,
                     unary([p, max](Output v) { return max ? ops::max_pool2d(v, p) : ops::avg_pool2d(v, p); }),
                     {x},
                     [p, max](const std::vector<Tensor>& in) { return ref_pool(in[0], p, max); }});
  }
  return cases;
}

std::vector<GradCase> avg_pool_grad_cases() {
  std::vector<GradCase> cases;
  std::uint64_t seed = 900;
  for (const auto& [label, pool] : pool_geometries()) {
    const Pool2DParams p = pool;  // lambdas capture it: clang 14 cannot capture a structured binding
    Tensor probe(Shape{2, 5, 6, 2});
    Shape ys = ref_pool(probe, p, false).shape();
    cases.push_back({label, unary([p](Output dy) { return ops::avg_pool2d_grad(dy, {5, 6}, p); }),
                     {uniform(ys, -1, 1, seed++)}});
  }
  return cases;
}

void check_max_pool_grad_forward() {
  // One 2x2 window over a 2x3 image (valid, stride 2): the gradient lands on the maximum.
  Tensor x = tensor<float>({1, 2, 3, 1}, {1, 5, 2, 3, 4, 9});
  Tensor dy = tensor<float>({1, 1, 1, 1}, {7});
  Tensor dx = evaluate([](Graph&, V in) { return ops::max_pool2d_grad(in[0], in[1], {{2, 2}, {2, 2}, {0, 0, 0, 0}}); },
                       {x, dy});
  EXPECT_TRUE(tensors_near(dx, tensor<float>({1, 2, 3, 1}, {0, 7, 0, 0, 0, 0}), 0.f));
  // Overlapping windows (3x3 stride 1 same): each output routes to its own maximum.
  Tensor x2 = tensor<float>({1, 1, 3, 1}, {3, 1, 2});
  Tensor dy2 = tensor<float>({1, 1, 3, 1}, {1, 10, 100});
  Tensor dx2 = evaluate([](Graph&, V in) { return ops::max_pool2d_grad(in[0], in[1], {{1, 3}, {1, 1}, {0, 0, 1, 1}}); },
                        {x2, dy2});
  EXPECT_TRUE(tensors_near(dx2, tensor<float>({1, 1, 3, 1}, {11, 0, 100}), 0.f));
  // Tiling windows of 3 x 2 (the vectorized pass) over 37 channels (two whole vectors of
  // sixteen and a partial one), rows and columns no window covers, and ties (values from
  // a few levels) that the first maximum in row-major window order must win, against
  // that rule applied cell by cell.
  const std::int64_t n = 2, h = 7, w = 9, c = 37, oh = 2, ow = 4;
  Tensor x3 = uniform({n, h, w, c}, 0, 4, 962);
  for (std::int64_t i = 0; i < x3.size(); ++i) x3.data<float>()[i] = std::floor(x3.data<float>()[i]);
  Tensor dy3 = uniform({n, oh, ow, c}, -1, 1, 963);
  Tensor dx3 = evaluate([](Graph&, V in) { return ops::max_pool2d_grad(in[0], in[1], {{3, 2}, {3, 2}, {0, 0, 0, 0}}); },
                        {x3, dy3});
  Tensor want{Shape{n, h, w, c}};
  std::fill_n(want.data<float>(), want.size(), 0.f);
  auto at = [&](std::int64_t b, std::int64_t y, std::int64_t x, std::int64_t ch) { return ((b * h + y) * w + x) * c + ch; };
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t oy = 0; oy < oh; ++oy) {
      for (std::int64_t ox = 0; ox < ow; ++ox) {
        for (std::int64_t ch = 0; ch < c; ++ch) {
          std::int64_t best = at(b, oy * 3, ox * 2, ch);
          for (std::int64_t y = oy * 3; y < oy * 3 + 3; ++y) {
            for (std::int64_t x = ox * 2; x < ox * 2 + 2; ++x) {
              if (x3.data<float>()[at(b, y, x, ch)] > x3.data<float>()[best]) best = at(b, y, x, ch);
            }
          }
          want.data<float>()[best] = dy3.data<float>()[((b * oh + oy) * ow + ox) * c + ch];
        }
      }
    }
  }
  EXPECT_TRUE(tensors_near(dx3, want, 0.f));
}

// max_pool2d_relu_grad against the three ops it replaces, relu_grad(max_pool2d_grad(dy),
// y) and reduce_sum of that over (N, H, W), on a relu's output with whole windows of
// zeros: tiling windows (the fused pass) and overlapping padded ones (the fallback).
void check_max_pool_relu_grad_forward() {
  for (const Pool2DParams& p : {Pool2DParams{{2, 2}, {2, 2}, {0, 0, 0, 0}}, Pool2DParams{{3, 3}, {1, 1}, {1, 1, 1, 1}}}) {
    SCOPED_TRACE(::testing::Message() << "pool " << p.pool_size[0] << " stride " << p.strides[0]);
    Tensor y = uniform({3, 6, 8, 5}, -1, 1, 960);
    for (std::int64_t i = 0; i < y.size(); ++i) y.data<float>()[i] = std::max(y.data<float>()[i], 0.f);  // a relu's output
    for (std::int64_t c = 0; c < 5; ++c) y.data<float>()[c] = y.data<float>()[5 + c] = 0.f;  // ...with zero maxima
    for (std::int64_t c = 0; c < 5; ++c) y.data<float>()[8 * 5 + c] = y.data<float>()[9 * 5 + c] = 0.f;
    const std::int64_t oh = p.strides[0] == 2 ? 3 : 6, ow = p.strides[0] == 2 ? 4 : 8;
    Tensor dy = uniform({3, oh, ow, 5}, -1, 1, 961);
    Graph g;
    Output yp = g.placeholder({y.shape()}, "y"), dyp = g.placeholder({dy.shape()}, "dy");
    auto [dz, db] = ops::max_pool2d_relu_grad(yp, dyp, p);
    Output want_dz = ops::relu_grad(ops::max_pool2d_grad(yp, dyp, p), yp);
    Output want_db = ops::reduce_sum(want_dz, {0, 1, 2});
    Program program(g, {yp, dyp}, {dz, db, want_dz, want_db});
    std::vector<Tensor> out = program.run({y, dy});
    EXPECT_TRUE(tensors_near(out[0], out[2], 0.f)) << "dz";
    EXPECT_TRUE(tensors_near(out[1], out[3], 1e-5f)) << "db";
  }
}

void check_training_select_forward() {
  Graph g;
  Output a = g.placeholder({Shape{2}}, "a"), b = g.placeholder({Shape{2}}, "b");
  EXPECT_THROW(ops::training_select(a, g.placeholder({Shape{3}}, "c")), ShapeError);
  Program p(g, {a, b}, {ops::training_select(a, b)});
  Tensor ta = tensor<float>({2}, {1, 2}), tb = tensor<float>({2}, {3, 4});
  EXPECT_TRUE(tensors_near(p.run({ta, tb}, {.training = true})[0], ta, 0.f));
  EXPECT_TRUE(tensors_near(p.run({ta, tb}, {.training = false})[0], tb, 0.f));
}

// pad (before, after) then crop by the same amounts is the identity; crop's reference
// reads the kept box.
Tensor ref_crop(const Tensor& x, const std::vector<std::int64_t>& before, const std::vector<std::int64_t>& after) {
  std::vector<std::int64_t> od;
  for (int a = 0; a < x.rank(); ++a) od.push_back(x.shape().dims()[a] - before[a] - after[a]);
  Tensor y{Shape(od)};
  for (std::int64_t i = 0; i < y.size(); ++i) {
    auto oi = unravel(i, y.shape());
    std::int64_t flat = 0;
    for (int a = 0; a < x.rank(); ++a) flat = flat * x.shape().dims()[a] + oi[a] + before[a];
    y.data<float>()[i] = x.data<float>()[flat];
  }
  return y;
}

const RegisterOpCases conv_cases({
    {"conv2d", OpCase{conv2d_cases()}},
    {"conv2d_backprop_input", OpCase{backprop_input_cases()}},
    {"conv2d_backprop_filter", OpCase{backprop_filter_cases()}},
    {"max_pool2d", OpCase{pool_cases(true)}},
    {"max_pool2d_grad", OpCase{{}, check_max_pool_grad_forward}},
    {"max_pool2d_relu_grad", OpCase{{}, check_max_pool_relu_grad_forward}},
    {"avg_pool2d", OpCase{pool_cases(false)}},
    {"avg_pool2d_grad", OpCase{avg_pool_grad_cases()}},
    {"upsample_nearest2d",
     OpCase{{{"2x3", unary([](Output x) { return ops::upsample_nearest2d(x, {2, 3}); }), {uniform({2, 3, 2, 2}, -1, 1, 950)},
              [](const std::vector<Tensor>& in) {
                Tensor y(Shape{2, 6, 6, 2});
                for (std::int64_t i = 0; i < y.size(); ++i) {
                  auto idx = unravel(i, y.shape());
                  y.data<float>()[i] = in[0].data<float>()[((idx[0] * 3 + idx[1] / 2) * 2 + idx[2] / 3) * 2 + idx[3]];
                }
                return y;
              }}}}},
    {"pad",
     OpCase{{{"(2,3,4) before (0,1,2) after (1,0,1)",
              unary([](Output x) { return ops::pad(x, {0, 1, 2}, {1, 0, 1}); }), {uniform({2, 3, 4}, -1, 1, 960)},
              [](const std::vector<Tensor>& in) {
                Tensor y(Shape{3, 4, 7});
                for (std::int64_t i = 0; i < in[0].size(); ++i) {
                  auto idx = unravel(i, in[0].shape());
                  y.data<float>()[(idx[0] * 4 + idx[1] + 1) * 7 + idx[2] + 2] = in[0].data<float>()[i];
                }
                return y;
              }}}}},
    {"crop",
     OpCase{{{"(4,5,3) before (1,0,1) after (1,2,0)",
              unary([](Output x) { return ops::crop(x, {1, 0, 1}, {1, 2, 0}); }), {uniform({4, 5, 3}, -1, 1, 961)},
              [](const std::vector<Tensor>& in) { return ref_crop(in[0], {1, 0, 1}, {1, 2, 0}); }}}}},
    {"transpose",
     OpCase{{{"perm (0,2,3,1)", unary([](Output x) { return ops::transpose(x, {0, 2, 3, 1}); }),
              {uniform({2, 3, 4, 2}, -1, 1, 962)},
              [](const std::vector<Tensor>& in) { return ref_transpose(in[0], {0, 2, 3, 1}); }},
             {"perm (2,0,1)", unary([](Output x) { return ops::transpose(x, {2, 0, 1}); }),
              {uniform({3, 4, 5}, -1, 1, 963)},
              [](const std::vector<Tensor>& in) { return ref_transpose(in[0], {2, 0, 1}); }},
             // The last axis kept: the kernel copies whole rows (attention's head split).
             {"perm (0,2,1,3) keeps the last axis", unary([](Output x) { return ops::transpose(x, {0, 2, 1, 3}); }),
              {uniform({2, 3, 4, 5}, -1, 1, 966)},
              [](const std::vector<Tensor>& in) { return ref_transpose(in[0], {0, 2, 1, 3}); }},
             {"perm (2,1,0,3) keeps the last axis", unary([](Output x) { return ops::transpose(x, {2, 1, 0, 3}); }),
              {uniform({3, 2, 4, 3}, -1, 1, 967)},
              [](const std::vector<Tensor>& in) { return ref_transpose(in[0], {2, 1, 0, 3}); }},
             {"rank 2 perm (0,1)", unary([](Output x) { return ops::transpose(x, {0, 1}); }),
              {uniform({3, 4}, -1, 1, 968)},
              [](const std::vector<Tensor>& in) { return ref_transpose(in[0], {0, 1}); }}}}},
    {"concat",
     OpCase{{{"axis -1", binary([](Output a, Output b) { return ops::concat({a, b}, -1); }),
              {uniform({2, 3, 2}, -1, 1, 964), uniform({2, 3, 4}, -1, 1, 965)},
              [](const std::vector<Tensor>& in) {
                Tensor y(Shape{2, 3, 6});
                for (std::int64_t r = 0; r < 6; ++r) {
                  for (int j = 0; j < 6; ++j) {
                    y.data<float>()[r * 6 + j] = j < 2 ? in[0].data<float>()[r * 2 + j] : in[1].data<float>()[r * 4 + j - 2];
                  }
                }
                return y;
              }},
             {"axis 1, three inputs",
              [](Graph&, V x) { return ops::concat({x[0], x[1], x[2]}, 1); },
              {uniform({2, 1, 3}, -1, 1, 966), uniform({2, 2, 3}, -1, 1, 967), uniform({2, 3, 3}, -1, 1, 968)}}}}},
    {"training_select",
     OpCase{{{"training", binary([](Output a, Output b) { return ops::training_select(a, b); }),
              {uniform({2, 3}, -1, 1, 970), uniform({2, 3}, -1, 1, 971)},
              [](const std::vector<Tensor>& in) { return in[0]; }, GradientCheckOptions{.training = true}},
             {"inference", binary([](Output a, Output b) { return ops::training_select(a, b); }),
              {uniform({2, 3}, -1, 1, 972), uniform({2, 3}, -1, 1, 973)},
              [](const std::vector<Tensor>& in) { return in[1]; }}},
            check_training_select_forward}},
});

}  // namespace
}  // namespace strata::testing::conv_op_cases
