// Op cases for image_affine_transform (core/ops/image_ops.h), beyond its Keras goldens
// (tests/layers/augmentation_golden_test.cc): the identity transform copies; a whole-pixel
// shift moves pixels and fills what comes from outside; one transform row serves a whole
// batch; an output size of its own; and a gradient asked through it is refused by name.
#include <gtest/gtest.h>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/ops/image_ops.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::image_op_cases {
namespace {

Tensor transform(const Tensor& images, const Tensor& rows, const ops::AffineTransformOptions& o) {
  Graph g;
  Output x = g.placeholder({images.shape()}, "images");
  Output t = g.placeholder({rows.shape()}, "transforms");
  Program p(g, {x, t}, {ops::image_affine_transform(x, t, o)});
  return p.run({images, rows})[0];
}

void check_forward() {
  const Tensor images = uniform({2, 4, 5, 3}, -1, 1, 9);
  // The identity, one row for both images: a copy, in every mode.
  const Tensor identity = Tensor::from_vector<float>({1, 8}, {1, 0, 0, 0, 1, 0, 0, 0});
  for (const char* mode : {"reflect", "wrap", "constant", "nearest"}) {
    for (const char* interpolation : {"bilinear", "nearest"}) {
      EXPECT_TRUE(tensors_near(transform(images, identity, {.interpolation = interpolation, .fill_mode = mode}), images,
                               0.f))
          << mode << " " << interpolation;
    }
  }
  // Output (x, y) reads input (x - 1, y + 2) for image 0, (x + 3, y) for image 1; constant
  // fill 7 outside.
  const Tensor shifts = Tensor::from_vector<float>({2, 8}, {1, 0, -1, 0, 1, 2, 0, 0, 1, 0, 3, 0, 1, 0, 0, 0});
  const Tensor y = transform(images, shifts, {.fill_mode = "constant", .fill_value = 7.f});
  const std::int64_t dx[2] = {-1, 3}, dy[2] = {2, 0};
  for (std::int64_t b = 0; b < 2; ++b) {
    for (std::int64_t r = 0; r < 4; ++r) {
      for (std::int64_t c = 0; c < 5; ++c) {
        for (std::int64_t ch = 0; ch < 3; ++ch) {
          const std::int64_t sr = r + dy[b], sc = c + dx[b];
          const bool inside = sr >= 0 && sr < 4 && sc >= 0 && sc < 5;
          const float want = inside ? images.item(((b * 4 + sr) * 5 + sc) * 3 + ch) : 7.f;
          ASSERT_EQ(y.item(((b * 4 + r) * 5 + c) * 3 + ch), want) << b << " " << r << " " << c << " " << ch;
        }
      }
    }
  }
  // An output of its own size: the (2, 3) window from (1, 2).
  const Tensor window = transform(images, Tensor::from_vector<float>({1, 8}, {1, 0, 2, 0, 1, 1, 0, 0}),
                                  {.interpolation = "nearest", .out_height = 2, .out_width = 3});
  ASSERT_EQ(window.shape(), Shape({2, 2, 3, 3}));
  EXPECT_EQ(window.item(0), images.item(((0 * 4 + 1) * 5 + 2) * 3));
  EXPECT_EQ(window.item(window.size() - 1), images.item(((1 * 4 + 2) * 5 + 4) * 3 + 2));
  // Bad arguments, by name.
  Graph g;
  Output x = g.placeholder({Shape({2, 4, 5, 3})}, "images");
  Output t = g.placeholder({Shape({2, 8})}, "transforms");
  EXPECT_THROW(ops::image_affine_transform(x, t, {.fill_mode = "mirror"}), ValueError);
  EXPECT_THROW(ops::image_affine_transform(x, t, {.interpolation = "bicubic"}), ValueError);
  EXPECT_THROW(ops::image_affine_transform(x, g.placeholder({Shape({2, 6})}, "six"), {}), ShapeError);
  EXPECT_THROW(ops::image_affine_transform(g.placeholder({Shape({4, 5, 3})}, "rank3"), t, {}), ShapeError);
  // Four transforms for a batch of two: refused when run.
  EXPECT_THROW(transform(images, Tensor::filled({4, 8}, 0.f), {}), ShapeError);
}

const RegisterOpCases image_cases({{"image_affine_transform",
                                    OpCase{{}, check_forward,
                                           "refused: its gradient to the images is not written (see the op's "
                                           "declaration); AffineTransform.GradientIsRefusedByName checks it"}}});

}  // namespace

TEST(AffineTransform, GradientIsRefusedByName) {
  Graph g;
  Output x = g.placeholder({Shape({2, 4, 5, 3})}, "images");
  Output t = g.placeholder({Shape({2, 8})}, "transforms");
  const Output y = ops::reduce_sum(ops::image_affine_transform(x, t, {}));
  try {
    gradients(y, {x});
    FAIL() << "no error";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("image_affine_transform"), std::string::npos) << e.what();
  }
  // No gradient asked for the images (a model's inputs): nothing to refuse.
  EXPECT_NO_THROW(gradients(y, {}));
}

}  // namespace strata::testing::image_op_cases
