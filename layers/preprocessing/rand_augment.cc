#include "layers/preprocessing/rand_augment.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandAugmentImpl::RandAugmentImpl(RandAugmentOptions o)
    : LayerImpl("RandAugment", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "RandAugment '" + name + "'";
  const FactorRange range = base_factor(where, options.factor, 0.0, 1.0);
  options.factor = PerChannel{range.lower, range.upper};
  check_increasing_value_range(where, options.value_range);
  if (options.num_ops < 0) {
    throw ValueError(where + ": 'num_ops' must be at least 0, got " + std::to_string(options.num_ops));
  }
  check_fill(where, "reflect", options.interpolation);
  is_channels_first(options.data_format);  // validates
  // Keras's _AUGMENT_LAYERS, in its order (the order the choices index).
  ops_ = std::make_unique<AugmentChoices>(
      AugmentChoicesSettings{.factor = range, .value_range = options.value_range,
                             .interpolation = options.interpolation, .data_format = options.data_format,
                             .seed = seed, .name = name},
      std::vector<std::string>{"random_shear", "random_translation", "random_rotation", "random_brightness",
                               "random_color_degeneration", "random_contrast", "random_sharpness",
                               "random_posterization", "solarization", "auto_contrast", "equalization"});
}

Output RandAugmentImpl::choices(Output images) const {
  const Output u = ops::random_uniform_rows(images, options.num_ops, false, seed,
                                            static_cast<std::uint64_t>(current_call));
  return ops::minimum(ops::floor(ops::mul(u, static_cast<float>(ops_->size()))),
                      static_cast<float>(ops_->size() - 1));
}

Output RandAugmentImpl::transform(Output images, Output choices, int call) const {
  Output y = images;
  for (std::int64_t slot = 0; slot < options.num_ops; ++slot) {
    y = apply_choice(*ops_, y, draw_column(choices, slot), [call](std::size_t) { return call; });
  }
  return y;
}

std::vector<Output> RandAugmentImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandAugment '" + name + "'");
  if (options.num_ops == 0) return {x};
  return {ops::training_select(transform(x, choices(x), current_call), x)};
}

RandAugment::RandAugment(RandAugmentOptions options) : Layer(std::make_shared<RandAugmentImpl>(std::move(options))) {}

namespace {
const bool rand_augment_registered =
    register_keras_class(describe_layer<RandAugment>("RandAugment", &RandAugmentImpl::options));
}  // namespace

}  // namespace strata::layers
