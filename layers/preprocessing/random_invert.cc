#include "layers/preprocessing/random_invert.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomInvertImpl::RandomInvertImpl(RandomInvertOptions o)
    : LayerImpl("RandomInvert", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "RandomInvert '" + name + "'";
  const FactorRange range = base_factor(where, options.factor, 0.0, 1.0);
  options.factor = PerChannel{range.lower, range.upper};
  check_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomInvertImpl::transform(Output images, Output apply) const {
  return ops::where(apply, ops::sub(static_cast<float>(options.value_range.values[1]), images), images);
}

std::vector<Output> RandomInvertImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomInvert '" + name + "'");
  // Keras: p = uniform(lower, upper), threshold = uniform(0, 1), inverted where threshold < p.
  const Output u = ops::random_uniform_rows(x, 2, true, seed, static_cast<std::uint64_t>(current_call));
  const Output p = uniform_between(draw_column(u, 0), options.factor.values[0], options.factor.values[1]);
  const Output apply = ops::reshape(ops::less(draw_column(u, 1), p), {-1, 1, 1, 1});
  return {ops::training_select(transform(x, apply), x)};
}

RandomInvert::RandomInvert(RandomInvertOptions options)
    : Layer(std::make_shared<RandomInvertImpl>(std::move(options))) {}

namespace {
const bool random_invert_registered =
    register_keras_class(describe_layer<RandomInvert>("RandomInvert", &RandomInvertImpl::options));
}  // namespace

}  // namespace strata::layers
