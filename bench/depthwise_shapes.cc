// strata_depthwise_shapes: the CPU depthwise kernel (cpu::depthwise_conv2d) on the depthwise
// layer shapes of MobileNetV2 (ten 3×3 shapes, relu6 as the model has it) or EfficientNetB0
// (3×3 and 5×5 shapes, silu) at 224², on two threads: each shape's best of 7 calls, its
// GFLOP/s and GB/s, and the total weighted by how often the model has the shape.
// docs/performance.md quotes it; to compare two builds of the library, run this program
// against each (LD_LIBRARY_PATH) one after the other, twice.
//   build/bench/strata_depthwise_shapes [batch, default 32] [mobilenetv2|efficientnetb0]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "core/cpu/depthwise_conv.h"
#include "core/cpu/parallel.h"

namespace {

struct Layer {
  std::int64_t side, channels, kernel, stride, count;  // input side, channels, window, stride, layers of the shape
};

// A stride-2 layer's input is padded by Keras's ZeroPadding2D before it (correct_pad), so its
// side is the padded one and the layer itself pads nothing; a stride-1 layer pads "same".
constexpr Layer kMobileNetV2[] = {{112, 32, 3, 1, 1}, {113, 96, 3, 2, 1}, {56, 144, 3, 1, 1}, {57, 144, 3, 2, 1},
                                  {28, 192, 3, 1, 2}, {29, 192, 3, 2, 1}, {14, 384, 3, 1, 4}, {14, 576, 3, 1, 2},
                                  {15, 576, 3, 2, 1}, {7, 960, 3, 1, 3}};
constexpr Layer kEfficientNetB0[] = {{112, 32, 3, 1, 1},  {113, 96, 3, 2, 1}, {56, 144, 3, 1, 1},
                                     {59, 144, 5, 2, 1},  {28, 240, 5, 1, 1}, {29, 240, 3, 2, 1},
                                     {14, 480, 3, 1, 2},  {14, 480, 5, 1, 1}, {14, 672, 5, 1, 2},
                                     {17, 672, 5, 2, 1},  {7, 1152, 5, 1, 3}, {7, 1152, 3, 1, 1}};

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t batch = argc > 1 ? std::max(1, std::atoi(argv[1])) : 32;
  const bool efficientnet = argc > 2 && std::strcmp(argv[2], "efficientnetb0") == 0;
  const std::span<const Layer> layers = efficientnet ? std::span<const Layer>(kEfficientNetB0) : kMobileNetV2;
  const auto activation = efficientnet ? strata::cpu::Activation::kSilu : strata::cpu::Activation::kRelu6;
  strata::cpu::set_num_threads(2);
  double weighted = 0;
  for (const Layer& layer : layers) {
    strata::ops::Conv2DGeometry g;
    g.n = batch;
    g.h = g.w = layer.side;
    g.c = g.o = g.groups = layer.channels;
    g.cg = g.og = 1;
    g.kh = g.kw = layer.kernel;
    g.sh = g.sw = layer.stride;
    if (layer.stride == 1) {
      g.oh = g.ow = layer.side;
      g.pt = g.pb = g.pl = g.pr = layer.kernel / 2;
    } else {
      g.oh = g.ow = (layer.side - layer.kernel) / 2 + 1;
    }
    const std::int64_t taps = g.kh * g.kw;
    std::vector<float> x(static_cast<std::size_t>(g.n * g.h * g.w * g.c)), k(static_cast<std::size_t>(taps * g.c)),
        bias(static_cast<std::size_t>(g.c)), y(static_cast<std::size_t>(g.n * g.oh * g.ow * g.o));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 97) * 0.01f;
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>(i % 13) * 0.05f - 0.3f;
    strata::cpu::depthwise_conv2d(g, x.data(), k.data(), bias.data(), activation, y.data());
    double best = 1e9;
    for (int run = 0; run < 7; ++run) {
      const auto start = std::chrono::steady_clock::now();
      strata::cpu::depthwise_conv2d(g, x.data(), k.data(), bias.data(), activation, y.data());
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    const double flop = 2.0 * static_cast<double>(taps) * static_cast<double>(y.size()),
                 bytes = 4.0 * static_cast<double>(x.size() + y.size());
    std::printf("%4lldx%-4lld c=%-4lld %lldx%lld stride %lld  %8.3f ms  %6.1f GFLOP/s  %6.1f GB/s\n",
                static_cast<long long>(layer.side), static_cast<long long>(layer.side),
                static_cast<long long>(layer.channels), static_cast<long long>(layer.kernel),
                static_cast<long long>(layer.kernel), static_cast<long long>(layer.stride), best * 1e3,
                flop / best * 1e-9, bytes / best * 1e-9);
    weighted += best * static_cast<double>(layer.count);
  }
  std::printf("batch %lld, weighted by %s's layer counts: %.2f ms\n", static_cast<long long>(batch),
              efficientnet ? "EfficientNetB0" : "MobileNetV2", weighted * 1e3);
}
