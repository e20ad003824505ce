#include "layers/preprocessing/random_brightness.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomBrightnessImpl::RandomBrightnessImpl(PerChannel factor_, RandomBrightnessOptions o)
    : LayerImpl("RandomBrightness", o.name),
      factor(std::move(factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomBrightness '" + name + "'";
  const FactorRange range = base_factor(where, factor, -1.0, 1.0);
  lower_ = range.lower;
  upper_ = range.upper;
  factor = PerChannel{lower_, upper_};
  check_and_sort_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomBrightnessImpl::transform(Output images, Output rgb_delta) const {
  return ops::clip(ops::add(images, rgb_delta), static_cast<float>(options.value_range.values[0]),
                   static_cast<float>(options.value_range.values[1]));
}

std::vector<Output> RandomBrightnessImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomBrightness '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 1, true, seed, static_cast<std::uint64_t>(current_call));
  return {ops::training_select(transform(x, from_draws(u)), x)};
}

Output RandomBrightnessImpl::from_draws(Output u) const {
  const double width = options.value_range.values[1] - options.value_range.values[0];
  return ops::reshape(ops::mul(uniform_between(u, lower_, upper_), static_cast<float>(width)), {-1, 1, 1, 1});
}

RandomBrightness::RandomBrightness(PerChannel factor, RandomBrightnessOptions options)
    : Layer(std::make_shared<RandomBrightnessImpl>(std::move(factor), std::move(options))) {}

namespace {
const bool random_brightness_registered = register_keras_class(describe_layer<RandomBrightness>(
    "RandomBrightness", &RandomBrightnessImpl::options, keras_field("factor", &RandomBrightnessImpl::factor)));
}  // namespace

}  // namespace strata::layers
