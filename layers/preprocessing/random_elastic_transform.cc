#include "layers/preprocessing/random_elastic_transform.h"

#include <algorithm>
#include <utility>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"
#include "layers/preprocessing/elastic_resample.h"

namespace strata::layers {

namespace {

// The per-batch distortion and the noise field come from their own streams, apart from
// the per-image draws.
constexpr std::uint64_t kDistortionStream = std::uint64_t{1} << 32;
constexpr std::uint64_t kNoiseStream = std::uint64_t{2} << 32;

}  // namespace

RandomElasticTransformImpl::RandomElasticTransformImpl(RandomElasticTransformOptions o)
    : LayerImpl("RandomElasticTransform", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "RandomElasticTransform '" + name + "'";
  const FactorRange factor = base_factor(where, options.factor, 0.0, 1.0);
  options.factor = PerChannel{factor.lower, factor.upper};
  FactorRange scale;
  try {
    scale = base_factor(where, options.scale, 0.0, 1.0);
  } catch (const ValueError& e) {  // read as Keras reads factor, and named as the key it is
    std::string what = e.what();
    what.replace(what.find("'factor'"), 8, "'scale'");
    throw ValueError(what);
  }
  options.scale = PerChannel{scale.lower, scale.upper};
  check_elastic_options({.interpolation = options.interpolation, .fill_mode = options.fill_mode, .where = where});
  check_value_range(where, options.value_range);
  is_channels_first(options.data_format);  // validates
}

Output RandomElasticTransformImpl::transform(Output images, Output noise, Output distortion, Output apply) const {
  const bool first = is_channels_first(options.data_format);
  const Output x = first ? to_channels_last(images) : images;
  const auto& dims = x.shape().dims();
  const std::int64_t height = dims[1], width = dims[2];
  if (height < 0 || width < 0 || dims[3] < 0) {
    throw ShapeError("RandomElasticTransform '" + name + "': needs the image's height, width and channels, got shape " +
                     images.shape().to_string());
  }
  const Output sigma = ops::mul(distortion, 0.05f * static_cast<float>(std::min(height, width)));
  const Output alpha = ops::mul(distortion, 0.1f * static_cast<float>(std::max(height, width)));
  const Output result =
      elastic_resample(x, noise, sigma, alpha,
                       {.interpolation = options.interpolation,
                        .fill_mode = options.fill_mode,
                        .fill_value = options.fill_value,
                        .largest_sigma = 0.05 * static_cast<double>(std::min(height, width)) * options.scale.values[1],
                        .where = "RandomElasticTransform '" + name + "'"});
  Output y = ops::where(ops::reshape(apply, {-1, 1, 1, 1}), result, x);
  y = ops::clip(y, static_cast<float>(options.value_range.values[0]), static_cast<float>(options.value_range.values[1]));
  return first ? to_channels_first(y) : y;
}

std::vector<Output> RandomElasticTransformImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomElasticTransform '" + name + "'");
  // Keras draws nothing, and changes nothing, when either range is [0, 0].
  if (options.factor.values[1] == 0.0 || options.scale.values[1] == 0.0) return {x};
  const auto call = static_cast<std::uint64_t>(current_call);
  const Output u = ops::random_uniform_rows(x, 2, true, seed, call);
  const Output p = uniform_between(draw_column(u, 0), options.factor.values[0], options.factor.values[1]);
  const Output apply = ops::less(draw_column(u, 1), p);
  const Output distortion = uniform_between(ops::random_uniform_rows(x, 1, false, seed, call + kDistortionStream),
                                            options.scale.values[0], options.scale.values[1]);
  // One value per pixel: the noise is drawn shaped like the images' first channel.
  const int channel_axis = is_channels_first(options.data_format) ? 1 : 3;
  const Output like = ops::reduce_max(x, {channel_axis});
  const Output noise = ops::random_normal_like(like, seed, call + kNoiseStream);
  return {ops::training_select(transform(x, noise, distortion, apply), x)};
}

RandomElasticTransform::RandomElasticTransform(RandomElasticTransformOptions options)
    : Layer(std::make_shared<RandomElasticTransformImpl>(std::move(options))) {}

namespace {
const bool random_elastic_transform_registered = register_keras_class(
    describe_layer<RandomElasticTransform>("RandomElasticTransform", &RandomElasticTransformImpl::options));
}  // namespace

}  // namespace strata::layers
