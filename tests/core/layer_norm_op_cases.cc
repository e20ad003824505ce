// Op case for layer_normalization_inference (core/ops/layer_norm_ops.h), the inference
// rewrite's LayerNormalization: forward values against the normalization in double over
// rows of 1, 7, 16 and 100 channels (vectors and the channels left over), with γ and β,
// either or neither; the op refuses a gradient. Registered into op_gradients_test's table.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/ops/layer_norm_ops.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::layer_norm_op_cases {
namespace {

std::vector<float> draw(std::size_t n, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = u(rng);
  return v;
}

void forward_check() {
  std::mt19937 rng(4);
  constexpr float kEpsilon = 1e-3f;
  for (std::int64_t c : {1, 7, 16, 100}) {
    for (int which = 0; which < 4; ++which) {
      const bool scale = which & 1, center = which & 2;
      const std::int64_t rows = 6;
      // Rows offset from 0 (a mean of about 3), so that the centering matters.
      const std::vector<float> xv = draw(static_cast<std::size_t>(rows * c), rng, 1.f, 5.f);
      const std::vector<float> gv = draw(static_cast<std::size_t>(c), rng, -2.f, 2.f);
      const std::vector<float> bv = draw(static_cast<std::size_t>(c), rng, -1.f, 1.f);
      Graph g;
      const Output x = g.placeholder({Shape{2, 3, c}, DType::float32}, "x");
      const Output gamma = g.placeholder({Shape{c}, DType::float32}, "gamma");
      const Output beta = g.placeholder({Shape{c}, DType::float32}, "beta");
      const Output y =
          ops::layer_normalization_inference(x, scale ? gamma : Output{}, center ? beta : Output{}, kEpsilon);
      std::vector<Output> feeds{x};
      std::vector<Tensor> values{Tensor::from_vector(Shape{2, 3, c}, xv)};
      if (scale) feeds.push_back(gamma), values.push_back(Tensor::from_vector(Shape{c}, gv));
      if (center) feeds.push_back(beta), values.push_back(Tensor::from_vector(Shape{c}, bv));
      const Tensor got = Program(g, feeds, {y}).run(values)[0];
      ASSERT_EQ(got.shape(), (Shape{2, 3, c}));
      for (std::int64_t r = 0; r < rows; ++r) {
        double mean = 0, variance = 0;
        for (std::int64_t i = 0; i < c; ++i) mean += xv[static_cast<std::size_t>(r * c + i)];
        mean /= static_cast<double>(c);
        for (std::int64_t i = 0; i < c; ++i) {
          const double d = xv[static_cast<std::size_t>(r * c + i)] - mean;
          variance += d * d;
        }
        variance /= static_cast<double>(c);
        for (std::int64_t i = 0; i < c; ++i) {
          const auto k = static_cast<std::size_t>(i);
          double want = (xv[static_cast<std::size_t>(r * c + i)] - mean) / std::sqrt(variance + kEpsilon);
          if (scale) want *= gv[k];
          if (center) want += bv[k];
          EXPECT_NEAR(got.data<float>()[r * c + i], want, 2e-5 * std::max(1.0, std::abs(want)))
              << "C " << c << (scale ? " with gamma" : "") << (center ? " with beta" : "") << ", row " << r;
        }
      }
    }
  }
  // Inference only: training programs run the composite.
  Graph g;
  const Output x = g.placeholder({Shape{2, 4}, DType::float32}, "x");
  const Output y = ops::layer_normalization_inference(x, Output{}, Output{}, 1e-3f);
  EXPECT_THROW(gradients(ops::reduce_sum(y), {x}), NotImplementedError);
  // γ not of the last axis's size: refused when the node is made.
  const Output wrong = g.placeholder({Shape{3}, DType::float32}, "gamma");
  EXPECT_THROW(ops::layer_normalization_inference(x, wrong, Output{}, 1e-3f), ShapeError);
}

const RegisterOpCases layer_norm_cases({
    {"layer_normalization_inference",
     OpCase{.forward_check = forward_check,
            .no_gradient_check = "the inference rewrite's: its gradient refuses by name (training runs the composite)"}},
});

}  // namespace
}  // namespace strata::testing::layer_norm_op_cases
