#include "layers/preprocessing/augment_choices.h"

#include <algorithm>
#include <functional>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/rng.h"
#include "layers/preprocessing/auto_contrast.h"
#include "layers/preprocessing/equalization.h"
#include "layers/preprocessing/random_brightness.h"
#include "layers/preprocessing/random_color_degeneration.h"
#include "layers/preprocessing/random_contrast.h"
#include "layers/preprocessing/random_posterization.h"
#include "layers/preprocessing/random_rotation.h"
#include "layers/preprocessing/random_sharpness.h"
#include "layers/preprocessing/random_shear.h"
#include "layers/preprocessing/random_translation.h"
#include "layers/preprocessing/solarization.h"

namespace strata::layers {

namespace {

std::shared_ptr<LayerImpl> make_augment_choice(const AugmentChoicesSettings& s, const std::string& op,
                                               std::uint64_t seed) {
  const PerChannel f{s.factor.lower, s.factor.upper};
  const std::string name = s.name + "/" + op;
  if (op == "random_shear") {
    return std::make_shared<RandomShearImpl>(RandomShearOptions{.x_factor = f, .y_factor = f,
                                                                .interpolation = s.interpolation,
                                                                .data_format = s.data_format, .seed = seed,
                                                                .name = name});
  }
  if (op == "random_translation") {
    return std::make_shared<RandomTranslationImpl>(
        f, f, RandomTranslationOptions{.interpolation = s.interpolation, .seed = seed, .data_format = s.data_format,
                                       .name = name});
  }
  if (op == "random_rotation") {
    return std::make_shared<RandomRotationImpl>(
        f, RandomRotationOptions{.interpolation = s.interpolation, .seed = seed, .data_format = s.data_format,
                                 .name = name});
  }
  if (op == "random_brightness") {
    return std::make_shared<RandomBrightnessImpl>(
        f, RandomBrightnessOptions{.value_range = s.value_range, .seed = seed, .data_format = s.data_format,
                                   .name = name});
  }
  if (op == "random_color_degeneration") {
    return std::make_shared<RandomColorDegenerationImpl>(
        f, RandomColorDegenerationOptions{.value_range = s.value_range, .data_format = s.data_format, .seed = seed,
                                          .name = name});
  }
  if (op == "random_contrast") {
    return std::make_shared<RandomContrastImpl>(
        f, RandomContrastOptions{.value_range = s.value_range, .seed = seed, .data_format = s.data_format,
                                 .name = name});
  }
  if (op == "random_sharpness") {
    return std::make_shared<RandomSharpnessImpl>(
        f, RandomSharpnessOptions{.value_range = s.value_range, .data_format = s.data_format, .seed = seed,
                                  .name = name});
  }
  if (op == "solarization") {
    return std::make_shared<SolarizationImpl>(SolarizationOptions{.addition_factor = f, .threshold_factor = f,
                                                                  .value_range = s.value_range, .seed = seed,
                                                                  .data_format = s.data_format, .name = name});
  }
  if (op == "random_posterization") {
    // Keras: factor=max(1, int(8 * factor[1])), one number b, which RandomPosterization
    // reads as the range [1, b].
    const auto bits = std::max<std::int64_t>(1, static_cast<std::int64_t>(8.0 * s.factor.upper));
    return std::make_shared<RandomPosterizationImpl>(
        PosterizationBits(bits), RandomPosterizationOptions{.value_range = s.value_range,
                                                              .data_format = s.data_format, .seed = seed,
                                                              .name = name});
  }
  if (op == "auto_contrast") {
    return std::make_shared<AutoContrastImpl>(
        AutoContrastOptions{.value_range = s.value_range, .data_format = s.data_format, .name = name});
  }
  if (op == "equalization") {
    return std::make_shared<EqualizationImpl>(
        EqualizationOptions{.value_range = s.value_range, .data_format = s.data_format, .name = name});
  }
  throw ValueError(s.name + ": no augmentation operation '" + op + "'");
}

}  // namespace

AugmentChoices::AugmentChoices(const AugmentChoicesSettings& settings, const std::vector<std::string>& names)
    : names_(names) {
  for (std::size_t k = 0; k < names.size(); ++k) {
    ops_.push_back(make_augment_choice(settings, names[k], mix_seed(settings.seed, k + 1)));
  }
}

Output AugmentChoices::apply(std::size_t k, Output images, int stream) const {
  LayerImpl& op = *ops_.at(k);
  op.current_call = stream;  // the operation's draws key on it, as on a call's index
  Graph& graph = *images.graph;
  return op.call(graph, {images})[0];
}

Output apply_choice(const AugmentChoices& choices, Output images, Output choice,
                    const std::function<int(std::size_t k)>& stream_of) {
  const Output chosen = ops::reshape(choice, {1, 1, 1, 1});
  Output y = images;
  for (std::size_t k = 0; k < choices.size(); ++k) {
    const Output is_k = ops::equal(chosen, ops::fill_like(chosen, static_cast<float>(k)));
    y = ops::where(is_k, choices.apply(k, images, stream_of(k)), y);
  }
  return y;
}

Output index_draw(Output draws, std::int64_t column, std::int64_t count) {
  const Output u = draw_column(draws, column);
  return ops::minimum(ops::floor(ops::mul(u, static_cast<float>(count))), static_cast<float>(count - 1));
}

}  // namespace strata::layers
