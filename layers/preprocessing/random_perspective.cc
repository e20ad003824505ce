#include "layers/preprocessing/random_perspective.h"

#include <array>
#include <sstream>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

namespace {

// A 3 x 3 matrix of per-image (batch, 1) entries, row by row.
using Matrix = std::array<Output, 9>;

// The homography taking the unit square's corners (0, 0), (1, 0), (1, 1), (0, 1) to the
// points p0..p3 (Heckbert's square-to-quadrilateral mapping, exact for any quadrilateral
// without three collinear corners): (u, v, 1) -> (x w, y w, w).
Matrix square_to(const std::array<Output, 4>& x, const std::array<Output, 4>& y) {
  using ops::add, ops::sub, ops::mul, ops::div;
  const Output sum_x = add(sub(x[0], x[1]), sub(x[2], x[3]));
  const Output sum_y = add(sub(y[0], y[1]), sub(y[2], y[3]));
  const Output dx1 = sub(x[1], x[2]), dx2 = sub(x[3], x[2]);
  const Output dy1 = sub(y[1], y[2]), dy2 = sub(y[3], y[2]);
  const Output den = sub(mul(dx1, dy2), mul(dx2, dy1));
  const Output g = div(sub(mul(sum_x, dy2), mul(dx2, sum_y)), den);
  const Output h = div(sub(mul(dx1, sum_y), mul(sum_x, dy1)), den);
  return {add(sub(x[1], x[0]), mul(g, x[1])), add(sub(x[3], x[0]), mul(h, x[3])), x[0],
          add(sub(y[1], y[0]), mul(g, y[1])), add(sub(y[3], y[0]), mul(h, y[3])), y[0],
          g, h, ops::ones_like(g)};
}

// m's adjugate: its inverse times its determinant, which a homography's scale absorbs.
Matrix adjugate(const Matrix& m) {
  const auto minor = [&](int r0, int c0, int r1, int c1) {
    return ops::sub(ops::mul(m[static_cast<std::size_t>(3 * r0 + c0)], m[static_cast<std::size_t>(3 * r1 + c1)]),
                    ops::mul(m[static_cast<std::size_t>(3 * r0 + c1)], m[static_cast<std::size_t>(3 * r1 + c0)]));
  };
  return {minor(1, 1, 2, 2), minor(0, 2, 2, 1), minor(0, 1, 1, 2),
          minor(1, 2, 2, 0), minor(0, 0, 2, 2), minor(0, 2, 1, 0),
          minor(1, 0, 2, 1), minor(0, 1, 2, 0), minor(0, 0, 1, 1)};
}

Matrix product(const Matrix& a, const Matrix& b) {
  Matrix c;
  for (std::size_t r = 0; r < 3; ++r) {
    for (std::size_t k = 0; k < 3; ++k) {
      c[3 * r + k] = ops::add(ops::add(ops::mul(a[3 * r], b[k]), ops::mul(a[3 * r + 1], b[3 + k])),
                              ops::mul(a[3 * r + 2], b[6 + k]));
    }
  }
  return c;
}

}  // namespace

RandomPerspectiveImpl::RandomPerspectiveImpl(RandomPerspectiveOptions o)
    : LayerImpl("RandomPerspective", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "RandomPerspective '" + name + "'";
  const FactorRange range = base_factor(where, options.factor, 0.0, 1.0);
  options.factor = PerChannel{range.lower, range.upper};
  if (!(options.scale >= 0.0 && options.scale <= 1.0)) {
    std::ostringstream value;
    value << options.scale;
    throw ValueError(where + ": 'scale' must be a number in the range [0, 1], got " + value.str());
  }
  if (options.interpolation != "bilinear" && options.interpolation != "nearest") {
    throw ValueError(where + ": 'interpolation' must be 'bilinear' or 'nearest', got '" + options.interpolation + "'");
  }
  is_channels_first(options.data_format);  // validates
}

Output RandomPerspectiveImpl::transform(Output images, Output factors, Output apply) const {
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  const std::int64_t height = images.shape().dims()[static_cast<std::size_t>(height_axis)];
  const std::int64_t width = images.shape().dims()[static_cast<std::size_t>(width_axis)];
  if (height < 0 || width < 0) {
    throw ShapeError("RandomPerspective '" + name + "': needs the image's height and width, got shape " +
                     images.shape().to_string());
  }
  const auto right = static_cast<float>(width - 1), bottom = static_cast<float>(height - 1);
  // Keras's corners, in its order: top left, top right, bottom left, bottom right; each
  // moved to start + start * factor.
  const std::array<float, 4> start_x{0.f, right, 0.f, right}, start_y{0.f, 0.f, bottom, bottom};
  std::array<Output, 4> from_x, from_y, to_x, to_y;
  // The unit square's corners in turn are Keras's 0, 1, 3, 2.
  const std::array<std::int64_t, 4> corner{0, 1, 3, 2};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto k = static_cast<std::size_t>(corner[i]);
    from_x[i] = ops::fill_like(apply, start_x[k]);
    from_y[i] = ops::fill_like(apply, start_y[k]);
    to_x[i] = ops::mul(ops::add(draw_column(factors, 2 * corner[i]), 1.0f), start_x[k]);
    to_y[i] = ops::mul(ops::add(draw_column(factors, 2 * corner[i] + 1), 1.0f), start_y[k]);
  }
  // The output pixel (a point of the moved image) reads the input where the homography
  // from the moved corners to the corners takes it.
  const Matrix h = product(square_to(from_x, from_y), adjugate(square_to(to_x, to_y)));
  std::vector<Output> row;
  for (std::size_t i = 0; i < 8; ++i) row.push_back(ops::div(h[i], h[8]));
  const Output moved =
      affine_images(images, transform_rows(row), options.data_format, options.interpolation, "constant",
                    options.fill_value);
  return ops::where(ops::reshape(apply, {-1, 1, 1, 1}), moved, images);
}

std::vector<Output> RandomPerspectiveImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomPerspective '" + name + "'");
  // Per image: the probability, the threshold, then the 8 corner factors.
  const Output u = ops::random_uniform_rows(x, 10, true, seed, static_cast<std::uint64_t>(current_call));
  const Output p = uniform_between(draw_column(u, 0), options.factor.values[0], options.factor.values[1]);
  const Output apply = ops::less(draw_column(u, 1), p);
  const Output factors = uniform_between(ops::crop(u, {0, 2}, {0, 0}), -0.5 * options.scale, 0.5 * options.scale);
  return {ops::training_select(transform(x, factors, apply), x)};
}

RandomPerspective::RandomPerspective(RandomPerspectiveOptions options)
    : Layer(std::make_shared<RandomPerspectiveImpl>(std::move(options))) {}

namespace {
const bool random_perspective_registered =
    register_keras_class(describe_layer<RandomPerspective>("RandomPerspective", &RandomPerspectiveImpl::options));
}  // namespace

}  // namespace strata::layers
