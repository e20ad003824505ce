#include "layers/preprocessing/aug_mix.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

AugMixImpl::AugMixImpl(AugMixOptions o)
    : LayerImpl("AugMix", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "AugMix '" + name + "'";
  const FactorRange range = base_factor(where, options.factor, 0.0, 1.0);
  options.factor = PerChannel{range.lower, range.upper};
  check_increasing_value_range(where, options.value_range);
  if (options.num_chains < 1) {
    throw ValueError(where + ": 'num_chains' must be at least 1, got " + std::to_string(options.num_chains));
  }
  if (options.chain_depth < 0) {
    throw ValueError(where + ": 'chain_depth' must be at least 0, got " + std::to_string(options.chain_depth));
  }
  if (!(options.alpha > 0.0)) {
    throw ValueError(where + ": 'alpha' must be > 0 (Keras's Beta and Dirichlet draws), got " +
                     std::to_string(options.alpha));
  }
  check_fill(where, "reflect", options.interpolation);
  is_channels_first(options.data_format);  // validates
  // Keras's AUGMENT_LAYERS_ALL (AUGMENT_LAYERS: its first seven), in its order.
  std::vector<std::string> names{"random_shear", "random_translation", "random_rotation", "random_posterization",
                                 "solarization", "auto_contrast", "equalization"};
  if (options.all_ops) {
    for (const char* op : {"random_brightness", "random_color_degeneration", "random_contrast", "random_sharpness"}) {
      names.emplace_back(op);
    }
  }
  ops_ = std::make_unique<AugmentChoices>(
      AugmentChoicesSettings{.factor = range, .value_range = options.value_range,
                             .interpolation = options.interpolation, .data_format = options.data_format,
                             .seed = seed, .name = name},
      names);
}

AugMixDraws AugMixImpl::draws(Output images) const {
  const std::int64_t slots = options.num_chains * options.chain_depth;
  const std::int64_t gamma_first = slots, beta_first = slots + options.num_chains * kGammaColumns;
  const Output u = ops::random_uniform_rows(images, beta_first + kBetaColumns, false, seed,
                                            static_cast<std::uint64_t>(current_call));
  AugMixDraws d;
  std::vector<Output> choices, log_gammas;
  for (std::int64_t s = 0; s < slots; ++s) {
    choices.push_back(index_draw(u, s, static_cast<std::int64_t>(ops_->size()) + 1));
  }
  const Output alpha = ops::fill_like(draw_column(u, 0), static_cast<float>(options.alpha));
  for (std::int64_t c = 0; c < options.num_chains; ++c) {
    log_gammas.push_back(log_gamma_draws(u, gamma_first + c * kGammaColumns, alpha));
  }
  // Dirichlet(alpha): gammas over their sum, as a softmax of their logs.
  d.chain_weights = ops::softmax(ops::concat(log_gammas, 1), 1);
  d.choices = slots > 0 ? ops::concat(choices, 1) : Output{};
  d.weight = beta_draws(ops::crop(u, {0, beta_first}, {0, 0}), alpha);
  return d;
}

Output AugMixImpl::transform(Output images, const AugMixDraws& d, int call) const {
  const auto slots = static_cast<int>(options.num_chains * options.chain_depth);
  Output mixed;
  for (std::int64_t c = 0; c < options.num_chains; ++c) {
    Output chain = images;
    for (std::int64_t depth = 0; depth < options.chain_depth; ++depth) {
      const auto slot = static_cast<int>(c * options.chain_depth + depth);
      chain = apply_choice(*ops_, chain, draw_column(d.choices, slot),
                           [=](std::size_t) { return call * slots + slot; });
    }
    const Output weighted = ops::mul(chain, ops::reshape(draw_column(d.chain_weights, c), {1, 1, 1, 1}));
    mixed = c == 0 ? weighted : ops::add(mixed, weighted);
  }
  const Output w = ops::reshape(d.weight, {1, 1, 1, 1});
  const Output y = ops::add(ops::mul(w, images), ops::mul(ops::sub(1.0f, w), mixed));
  return ops::clip(y, static_cast<float>(options.value_range.values[0]),
                   static_cast<float>(options.value_range.values[1]));
}

std::vector<Output> AugMixImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "AugMix '" + name + "'");
  return {ops::training_select(transform(x, draws(x), current_call), x)};
}

AugMix::AugMix(AugMixOptions options) : Layer(std::make_shared<AugMixImpl>(std::move(options))) {}

namespace {
const bool aug_mix_registered = register_keras_class(describe_layer<AugMix>("AugMix", &AugMixImpl::options));
}  // namespace

}  // namespace strata::layers
