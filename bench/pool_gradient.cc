// strata_pool_gradient: the max-pool gradient through a relu (the `max_pool2d_relu_grad` op
// conv2d's gradient builds) on the bench CNN's first pooled activations, (128, 26, 26, 32)
// with 2×2 windows, on the library's threads: the median of N runs of a one-op program, in
// microseconds. docs/performance.md quotes it; to compare two builds of the library, run this
// program against each (LD_LIBRARY_PATH), alternating.
//   build/bench/strata_pool_gradient [runs, default 200]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/ops/pool_ops.h"
#include "core/program.h"

using namespace strata;

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  Tensor y(Shape{128, 26, 26, 32}), dy(Shape{128, 13, 13, 32});
  // A relu's output (about a third zeros) and a gradient, both fixed.
  for (std::int64_t i = 0; i < y.size(); ++i) y.data<float>()[i] = std::max(0.f, ((i * 7919) % 97) / 97.f - 0.3f);
  for (std::int64_t i = 0; i < dy.size(); ++i) dy.data<float>()[i] = ((i * 31) % 13) / 13.f;
  Graph g;
  const Output yp = g.placeholder({y.shape()}), dyp = g.placeholder({dy.shape()});
  auto [dz, db] = ops::max_pool2d_relu_grad(yp, dyp, {{2, 2}, {2, 2}, {0, 0, 0, 0}});
  Program program(g, {yp, dyp}, {dz, db});
  std::vector<double> micros;
  for (int r = 0; r < runs; ++r) {
    const auto start = std::chrono::steady_clock::now();
    program.run({y, dy});
    micros.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(micros.begin(), micros.end());
  std::printf("max_pool2d_relu_grad (128, 26, 26, 32), 2x2: median %.1f us over %d runs (min %.1f, max %.1f)\n",
              micros[micros.size() / 2], runs, micros.front(), micros.back());
}
