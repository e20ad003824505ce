#include "layers/preprocessing/random_hue.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"
#include "layers/preprocessing/color_space.h"

namespace strata::layers {

RandomHueImpl::RandomHueImpl(PerChannel factor_, RandomHueOptions o)
    : LayerImpl("RandomHue", o.name),
      factor(std::move(factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomHue '" + name + "'";
  const FactorRange range = base_factor(where, factor, 0.0, 1.0);
  lower_ = range.lower;
  upper_ = range.upper;
  factor = PerChannel{lower_, upper_};
  check_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomHueImpl::transform(Output images, Output delta) const {
  expect_rgb_images(images, options.data_format, "RandomHue '" + name + "'");
  const Output unit = transform_value_range(images, options.value_range, {0.0, 1.0});
  const Output hsv = rgb_to_hsv(unit, options.data_format);
  Output hue = ops::add(image_channel(hsv, options.data_format, 0), delta);
  hue = ops::where(ops::greater(hue, ops::ones_like(hue)), ops::sub(hue, 1.0f), hue);
  hue = ops::where(ops::less(hue, ops::zeros_like(hue)), ops::add(hue, 1.0f), hue);
  const std::string& format = options.data_format;
  const Output turned = join_channels({hue, image_channel(hsv, format, 1), image_channel(hsv, format, 2)}, format);
  const Output rgb = ops::clip(hsv_to_rgb(turned, format), 0.0f, 1.0f);
  return transform_value_range(rgb, {0.0, 1.0}, options.value_range);
}

std::vector<Output> RandomHueImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomHue '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 2, true, seed, static_cast<std::uint64_t>(current_call));
  return {ops::training_select(transform(x, from_draws(u)), x)};
}

Output RandomHueImpl::from_draws(Output u) const {
  // Keras: a sign, -1 where its draw is above 0.5, times f / 2.
  const Output u_sign = draw_column(u, 0);
  const Output sign = ops::where(ops::greater(u_sign, ops::fill_like(u_sign, 0.5f)), ops::fill_like(u_sign, -1.0f),
                                 ops::fill_like(u_sign, 1.0f));
  const Output delta = ops::mul(ops::mul(sign, uniform_between(draw_column(u, 1), lower_, upper_)), 0.5f);
  return ops::reshape(delta, {-1, 1, 1, 1});
}

RandomHue::RandomHue(PerChannel factor, RandomHueOptions options)
    : Layer(std::make_shared<RandomHueImpl>(std::move(factor), std::move(options))) {}

namespace {
const bool random_hue_registered = register_keras_class(
    describe_layer<RandomHue>("RandomHue", &RandomHueImpl::options, keras_field("factor", &RandomHueImpl::factor)));
}  // namespace

}  // namespace strata::layers
