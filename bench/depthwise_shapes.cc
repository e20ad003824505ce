// strata_depthwise_shapes: the CPU depthwise kernel (cpu::depthwise_conv2d) on the ten 3×3
// depthwise layer shapes of MobileNetV2 at 224², with relu6 as the model has it, on two
// threads: each shape's best of 7 calls, its GFLOP/s and GB/s, and the total weighted by how
// often MobileNetV2 has the shape. docs/performance.md quotes it; to compare two builds of
// the library, run this program against each (LD_LIBRARY_PATH) one after the other, twice.
//   build/bench/strata_depthwise_shapes [batch, default 32]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/cpu/depthwise_conv.h"
#include "core/cpu/parallel.h"

namespace {

struct Layer {
  std::int64_t side, channels, stride, count;  // input side, channels, stride, layers of the shape
};

// MobileNetV2's depthwise layers at 224²: a stride-2 layer's input is padded by one row and
// column (Keras's ZeroPadding2D before it), so its side is odd.
constexpr Layer kLayers[] = {{112, 32, 1, 1}, {113, 96, 2, 1}, {56, 144, 1, 1}, {57, 144, 2, 1}, {28, 192, 1, 2},
                             {29, 192, 2, 1}, {14, 384, 1, 4}, {14, 576, 1, 2}, {15, 576, 2, 1}, {7, 960, 1, 3}};

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t batch = argc > 1 ? std::max(1, std::atoi(argv[1])) : 32;
  strata::cpu::set_num_threads(2);
  double weighted = 0;
  for (const Layer& layer : kLayers) {
    strata::ops::Conv2DGeometry g;
    g.n = batch;
    g.h = g.w = layer.side;
    g.c = g.o = g.groups = layer.channels;
    g.cg = g.og = 1;
    g.kh = g.kw = 3;
    g.sh = g.sw = layer.stride;
    if (layer.stride == 1) {
      g.oh = g.ow = layer.side;
      g.pt = g.pb = g.pl = g.pr = 1;
    } else {
      g.oh = g.ow = (layer.side - 3) / 2 + 1;
    }
    std::vector<float> x(static_cast<std::size_t>(g.n * g.h * g.w * g.c)), k(static_cast<std::size_t>(9 * g.c)),
        bias(static_cast<std::size_t>(g.c)), y(static_cast<std::size_t>(g.n * g.oh * g.ow * g.o));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 97) * 0.01f;
    for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>(i % 13) * 0.05f - 0.3f;
    strata::cpu::depthwise_conv2d(g, x.data(), k.data(), bias.data(), strata::cpu::Activation::kRelu6, y.data());
    double best = 1e9;
    for (int run = 0; run < 7; ++run) {
      const auto start = std::chrono::steady_clock::now();
      strata::cpu::depthwise_conv2d(g, x.data(), k.data(), bias.data(), strata::cpu::Activation::kRelu6, y.data());
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    const double flop = 2.0 * 9 * static_cast<double>(y.size()), bytes = 4.0 * static_cast<double>(x.size() + y.size());
    std::printf("%4lldx%-4lld c=%-4lld stride %lld  %8.3f ms  %6.1f GFLOP/s  %6.1f GB/s\n",
                static_cast<long long>(layer.side), static_cast<long long>(layer.side),
                static_cast<long long>(layer.channels), static_cast<long long>(layer.stride), best * 1e3,
                flop / best * 1e-9, bytes / best * 1e-9);
    weighted += best * static_cast<double>(layer.count);
  }
  std::printf("batch %lld, weighted by MobileNetV2's layer counts: %.2f ms\n", static_cast<long long>(batch),
              weighted * 1e3);
}
