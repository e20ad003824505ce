#include "layers/preprocessing/random_translation.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomTranslationImpl::RandomTranslationImpl(PerChannel height_factor_, PerChannel width_factor_,
                                             RandomTranslationOptions o)
    : LayerImpl("RandomTranslation", o.name),
      height_factor(std::move(height_factor_)),
      width_factor(std::move(width_factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomTranslation '" + name + "'";
  const FactorRange h = shift_factor(where, "height_factor", height_factor, false);
  const FactorRange w = shift_factor(where, "width_factor", width_factor, false);
  height_lower_ = h.lower;
  height_upper_ = h.upper;
  width_lower_ = w.lower;
  width_upper_ = w.upper;
  check_fill(where, options.fill_mode, options.interpolation);
  is_channels_first(options.data_format);  // validates
}

Output RandomTranslationImpl::transform(Output images, Output translations) const {
  // Keras's _get_translation_matrix: [1, 0, -dx, 0, 1, -dy, 0, 0].
  const Output dx = draw_column(translations, 0), dy = draw_column(translations, 1);
  const Output zero = ops::zeros_like(dx), one = ops::add(zero, 1.f);
  const Output rows = transform_rows({one, zero, ops::neg(dx), zero, one, ops::neg(dy), zero, zero});
  return affine_images(images, rows, options.data_format, options.interpolation, options.fill_mode,
                       options.fill_value);
}

std::vector<Output> RandomTranslationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  const std::string where = "RandomTranslation '" + name + "'";
  expect_image_batch(x, where);
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  const std::int64_t height = x.shape().dims()[static_cast<std::size_t>(height_axis)];
  const std::int64_t width = x.shape().dims()[static_cast<std::size_t>(width_axis)];
  if (height < 0 || width < 0) {
    throw ShapeError(where + ": needs the image's height and width, got shape " + x.shape().to_string());
  }
  const Output u = ops::random_uniform_rows(x, 2, true, seed, static_cast<std::uint64_t>(current_call));
  const Output dy =
      ops::mul(uniform_between(draw_column(u, 0), height_lower_, height_upper_), static_cast<float>(height));
  const Output dx = ops::mul(uniform_between(draw_column(u, 1), width_lower_, width_upper_), static_cast<float>(width));
  return {ops::training_select(transform(x, ops::concat({dx, dy}, 1)), x)};
}

RandomTranslation::RandomTranslation(PerChannel height_factor, PerChannel width_factor,
                                     RandomTranslationOptions options)
    : Layer(std::make_shared<RandomTranslationImpl>(std::move(height_factor), std::move(width_factor),
                                                    std::move(options))) {}

namespace {
const bool random_translation_registered = register_keras_class(describe_layer<RandomTranslation>(
    "RandomTranslation", &RandomTranslationImpl::options,
    keras_field("height_factor", &RandomTranslationImpl::height_factor, Spelling::bare_single),
    keras_field("width_factor", &RandomTranslationImpl::width_factor, Spelling::bare_single)));
}  // namespace

}  // namespace strata::layers
