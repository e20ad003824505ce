#include "layers/preprocessing/random_zoom.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomZoomImpl::RandomZoomImpl(PerChannel height_factor_, RandomZoomOptions o)
    : LayerImpl("RandomZoom", o.name),
      height_factor(std::move(height_factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomZoom '" + name + "'";
  const FactorRange h = shift_factor(where, "height_factor", height_factor, true);
  height_lower_ = h.lower;
  height_upper_ = h.upper;
  if (options.width_factor) {
    const FactorRange w = shift_factor(where, "width_factor", *options.width_factor, true);
    width_lower_ = w.lower;
    width_upper_ = w.upper;
  }
  check_fill(where, options.fill_mode, options.interpolation);
  is_channels_first(options.data_format);  // validates
}

Output RandomZoomImpl::transform(Output images, Output zooms) const {
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  const std::int64_t height = images.shape().dims()[static_cast<std::size_t>(height_axis)];
  const std::int64_t width = images.shape().dims()[static_cast<std::size_t>(width_axis)];
  if (height < 0 || width < 0) {
    throw ShapeError("RandomZoom '" + name + "': needs the image's height and width, got shape " +
                     images.shape().to_string());
  }
  // Keras's _get_zoom_matrix: [zx, 0, (w - 1) / 2 (1 - zx), 0, zy, (h - 1) / 2 (1 - zy), 0, 0].
  const Output zx = draw_column(zooms, 0), zy = draw_column(zooms, 1);
  const Output x_offset = ops::mul(ops::sub(1.f, zx), (static_cast<float>(width) - 1.f) / 2.f);
  const Output y_offset = ops::mul(ops::sub(1.f, zy), (static_cast<float>(height) - 1.f) / 2.f);
  const Output zero = ops::zeros_like(zx);
  const Output rows = transform_rows({zx, zero, x_offset, zero, zy, y_offset, zero, zero});
  return affine_images(images, rows, options.data_format, options.interpolation, options.fill_mode,
                       options.fill_value);
}

std::vector<Output> RandomZoomImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomZoom '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 2, true, seed, static_cast<std::uint64_t>(current_call));
  const Output height_zoom = uniform_between(draw_column(u, 0), 1.0 + height_lower_, 1.0 + height_upper_);
  const Output width_zoom =
      options.width_factor ? uniform_between(draw_column(u, 1), 1.0 + width_lower_, 1.0 + width_upper_) : height_zoom;
  return {ops::training_select(transform(x, ops::concat({width_zoom, height_zoom}, 1)), x)};
}

RandomZoom::RandomZoom(PerChannel height_factor, RandomZoomOptions options)
    : Layer(std::make_shared<RandomZoomImpl>(std::move(height_factor), std::move(options))) {}

namespace {
const bool random_zoom_registered = register_keras_class(describe_layer<RandomZoom>(
    "RandomZoom", &RandomZoomImpl::options,
    keras_field("height_factor", &RandomZoomImpl::height_factor, Spelling::bare_single)));
}  // namespace

}  // namespace strata::layers
