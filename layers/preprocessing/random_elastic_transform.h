// RandomElasticTransform: in training, each image, with a probability drawn per image from
// factor's range, resampled along a smooth random displacement field, then every image
// clipped to value_range, as Keras's RandomElasticTransform (keras.ops.image.
// elastic_transform): a distortion d drawn once per batch from scale's range gives
// sigma = 0.05 d min(H, W) and alpha = 0.1 d max(H, W); a standard normal field (one value
// per pixel) times sigma is blurred by a Gaussian of sigma over 6 int(sigma) + 1 taps
// (zero padding, TensorFlow's depthwise conv "SAME"), and the output pixel (x, y) reads
// the image at (x + alpha D, y + alpha D) with Keras's map_coordinates rule: bilinear or
// nearest (half to even), the neighbours outside filled by fill_mode (constant with
// fill_value, nearest, wrap, reflect). The same field D moves both axes, as in Keras 3.15
// (every backend draws x's and y's noise from the same seed). Built from existing ops: the
// blur as matrix products with a Gaussian band matrix, the sampling as a gather
// (ops::embedding_lookup) of the neighbours. Identity in inference, and in training when
// factor's or scale's upper bound is 0 (Keras draws nothing then). Seeded and resumable
// as Dropout (ops::random_uniform_rows, ops::random_normal_like). Gradients flow to the
// pixels sampled, not to the field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomElasticTransformOptions {  // Keras signature order
  PerChannel factor = 1.0;  // in [0, 1]; Keras keeps and writes the [lower, upper] pair
  PerChannel scale = 1.0;   // in [0, 1]; as factor
  std::string interpolation = "bilinear";
  std::string fill_mode = "reflect";
  double fill_value = 0.0;
  PerChannel value_range = {0.0, 255.0};
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string data_format;            // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("factor", &RandomElasticTransformOptions::factor),
                      keras_field("scale", &RandomElasticTransformOptions::scale),
                      keras_field("interpolation", &RandomElasticTransformOptions::interpolation),
                      keras_field("fill_mode", &RandomElasticTransformOptions::fill_mode),
                      keras_field("fill_value", &RandomElasticTransformOptions::fill_value),
                      keras_field("value_range", &RandomElasticTransformOptions::value_range),
                      keras_field("seed", &RandomElasticTransformOptions::seed),
                      keras_field("data_format", &RandomElasticTransformOptions::data_format, Spelling::data_format)};
  }
};

class RandomElasticTransformImpl : public LayerImpl {
 public:
  explicit RandomElasticTransformImpl(RandomElasticTransformOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `noise` (batch, height, width),
  // the standard normal field elastic_transform draws, `distortion` (1, 1), Keras's
  // distortion_factor, and `apply` (batch, 1), 1 where the image is transformed.
  Output transform(Output images, Output noise, Output distortion, Output apply) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandomElasticTransformOptions options;
};

class RandomElasticTransform : public Layer {
 public:
  explicit RandomElasticTransform(RandomElasticTransformOptions options = {});
};

}  // namespace strata::layers
