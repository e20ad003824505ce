#include "layers/preprocessing/random_posterization.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomPosterizationImpl::RandomPosterizationImpl(PosterizationBits factor_, RandomPosterizationOptions o)
    : LayerImpl("RandomPosterization", o.name),
      factor(std::move(factor_)),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  const std::string where = "RandomPosterization '" + name + "'";
  std::vector<double> given;
  for (std::int64_t b : factor.values) given.push_back(static_cast<double>(b));
  const FactorRange range = base_factor(where, PerChannel(given), 1.0, 8.0);
  lower_ = range.lower;
  upper_ = range.upper;
  factor = PosterizationBits(static_cast<std::int64_t>(lower_), static_cast<std::int64_t>(upper_));
  check_and_sort_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomPosterizationImpl::transform(Output images, Output shift) const {
  const Output bytes = ops::floor(ops::clip(transform_value_range(images, options.value_range, {0.0, 255.0}), 0.0f,
                                            255.0f));
  const Output step = ops::round(ops::exp(ops::mul(shift, static_cast<float>(std::log(2.0)))));  // 2^shift
  const Output posterized = ops::mul(ops::floor(ops::div(bytes, step)), step);
  return transform_value_range(posterized, {0.0, 255.0}, options.value_range);
}

std::vector<Output> RandomPosterizationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomPosterization '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 1, true, seed, static_cast<std::uint64_t>(current_call));
  // randint over [lower, upper): lower + floor(u (upper - lower)); lower when they are equal.
  const Output bits =
      ops::add(ops::floor(ops::mul(u, static_cast<float>(upper_ - lower_))), static_cast<float>(lower_));
  const Output shift = ops::reshape(ops::sub(8.0f, bits), {-1, 1, 1, 1});
  return {ops::training_select(transform(x, shift), x)};
}

RandomPosterization::RandomPosterization(PosterizationBits factor, RandomPosterizationOptions options)
    : Layer(std::make_shared<RandomPosterizationImpl>(std::move(factor), std::move(options))) {}

namespace {
const bool random_posterization_registered = register_keras_class(describe_layer<RandomPosterization>(
    "RandomPosterization", &RandomPosterizationImpl::options, keras_field("factor", &RandomPosterizationImpl::factor)));
}  // namespace

}  // namespace strata::layers
