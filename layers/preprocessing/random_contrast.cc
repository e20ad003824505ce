#include "layers/preprocessing/random_contrast.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomContrastImpl::RandomContrastImpl(PerChannel factor_, RandomContrastOptions o)
    : LayerImpl("RandomContrast", o.name),
      factor(std::move(factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomContrast '" + name + "'";
  const FactorRange range = base_factor(where, factor, 0.0, 1.0);
  lower_ = range.lower;
  upper_ = range.upper;
  factor = PerChannel{lower_, upper_};
  check_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomContrastImpl::transform(Output images, Output contrast_factor) const {
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  const Output mean = ops::reduce_mean(ops::reduce_mean(images, {height_axis}, true), {width_axis}, true);
  const Output y = ops::add(ops::mul(ops::sub(images, mean), contrast_factor), mean);
  return ops::clip(y, static_cast<float>(options.value_range.values[0]),
                   static_cast<float>(options.value_range.values[1]));
}

std::vector<Output> RandomContrastImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomContrast '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 1, true, seed, static_cast<std::uint64_t>(current_call));
  return {ops::training_select(transform(x, from_draws(u)), x)};
}

Output RandomContrastImpl::from_draws(Output u) const {
  return ops::reshape(uniform_between(u, 1.0 - lower_, 1.0 + upper_), {-1, 1, 1, 1});
}

RandomContrast::RandomContrast(PerChannel factor, RandomContrastOptions options)
    : Layer(std::make_shared<RandomContrastImpl>(std::move(factor), std::move(options))) {}

namespace {
const bool random_contrast_registered = register_keras_class(describe_layer<RandomContrast>(
    "RandomContrast", &RandomContrastImpl::options, keras_field("factor", &RandomContrastImpl::factor)));
}  // namespace

}  // namespace strata::layers
