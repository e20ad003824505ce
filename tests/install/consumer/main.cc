// Builds a tiny graph through the installed headers and library and checks the result.
#include <strata/strata.h>

#include <cmath>
#include <cstdio>

int main() {
  using namespace strata;
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 2}}, "x");
  Output w = g.placeholder({Shape{2, 1}}, "w");
  Output y = ops::reduce_sum(ops::matmul(x, w));
  Program program(g, {x, w}, {y});
  // [[1, 2], [3, 4]] x [[10], [100]] = [[210], [430]]; sum = 640.
  auto out = program.run({Tensor::from_vector<float>({2, 2}, {1, 2, 3, 4}),
                          Tensor::from_vector<float>({2, 1}, {10, 100})});
  const float value = out.at(0).item();
  std::printf("strata consumer: sum(x @ w) = %g (expected 640), %zu device(s)\n", value,
              available_devices().size());
  return std::fabs(value - 640.f) < 1e-3f ? 0 : 1;
}
