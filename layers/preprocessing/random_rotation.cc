#include "layers/preprocessing/random_rotation.h"

#include <numbers>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomRotationImpl::RandomRotationImpl(PerChannel factor_, RandomRotationOptions o)
    : LayerImpl("RandomRotation", o.name),
      factor(std::move(factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomRotation '" + name + "'";
  const FactorRange range = base_factor(where, factor, -1.0, 1.0);
  lower_ = range.lower;
  upper_ = range.upper;
  factor = PerChannel{lower_, upper_};  // what Keras keeps and writes
  check_fill(where, options.fill_mode, options.interpolation);
  is_channels_first(options.data_format);  // validates
}

Output RandomRotationImpl::transform(Output images, Output angles) const {
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  const std::int64_t height = images.shape().dims()[static_cast<std::size_t>(height_axis)];
  const std::int64_t width = images.shape().dims()[static_cast<std::size_t>(width_axis)];
  if (height < 0 || width < 0) {
    throw ShapeError("RandomRotation '" + name + "': needs the image's height and width, got shape " +
                     images.shape().to_string());
  }
  // Keras's _compute_affine_matrix with no shear, no shift and scale 1: the output pixel
  // (x, y) reads the input at its turn by the angle about (cx, cy).
  const Output radians = ops::mul(angles, static_cast<float>(std::numbers::pi / 180.0));
  const Output cos = ops::cos(radians), sin = ops::sin(radians);
  const auto cx = static_cast<float>(0.5 * static_cast<double>(width - 1));
  const auto cy = static_cast<float>(0.5 * static_cast<double>(height - 1));
  const Output minus_sin = ops::neg(sin);
  const Output a2 = ops::sub(ops::sub(cx, ops::mul(cos, cx)), ops::mul(minus_sin, cy));
  const Output b2 = ops::sub(ops::sub(cy, ops::mul(sin, cx)), ops::mul(cos, cy));
  const Output zero = ops::zeros_like(angles);
  const Output rows = transform_rows({cos, minus_sin, a2, sin, cos, b2, zero, zero});
  return affine_images(images, rows, options.data_format, options.interpolation, options.fill_mode,
                       options.fill_value);
}

std::vector<Output> RandomRotationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomRotation '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 1, true, seed, static_cast<std::uint64_t>(current_call));
  const Output angles = uniform_between(u, lower_ * 360.0, upper_ * 360.0);
  return {ops::training_select(transform(x, angles), x)};
}

RandomRotation::RandomRotation(PerChannel factor, RandomRotationOptions options)
    : Layer(std::make_shared<RandomRotationImpl>(std::move(factor), std::move(options))) {}

namespace {
const bool random_rotation_registered = register_keras_class(describe_layer<RandomRotation>(
    "RandomRotation", &RandomRotationImpl::options, keras_field("factor", &RandomRotationImpl::factor)));
}  // namespace

}  // namespace strata::layers
