// The direct convolution for few input channels (core/cpu/direct_conv.h) against sums in
// double: windows, strides and paddings of networks' first layers and the edges they
// reach, output channels around a vector (the padded last vector), the epilogue, and the
// conv2d op taking it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "conv_reference.h"
#include "core/cpu/direct_conv.h"
#include "core/ops/conv_ops.h"
#include "core/program.h"

using namespace strata;

namespace direct_conv_test {

namespace {

struct Case {
  std::int64_t n, h, w, c, o, kh, kw, stride, pt, pb, pl, pr;
};

ops::Conv2DGeometry geometry(const Case& t) {
  ops::Conv2DGeometry g;
  g.n = t.n, g.h = t.h, g.w = t.w, g.c = t.c, g.o = t.o, g.kh = t.kh, g.kw = t.kw;
  g.sh = g.sw = t.stride;
  g.pt = t.pt, g.pb = t.pb, g.pl = t.pl, g.pr = t.pr;
  g.oh = (t.h + t.pt + t.pb - t.kh) / t.stride + 1;
  g.ow = (t.w + t.pl + t.pr - t.kw) / t.stride + 1;
  g.cg = t.c, g.og = t.o;
  return g;
}

using strata::testing::conv_in_double;
using strata::testing::random_values;
using strata::testing::relative_error;

std::string describe(const Case& t) {
  return std::to_string(t.n) + "x" + std::to_string(t.h) + "x" + std::to_string(t.w) + "x" + std::to_string(t.c) +
         " -> " + std::to_string(t.o) + ", " + std::to_string(t.kh) + "x" + std::to_string(t.kw) + " stride " +
         std::to_string(t.stride) + " pads " + std::to_string(t.pt) + std::to_string(t.pb) + std::to_string(t.pl) +
         std::to_string(t.pr);
}

TEST(DirectConv, MatchesSumsInDoubleOnFirstLayerShapes) {
  const std::int64_t lanes = cpu::direct_conv_lanes();
  const Case cases[] = {
      {1, 17, 19, 3, 32, 3, 3, 2, 0, 1, 0, 1},       // MobileNetV2's stem ('same' at stride 2)
      // ResNet50's stem, a batch (64 channels; with AVX2's 8 lanes the most it takes, 56)
      {2, 23, 21, 3, cpu::direct_conv_most_outputs(), 7, 7, 2, 3, 3, 3, 3},
      {1, 9, 10, 3, 16, 3, 3, 1, 1, 1, 1, 1},        // ResNet-20's
      {1, 12, 12, 3, 48, 4, 4, 4, 0, 0, 0, 0},       // patches, no padding
      {1, 8, 5, 1, 1, 3, 3, 1, 1, 1, 1, 1},          // one channel in and out
      {1, 6, 7, 4, lanes + 1, 1, 3, 1, 0, 0, 2, 1},  // a last vector of one channel, asymmetric pads
      {3, 5, 4, 2, 2 * lanes - 3, 5, 5, 2, 2, 2, 2, 2},  // windows wider than the image
      {1, 2, 40, 3, 24, 3, 3, 1, 1, 1, 1, 1},        // rows of many pixels (several passes)
  };
  for (const Case& t : cases) {
    SCOPED_TRACE(describe(t));
    const ops::Conv2DGeometry g = geometry(t);
    ASSERT_TRUE(cpu::direct_conv_applies(g));
    const auto x = random_values(g.n * g.h * g.w * g.c, 1);
    const auto k = random_values(g.kh * g.kw * g.c * g.o, 2);
    std::vector<float> y(static_cast<std::size_t>(g.n * g.oh * g.ow * g.o), -9.f);
    cpu::direct_conv2d(g, x.data(), k.data(), y.data(), {});
    EXPECT_LT(relative_error(y, conv_in_double(g, x, k, {})), 2e-6);
  }
}

TEST(DirectConv, AppliesTheEpilogueToEveryOutput) {
  const std::int64_t lanes = cpu::direct_conv_lanes();
  for (const std::int64_t o : {lanes, lanes + 5}) {  // whole vectors, and a padded last one
    const Case t{2, 11, 9, 3, o, 3, 3, 2, 1, 1, 1, 1};
    const ops::Conv2DGeometry g = geometry(t);
    const auto x = random_values(g.n * g.h * g.w * g.c, 3);
    const auto k = random_values(g.kh * g.kw * g.c * g.o, 4);
    const auto bias = random_values(g.o, 5);
    const auto residual = random_values(g.n * g.oh * g.ow * g.o, 6);
    for (cpu::Activation a :
         {cpu::Activation::kNone, cpu::Activation::kRelu, cpu::Activation::kRelu6, cpu::Activation::kSilu}) {
      const cpu::Epilogue e{bias.data(), a, residual.data(), g.o};
      std::vector<float> y(residual.size());
      cpu::direct_conv2d(g, x.data(), k.data(), y.data(), e);
      EXPECT_LT(relative_error(y, conv_in_double(g, x, k, e)), 2e-6)
          << "activation " << static_cast<int>(a) << ", " << o << " channels out";
    }
  }
}

TEST(DirectConv, TakesFirstLayersOnly) {
  const Case stem{1, 224, 224, 3, 32, 3, 3, 2, 0, 1, 0, 1};
  EXPECT_TRUE(cpu::direct_conv_applies(geometry(stem)));
  Case wide = stem;
  wide.c = cpu::kDirectConvChannels + 1;  // a later layer: im2col and the GEMM
  EXPECT_FALSE(cpu::direct_conv_applies(geometry(wide)));
  Case many_outputs = stem;
  many_outputs.o = cpu::direct_conv_most_outputs() + 1;
  EXPECT_FALSE(cpu::direct_conv_applies(geometry(many_outputs)));
  ops::Conv2DGeometry dilated = geometry(stem);
  dilated.dh = 2;
  EXPECT_FALSE(cpu::direct_conv_applies(dilated));
}

// The conv2d op on the CPU takes the direct kernel for a stem's shape and gives the sums.
TEST(DirectConv, TheConv2dOpTakesIt) {
  const Case t{2, 15, 13, 3, 32, 3, 3, 2, 0, 1, 0, 1};
  const ops::Conv2DGeometry g = geometry(t);
  const auto xv = random_values(g.n * g.h * g.w * g.c, 7), kv = random_values(g.kh * g.kw * g.c * g.o, 8);
  Graph graph;
  const Output x = graph.placeholder({Shape{g.n, g.h, g.w, g.c}, DType::float32}, "x");
  const Output k = graph.placeholder({Shape{g.kh, g.kw, g.c, g.o}, DType::float32}, "k");
  ops::Conv2DParams params;
  params.strides = {2, 2};
  params.pads = {0, 1, 0, 1};
  Program program(graph, {x, k}, {ops::conv2d(x, k, params)});
  const std::vector<Tensor> y = program.run({Tensor::from_vector<float>(Shape{g.n, g.h, g.w, g.c}, xv),
                                             Tensor::from_vector<float>(Shape{g.kh, g.kw, g.c, g.o}, kv)});
  ASSERT_EQ(y[0].shape(), (Shape{g.n, g.oh, g.ow, g.o}));
  const std::vector<float> got(y[0].data<float>(), y[0].data<float>() + y[0].size());
  EXPECT_LT(relative_error(got, conv_in_double(g, xv, kv, {})), 2e-6);
}

}  // namespace

}  // namespace direct_conv_test
