// Winograd's F(4×4, 3×3) convolution (core/cpu/winograd_conv.h) against a direct sum in
// double: partial blocks at the image's edges, 'same' and 'valid' padding, channel counts
// that leave a remainder after whole vectors, a batch, the epilogue (bias, residual,
// relu6, silu), a pass of blocks smaller than the work, and the kernel's gradient; on
// every path of the GEMM this CPU can run. Then the conv2d op and its gradients: where the
// rule picks Winograd, the kernel is transformed once and redone when the weights change.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "core/cpu/cpu_isa.h"
#include "core/cpu/packed_gemm.h"
#include "core/cpu/winograd_conv.h"
#include "core/ops/conv_ops.h"
#include "conv_reference.h"
#include "core/rng.h"
#include "core_test_util.h"
#include "on_every_cpu_path.h"
#include "thread_count.h"

using namespace strata;

namespace winograd_conv_test {

namespace {

using strata::testing::conv_in_double;
using strata::testing::random_values;
using strata::testing::relative_error;

ops::Conv2DGeometry geometry(std::int64_t n, std::int64_t h, std::int64_t w, std::int64_t c, std::int64_t o,
                             bool same) {
  ops::Conv2DGeometry g;
  g.n = n, g.h = h, g.w = w, g.c = c, g.o = o, g.kh = 3, g.kw = 3;
  const std::int64_t pad = same ? 1 : 0;
  g.pt = g.pb = g.pl = g.pr = pad;
  g.oh = h + 2 * pad - 2, g.ow = w + 2 * pad - 2;
  g.cg = c, g.og = o;
  return g;
}

struct Case {
  std::int64_t n, h, w, c, o;
  bool same;
};

class Winograd : public strata::testing::OnEveryCpuPath {};

TEST_P(Winograd, MatchesTheDirectSumOnEveryShape) {
  // Partial blocks (sizes not multiples of 4), 'valid' padding, one pixel wide, channel
  // counts below, at and above a vector, a batch; the last two need several passes.
  const Case cases[] = {{1, 4, 4, 1, 1, true},    {1, 7, 5, 3, 2, true},    {2, 9, 11, 17, 19, false},
                        {1, 3, 3, 8, 16, false},  {1, 1, 6, 5, 4, true},    {3, 13, 10, 33, 40, true},
                        {1, 56, 56, 64, 64, true}, {2, 14, 14, 96, 80, true},
                        // Block-major inputs with point-major products, and the reverse.
                        {1, 10, 9, 64, 24, true},  {2, 7, 9, 20, 72, false}};
  for (const Case& t : cases) {
    const ops::Conv2DGeometry g = geometry(t.n, t.h, t.w, t.c, t.o, t.same);
    const auto x = random_values(g.n * g.h * g.w * g.c, 1);
    const auto k = random_values(9 * g.c * g.o, 2);
    cpu::WinogradKernel u;
    u.transform(k.data(), g.c, g.o);
    std::vector<float> y(static_cast<std::size_t>(g.n * g.oh * g.ow * g.o), -7.f);
    cpu::winograd_conv2d(g, x.data(), u, y.data(), {});
    // F(4×4, 3×3) rounds more than a direct sum (its transforms scale by up to 8 and
    // 1/24); on these sums of up to 9·96 terms it stays within 2e-5 of the largest output.
    EXPECT_LT(relative_error(y, conv_in_double(g, x, k, {})), 2e-5)
        << "n=" << t.n << " h=" << t.h << " w=" << t.w << " c=" << t.c << " o=" << t.o << (t.same ? " same" : " valid");
  }
}

// dk[ky, kx, c, o] = Σ x[n, oy + ky − pt, ox + kx − pl, c]·dy[n, oy, ox, o], in double.
std::vector<float> direct_filter_gradient(const ops::Conv2DGeometry& g, const std::vector<float>& x,
                                          const std::vector<float>& dy) {
  std::vector<float> dk(static_cast<std::size_t>(9 * g.c * g.o));
  for (std::int64_t ky = 0; ky < 3; ++ky)
    for (std::int64_t kx = 0; kx < 3; ++kx)
      for (std::int64_t c = 0; c < g.c; ++c)
        for (std::int64_t o = 0; o < g.o; ++o) {
          double sum = 0;
          for (std::int64_t n = 0; n < g.n; ++n)
            for (std::int64_t oy = 0; oy < g.oh; ++oy)
              for (std::int64_t ox = 0; ox < g.ow; ++ox) {
                const std::int64_t iy = oy + ky - g.pt, ix = ox + kx - g.pl;
                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
                sum += static_cast<double>(x[((n * g.h + iy) * g.w + ix) * g.c + c]) *
                       dy[((n * g.oh + oy) * g.ow + ox) * g.o + o];
              }
          dk[((ky * 3 + kx) * g.c + c) * g.o + o] = static_cast<float>(sum);
        }
  return dk;
}

TEST_P(Winograd, FilterGradientMatchesTheDirectSum) {
  // Partial blocks, 'valid' padding, channel counts around a vector, a batch. Up to 64x64
  // channels the private schedule: most cases have fewer groups of blocks than chunks,
  // {8, 36, 36, 32, 40}, {32, 32, 32, 16, 16} and {4, 20, 20, 64, 64} more (chunks of one
  // and two groups). Above it the staged schedule, whose last case needs several passes
  // (each point's sums carried from pass to pass).
  const Case cases[] = {{1, 4, 4, 1, 1, true},      {1, 7, 5, 3, 2, true},      {2, 9, 11, 17, 19, false},
                        {3, 13, 10, 33, 40, true},  {1, 10, 9, 64, 24, true},   {8, 36, 36, 32, 40, true},
                        {32, 32, 32, 16, 16, true}, {4, 20, 20, 64, 64, true},  {1, 10, 9, 80, 72, false},
                        {4, 30, 30, 72, 72, true}};
  for (const Case& t : cases) {
    const ops::Conv2DGeometry g = geometry(t.n, t.h, t.w, t.c, t.o, t.same);
    const auto x = random_values(g.n * g.h * g.w * g.c, 21);
    const auto dy = random_values(g.n * g.oh * g.ow * g.o, 22);
    std::vector<float> dk(static_cast<std::size_t>(9 * g.c * g.o), -7.f);
    cpu::winograd_conv2d_filter_grad(g, x.data(), dy.data(), dk.data());
    EXPECT_LT(relative_error(dk, direct_filter_gradient(g, x, dy)), 2e-5)
        << "n=" << t.n << " h=" << t.h << " w=" << t.w << " c=" << t.c << " o=" << t.o << (t.same ? " same" : " valid");
  }
}

TEST_P(Winograd, FilterGradientGivesTheSameBitsOnAnyThreadCount) {
  // The private schedule's chunks are a fixed count of fixed groups, added in chunk order;
  // the staged one sums each point on one thread.
  for (const ops::Conv2DGeometry& g : {geometry(32, 32, 32, 16, 16, true), geometry(4, 20, 20, 64, 64, true),
                                       geometry(2, 14, 14, 72, 72, true)}) {
    const auto x = random_values(g.n * g.h * g.w * g.c, 31);
    const auto dy = random_values(g.n * g.oh * g.ow * g.o, 32);
    std::vector<float> on_one(static_cast<std::size_t>(9 * g.c * g.o)), on_three(on_one.size());
    {
      strata::testing::ThreadCount one(1);
      cpu::winograd_conv2d_filter_grad(g, x.data(), dy.data(), on_one.data());
    }
    strata::testing::ThreadCount three(3);
    cpu::winograd_conv2d_filter_grad(g, x.data(), dy.data(), on_three.data());
    EXPECT_EQ(on_one, on_three) << g.c << "x" << g.o << " channels";
  }
}

TEST_P(Winograd, AppliesTheEpilogueToEveryOutput) {
  // Point-major and block-major products (fewer and more than 64 channels out).
  for (const ops::Conv2DGeometry& g : {geometry(2, 10, 7, 20, 37, true), geometry(1, 9, 6, 70, 66, true)}) {
    const auto x = random_values(g.n * g.h * g.w * g.c, 3);
    const auto k = random_values(9 * g.c * g.o, 4);
    const auto bias = random_values(g.o, 5);
    const auto residual = random_values(g.n * g.oh * g.ow * g.o, 6);
    cpu::WinogradKernel u;
    u.transform(k.data(), g.c, g.o);
    for (cpu::Activation a :
         {cpu::Activation::kNone, cpu::Activation::kRelu, cpu::Activation::kRelu6, cpu::Activation::kSilu}) {
      const cpu::Epilogue e{bias.data(), a, residual.data(), g.o};
      std::vector<float> y(residual.size());
      cpu::winograd_conv2d(g, x.data(), u, y.data(), e);
      EXPECT_LT(relative_error(y, conv_in_double(g, x, k, e)), 2e-5)
          << "activation " << static_cast<int>(a) << ", " << g.o << " channels out";
    }
  }
}

TEST_P(Winograd, GivesTheSameBitsOnEveryRun) {
  // The products are split over threads by point and the transforms by block: no sum
  // depends on the split, so a second run gives the same bits; and on Strata's packed
  // GEMM, whose sums for a row do not depend on the other rows, so does a run of a
  // batch's images one at a time (Eigen's portable kernel blocks by the product's size).
  const ops::Conv2DGeometry g = geometry(3, 12, 12, 32, 48, true);
  const auto x = random_values(g.n * g.h * g.w * g.c, 7);
  const auto k = random_values(9 * g.c * g.o, 8);
  cpu::WinogradKernel u;
  u.transform(k.data(), g.c, g.o);
  std::vector<float> first(static_cast<std::size_t>(g.n * g.oh * g.ow * g.o)), again(first.size());
  cpu::winograd_conv2d(g, x.data(), u, first.data(), {});
  cpu::winograd_conv2d(g, x.data(), u, again.data(), {});
  EXPECT_EQ(first, again);
  if (!cpu::packed_gemm_available()) return;
  ops::Conv2DGeometry one = g;
  one.n = 1;
  const std::int64_t in_image = g.h * g.w * g.c, out_image = g.oh * g.ow * g.o;
  for (std::int64_t n = 0; n < g.n; ++n) {
    std::vector<float> alone(static_cast<std::size_t>(out_image));
    cpu::winograd_conv2d(one, x.data() + n * in_image, u, alone.data(), {});
    EXPECT_TRUE(std::equal(alone.begin(), alone.end(), first.begin() + n * out_image)) << "image " << n;
  }
}

INSTANTIATE_TEST_SUITE_P(CpuPaths, Winograd, ::testing::Values(cpu::Isa::kPortable, cpu::Isa::kAvx2, cpu::Isa::kAvx512),
                         strata::testing::cpu_path_name);

// The conv2d op and its two gradients on shapes the rule gives to Winograd, 'same' and
// 'valid', against direct sums: the kernel's transform (rotated for the gradient) and
// its cache, run twice (the second run reads the cached transform).
TEST(WinogradOps, Conv2dAndItsGradientsMatchDirectSums) {
  for (const bool same : {true, false}) {
    SCOPED_TRACE(same ? "same" : "valid");
    const ops::Conv2DGeometry g = geometry(2, 13, 9, 24, 40, same);
    ASSERT_TRUE(cpu::winograd_applies(g));
    // The input gradient is the convolution of dy (O channels in, C out) over dx's size.
    ops::Conv2DGeometry gradient = geometry(2, g.oh, g.ow, g.o, g.c, true);
    gradient.oh = g.h, gradient.ow = g.w;
    gradient.pt = gradient.pb = gradient.pl = gradient.pr = 2 - g.pt;
    ASSERT_TRUE(cpu::winograd_applies(gradient));
    const auto xv = random_values(g.n * g.h * g.w * g.c, 11), kv = random_values(9 * g.c * g.o, 12);
    const auto dyv = random_values(g.n * g.oh * g.ow * g.o, 13);
    const Tensor x = Tensor::from_vector<float>(Shape{g.n, g.h, g.w, g.c}, xv);
    const Tensor k = Tensor::from_vector<float>(Shape{3, 3, g.c, g.o}, kv);
    const Tensor dy = Tensor::from_vector<float>(Shape{g.n, g.oh, g.ow, g.o}, dyv);
    ops::Conv2DParams params;
    params.pads = {g.pt, g.pb, g.pl, g.pr};

    Graph graph;
    const Output xs = graph.placeholder({x.shape(), x.dtype()}, "x");
    const Output ks = graph.placeholder({k.shape(), k.dtype()}, "k");
    const Output dys = graph.placeholder({dy.shape(), dy.dtype()}, "dy");
    const Output y = ops::conv2d(xs, ks, params);
    const Output dx = ops::conv2d_backprop_input(dys, ks, {g.h, g.w}, params);
    const Output dk = ops::conv2d_backprop_filter(xs, dys, {3, 3}, params);
    Program program(graph, {xs, ks, dys}, {y, dx, dk});
    for (int run = 0; run < 2; ++run) {
      const std::vector<Tensor> out = program.run({x, k, dy});
      const std::vector<float> yv(out[0].data<float>(), out[0].data<float>() + out[0].size());
      EXPECT_LT(relative_error(yv, conv_in_double(g, xv, kv, {})), 2e-5) << "run " << run;
      // dx summed directly: dx[n, iy, ix, c] = Σ dy[n, iy - ky + pt, ix - kx + pl, o]·k[ky, kx, c, o].
      std::vector<float> want(static_cast<std::size_t>(g.n * g.h * g.w * g.c));
      for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t iy = 0; iy < g.h; ++iy)
          for (std::int64_t ix = 0; ix < g.w; ++ix)
            for (std::int64_t c = 0; c < g.c; ++c) {
              double sum = 0;
              for (std::int64_t ky = 0; ky < 3; ++ky)
                for (std::int64_t kx = 0; kx < 3; ++kx) {
                  const std::int64_t oy = iy - ky + g.pt, ox = ix - kx + g.pl;
                  if (oy < 0 || oy >= g.oh || ox < 0 || ox >= g.ow) continue;
                  for (std::int64_t o = 0; o < g.o; ++o) {
                    sum += static_cast<double>(dyv[((n * g.oh + oy) * g.ow + ox) * g.o + o]) *
                           kv[((ky * 3 + kx) * g.c + c) * g.o + o];
                  }
                }
              want[((n * g.h + iy) * g.w + ix) * g.c + c] = static_cast<float>(sum);
            }
      const std::vector<float> dxv(out[1].data<float>(), out[1].data<float>() + out[1].size());
      EXPECT_LT(relative_error(dxv, want), 2e-5) << "run " << run;
      const std::vector<float> dkv(out[2].data<float>(), out[2].data<float>() + out[2].size());
      EXPECT_LT(relative_error(dkv, direct_filter_gradient(g, xv, dyv)), 2e-5) << "run " << run;
    }
  }
}

TEST(WinogradRule, TakesOnlyStrideOneThreeByThreeWindowsWithoutGroups) {
  ops::Conv2DGeometry g = geometry(1, 56, 56, 64, 64, true);
  EXPECT_TRUE(cpu::winograd_supports(g));
  ops::Conv2DGeometry strided = g;
  strided.sh = strided.sw = 2;
  EXPECT_FALSE(cpu::winograd_supports(strided));
  ops::Conv2DGeometry dilated = g;
  dilated.dh = 2;
  EXPECT_FALSE(cpu::winograd_supports(dilated));
  ops::Conv2DGeometry grouped = g;
  grouped.groups = 2, grouped.cg = 32, grouped.og = 32;
  EXPECT_FALSE(cpu::winograd_supports(grouped));
  ops::Conv2DGeometry wide = g;
  wide.kh = wide.kw = 5;
  EXPECT_FALSE(cpu::winograd_supports(wide));
}

}  // namespace

}  // namespace winograd_conv_test
