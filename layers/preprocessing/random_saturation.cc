#include "layers/preprocessing/random_saturation.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"
#include "layers/preprocessing/color_space.h"

namespace strata::layers {

RandomSaturationImpl::RandomSaturationImpl(PerChannel factor_, RandomSaturationOptions o)
    : LayerImpl("RandomSaturation", o.name),
      factor(std::move(factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomSaturation '" + name + "'";
  const FactorRange range = base_factor(where, factor, -1.0, 1.0);
  lower_ = range.lower;
  upper_ = range.upper;
  factor = PerChannel{lower_, upper_};
  check_and_sort_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomSaturationImpl::transform(Output images, Output scale) const {
  const std::string& format = options.data_format;
  expect_rgb_images(images, format, "RandomSaturation '" + name + "'");
  const Output hsv = rgb_to_hsv(images, format);
  const Output saturation = ops::clip(ops::mul(image_channel(hsv, format, 1), scale),
                                      static_cast<float>(options.value_range.values[0]),
                                      static_cast<float>(options.value_range.values[1]));
  return hsv_to_rgb(join_channels({image_channel(hsv, format, 0), saturation, image_channel(hsv, format, 2)}, format),
                    format);
}

std::vector<Output> RandomSaturationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomSaturation '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 1, true, seed, static_cast<std::uint64_t>(current_call));
  return {ops::training_select(transform(x, from_draws(u)), x)};
}

Output RandomSaturationImpl::from_draws(Output u) const {
  const Output f = uniform_between(u, lower_, upper_);
  return ops::reshape(ops::div(f, ops::add(ops::sub(1.0f, f), 1e-7f)), {-1, 1, 1, 1});  // 1e-7: Keras's epsilon
}

RandomSaturation::RandomSaturation(PerChannel factor, RandomSaturationOptions options)
    : Layer(std::make_shared<RandomSaturationImpl>(std::move(factor), std::move(options))) {}

namespace {
const bool random_saturation_registered = register_keras_class(describe_layer<RandomSaturation>(
    "RandomSaturation", &RandomSaturationImpl::options, keras_field("factor", &RandomSaturationImpl::factor)));
}  // namespace

}  // namespace strata::layers
