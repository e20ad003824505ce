#include "layers/preprocessing/random_sharpness.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomSharpnessImpl::RandomSharpnessImpl(PerChannel factor_, RandomSharpnessOptions o)
    : LayerImpl("RandomSharpness", o.name),
      factor(std::move(factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomSharpness '" + name + "'";
  const FactorRange range = base_factor(where, factor, 0.0, 1.0);
  lower_ = range.lower;
  upper_ = range.upper;
  factor = PerChannel{lower_, upper_};
  check_and_sort_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomSharpnessImpl::transform(Output images, Output f) const {
  const Output smoothed = filter_images(images, options.data_format, 3, 3, [](Output shifted, std::int64_t r,
                                                                              std::int64_t c) {
    return ops::mul(shifted, r == 1 && c == 1 ? 5.0f / 13.0f : 1.0f / 13.0f);
  });
  const Output blend = ops::sub(1.0f, ops::mul(f, 2.0f));
  const Output y = ops::add(images, ops::mul(blend, ops::sub(smoothed, images)));
  return ops::clip(y, static_cast<float>(options.value_range.values[0]),
                   static_cast<float>(options.value_range.values[1]));
}

std::vector<Output> RandomSharpnessImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomSharpness '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 1, true, seed, static_cast<std::uint64_t>(current_call));
  return {ops::training_select(transform(x, ops::reshape(uniform_between(u, lower_, upper_), {-1, 1, 1, 1})), x)};
}

RandomSharpness::RandomSharpness(PerChannel factor, RandomSharpnessOptions options)
    : Layer(std::make_shared<RandomSharpnessImpl>(std::move(factor), std::move(options))) {}

namespace {
const bool random_sharpness_registered = register_keras_class(describe_layer<RandomSharpness>(
    "RandomSharpness", &RandomSharpnessImpl::options, keras_field("factor", &RandomSharpnessImpl::factor)));
}  // namespace

}  // namespace strata::layers
