// batch_normalization's batch statistics on the CPU over many rows: channels last, the
// kernel sums blocks of rows and combines the blocks' means and sums of squares; the mean
// and variance must match sums in double as closely as two passes over the whole batch
// would, also for values far from zero (where E[x²] − E[x]², or block means stored as
// floats, would lose the variance: the second did here by 4e-6).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/ops.h"
#include "core/ops/batch_norm_ops.h"
#include "core/program.h"

namespace strata::batch_norm_statistics_test {
namespace {

TEST(BatchNormStatistics, ManyBlocksOfRowsMatchSumsInDouble) {
  // 1801 rows (several blocks and a partial last one) of 37 channels (whole vectors and
  // the channels after them), around 100 with a spread of 1, and around 0.
  for (const float offset : {0.f, 100.f}) {
    const Shape shape{1801, 37};
    std::vector<float> values(static_cast<std::size_t>(shape.num_elements()));
    std::mt19937 random(7);
    std::uniform_real_distribution<float> spread(-1.f, 1.f);
    for (float& v : values) v = offset + spread(random);
    Graph graph;
    const Output x = graph.placeholder({shape, DType::float32}, "x");
    const Output ones = graph.placeholder({Shape{37}, DType::float32}, "ones");
    const Output zeros = graph.placeholder({Shape{37}, DType::float32}, "zeros");
    const ops::BatchNormOutputs bn = ops::batch_normalization(x, ones, zeros, zeros, ones, 1, 1e-3f);
    Program program(graph, {x, ones, zeros}, {bn.mean, bn.variance});
    const Tensor x_value = Tensor::from_vector<float>(shape, values);
    const Tensor ones_value = Tensor::from_vector<float>(Shape{37}, std::vector(37, 1.f));
    const Tensor zeros_value = Tensor::from_vector<float>(Shape{37}, std::vector(37, 0.f));
    const std::vector<Tensor> got = program.run({x_value, ones_value, zeros_value}, {.training = true});
    for (std::int64_t c = 0; c < 37; ++c) {
      double sum = 0, squares = 0;
      for (std::int64_t r = 0; r < shape[0]; ++r) sum += values[static_cast<std::size_t>(r * 37 + c)];
      const double mean = sum / static_cast<double>(shape[0]);
      for (std::int64_t r = 0; r < shape[0]; ++r) {
        squares += std::pow(values[static_cast<std::size_t>(r * 37 + c)] - mean, 2);
      }
      const double variance = squares / static_cast<double>(shape[0]);
      EXPECT_NEAR(got[0].data<float>()[c], mean, 2e-6 * (std::fabs(mean) + 1))
          << "offset " << offset << ", channel " << c;
      EXPECT_NEAR(got[1].data<float>()[c], variance, 2e-6 * variance) << "offset " << offset << ", channel " << c;
    }
  }
}

}  // namespace
}  // namespace strata::batch_norm_statistics_test
