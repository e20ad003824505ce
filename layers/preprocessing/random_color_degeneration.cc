#include "layers/preprocessing/random_color_degeneration.h"

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

RandomColorDegenerationImpl::RandomColorDegenerationImpl(PerChannel factor_, RandomColorDegenerationOptions o)
    : LayerImpl("RandomColorDegeneration", o.name),
      factor(std::move(factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomColorDegeneration '" + name + "'";
  const FactorRange range = base_factor(where, factor, -1.0, 1.0);
  lower_ = range.lower;
  upper_ = range.upper;
  factor = PerChannel{lower_, upper_};
  check_and_sort_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomColorDegenerationImpl::transform(Output images, Output blend) const {
  const std::string& format = options.data_format;
  expect_rgb_images(images, format, "RandomColorDegeneration '" + name + "'");
  const Output grey = ops::add(ops::add(ops::mul(image_channel(images, format, 0), 0.2989f),
                                        ops::mul(image_channel(images, format, 1), 0.5870f)),
                               ops::mul(image_channel(images, format, 2), 0.1140f));
  const Output y = ops::add(images, ops::mul(blend, ops::sub(grey, images)));
  return ops::clip(y, static_cast<float>(options.value_range.values[0]),
                   static_cast<float>(options.value_range.values[1]));
}

std::vector<Output> RandomColorDegenerationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomColorDegeneration '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 1, true, seed, static_cast<std::uint64_t>(current_call));
  const Output blend = ops::reshape(uniform_between(u, lower_, upper_), {-1, 1, 1, 1});
  return {ops::training_select(transform(x, blend), x)};
}

RandomColorDegeneration::RandomColorDegeneration(PerChannel factor, RandomColorDegenerationOptions options)
    : Layer(std::make_shared<RandomColorDegenerationImpl>(std::move(factor), std::move(options))) {}

namespace {
const bool random_color_degeneration_registered = register_keras_class(describe_layer<RandomColorDegeneration>(
    "RandomColorDegeneration", &RandomColorDegenerationImpl::options,
    keras_field("factor", &RandomColorDegenerationImpl::factor)));
}  // namespace

}  // namespace strata::layers
