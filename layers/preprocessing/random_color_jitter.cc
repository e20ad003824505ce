#include "layers/preprocessing/random_color_jitter.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomColorJitterImpl::RandomColorJitterImpl(RandomColorJitterOptions o)
    : LayerImpl("RandomColorJitter", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "RandomColorJitter '" + name + "'";
  check_value_range(where, options.value_range);
  if (is_channels_first(options.data_format)) {
    throw ValueError(where + ": 'data_format' = 'channels_first' is not supported: Keras 3.15 builds the layers it "
                     "chains without it, so they read the images as channels last");
  }
  // Keras's four layers as it builds them; a bad factor is refused naming this layer's key.
  const auto make = [&]<class Impl, class Options>(const std::optional<PerChannel>& factor, const char* key,
                                                   Options sub) -> std::shared_ptr<Impl> {
    if (!factor) return nullptr;
    sub.value_range = options.value_range;
    sub.seed = seed;
    sub.name = name + "/" + key;
    try {
      return std::make_shared<Impl>(*factor, std::move(sub));
    } catch (const ValueError& e) {
      throw ValueError(where + ": '" + key + "' is not one Keras accepts (" + e.what() + ")");
    }
  };
  brightness_ = make.operator()<RandomBrightnessImpl>(options.brightness_factor, "brightness_factor",
                                                      RandomBrightnessOptions{});
  contrast_ = make.operator()<RandomContrastImpl>(options.contrast_factor, "contrast_factor", RandomContrastOptions{});
  saturation_ = make.operator()<RandomSaturationImpl>(options.saturation_factor, "saturation_factor",
                                                      RandomSaturationOptions{});
  hue_ = make.operator()<RandomHueImpl>(options.hue_factor, "hue_factor", RandomHueOptions{});
}

Output RandomColorJitterImpl::transform(Output images, const ColorJitterParams& params) const {
  Output y = images;
  if (brightness_) y = brightness_->transform(y, params.brightness_delta);
  if (contrast_) y = contrast_->transform(y, params.contrast_factor);
  if (saturation_) y = saturation_->transform(y, params.saturation_scale);
  if (hue_) y = hue_->transform(y, params.hue_delta);
  return y;
}

std::vector<Output> RandomColorJitterImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomColorJitter '" + name + "'");
  if (!brightness_ && !contrast_ && !saturation_ && !hue_) return {x};
  // Columns: brightness, contrast, saturation, hue's sign and hue's factor.
  const Output u = ops::random_uniform_rows(x, 5, true, seed, static_cast<std::uint64_t>(current_call));
  ColorJitterParams params;
  if (brightness_) params.brightness_delta = brightness_->from_draws(draw_column(u, 0));
  if (contrast_) params.contrast_factor = contrast_->from_draws(draw_column(u, 1));
  if (saturation_) params.saturation_scale = saturation_->from_draws(draw_column(u, 2));
  if (hue_) params.hue_delta = hue_->from_draws(ops::crop(u, {0, 3}, {0, 0}));
  return {ops::training_select(transform(x, params), x)};
}

RandomColorJitter::RandomColorJitter(RandomColorJitterOptions options)
    : Layer(std::make_shared<RandomColorJitterImpl>(std::move(options))) {}

namespace {
const bool random_color_jitter_registered =
    register_keras_class(describe_layer<RandomColorJitter>("RandomColorJitter", &RandomColorJitterImpl::options));
}  // namespace

}  // namespace strata::layers
