// Op cases for resize_weights (core/ops/resize_ops.h), beyond the Keras goldens of the
// layers that run it (tests/io/unknown_dims_files_test.cc: UpSampling2D and Resizing over
// None rows and columns): hand-computed matrices of each kind, the window
// crop_to_aspect_ratio keeps, None sizes inferred as None, and one Program making the
// matrix of each size it is fed.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/resize_ops.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::resize_op_cases {
namespace {

// The (in, out) matrix for an x of shape `x_shape` (its values unused).
Tensor resize_matrix_for(const Shape& x_shape, const ops::ResizeWeightsOptions& o) {
  Graph g;
  Output x = g.placeholder({x_shape}, "x");
  Program p(g, {x}, {ops::resize_weights(x, o)});
  return p.run({Tensor::filled(x_shape, 0.f)})[0];
}

void expect_matrix(const Tensor& m, Shape shape, const std::vector<float>& want, const std::string& what) {
  ASSERT_EQ(m.shape(), shape) << what;
  EXPECT_TRUE(tensors_near(m, Tensor::from_vector<float>(shape, want), 1e-7f)) << what;
}

void check_resize_weights() {
  // Bilinear 2 -> 4, half-pixel centers: sources -0.25, 0.25, 0.75, 1.25 (edges clamped).
  // Column o holds output o's weights.
  expect_matrix(resize_matrix_for({1, 2, 3, 1}, {.axis = 1, .kind = ResizeKind::bilinear, .size = 4}), {2, 4},
                {1.f, 0.75f, 0.25f, 0.f, 0.f, 0.25f, 0.75f, 1.f}, "bilinear 2 -> 4");
  // Nearest 3 -> 2: floor(0.75) = 0, floor(2.25) = 2.
  expect_matrix(resize_matrix_for({1, 5, 3, 1}, {.axis = 2, .kind = ResizeKind::nearest, .size = 2}), {3, 2},
                {1.f, 0.f, 0.f, 0.f, 0.f, 1.f}, "nearest 3 -> 2");
  // Nearest by a factor of 2 on an axis of 2.
  expect_matrix(resize_matrix_for({1, 2, 3, 1}, {.axis = 1, .kind = ResizeKind::nearest, .scale = 2}), {2, 4},
                {1.f, 1.f, 0.f, 0.f, 0.f, 0.f, 1.f, 1.f}, "nearest 2 x 2");
  // Adaptive average 5 -> 2: bins [0, 3) and [2, 5).
  const float t = 1.f / 3.f;
  expect_matrix(resize_matrix_for({1, 5, 1}, {.axis = 1, .kind = ResizeKind::adaptive_average, .size = 2}), {5, 2},
                {t, 0.f, t, 0.f, t, t, 0.f, t, 0.f, t}, "adaptive average 5 -> 2");
  // crop_to_aspect_ratio, 6 rows by 2 cols to 2 : 2: the centered 2 rows (2 and 3).
  expect_matrix(resize_matrix_for({1, 6, 2, 1}, {.axis = 1, .kind = ResizeKind::nearest, .size = 2, .other_axis = 2,
                                                 .other_size = 2}),
                {6, 2}, {0.f, 0.f, 0.f, 0.f, 1.f, 0.f, 0.f, 1.f, 0.f, 0.f, 0.f, 0.f}, "cropped rows");
  // Every kind's columns sum to 1 (lanczos5 on 3 cells, bicubic's renormalized edge taps).
  for (int kind = 0; kind <= static_cast<int>(ResizeKind::adaptive_average); ++kind) {
    const Tensor m = resize_matrix_for({1, 3, 7, 1}, {.axis = 2, .kind = static_cast<ResizeKind>(kind), .size = 3});
    for (std::int64_t o = 0; o < 3; ++o) {
      float sum = 0.f;
      for (std::int64_t i = 0; i < 7; ++i) sum += m.item(i * 3 + o);
      EXPECT_NEAR(sum, 1.f, 1e-5f) << "kind " << kind << " column " << o;
    }
  }
}

const RegisterOpCases resize_cases({{"resize_weights",
                                     OpCase{{}, check_resize_weights,
                                            "not differentiable: the matrix depends on x's shape only"}}});

}  // namespace

TEST(ResizeWeights, NoneSizesStayNoneAndOneProgramMakesEachSizesMatrix) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, kUnknownDim, 4, 1}}, "x");
  Output by_factor = ops::resize_weights(x, {.axis = 1, .kind = ResizeKind::bilinear, .scale = 2});
  Output fixed = ops::resize_weights(x, {.axis = 1, .kind = ResizeKind::area, .size = 3});
  EXPECT_EQ(by_factor.shape(), (Shape{kUnknownDim, kUnknownDim}));
  EXPECT_EQ(fixed.shape(), (Shape{kUnknownDim, 3}));
  Program p(g, {x}, {by_factor, fixed});
  for (std::int64_t rows : {5, 2, 5}) {
    const auto out = p.run({Tensor::filled({1, rows, 4, 1}, 0.f)});
    EXPECT_EQ(out[0].shape(), (Shape{rows, 2 * rows}));
    EXPECT_EQ(out[1].shape(), (Shape{rows, 3}));
  }
}

TEST(ResizeWeights, BadArgumentsAreRefusedByName) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 4, 4, 1}}, "x");
  EXPECT_THROW(ops::resize_weights(x, {.axis = 1}), ValueError);                       // neither size nor scale
  EXPECT_THROW(ops::resize_weights(x, {.axis = 1, .size = 2, .scale = 2}), ValueError);  // both
  EXPECT_THROW(ops::resize_weights(x, {.axis = 4, .size = 2}), ShapeError);
  EXPECT_THROW(ops::resize_kind_of("here", "gaussian"), ValueError);
}

}  // namespace strata::testing::resize_op_cases
