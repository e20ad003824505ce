// RandomPerspective: in training, each image, with a probability drawn per image from
// factor's range, seen in perspective: its four corners (0, 0), (W - 1, 0), (0, H - 1),
// (W - 1, H - 1) moved each by its own coordinates times a draw from [-scale / 2, scale / 2],
// and the image resampled through the homography that takes the moved corners back to the
// corners (TensorFlow's projective transform, ops::image_affine_transform with its
// projective row; keras.ops.image.perspective_transform). The homography is solved in
// closed form (square to quadrilateral and back) where Keras solves the 8 x 8 system.
// Pixels from outside are fill_value (Keras's constant fill); interpolation bilinear or
// nearest. Identity in inference. Seeded and resumable as Dropout (ops::random_uniform_rows).
// No gradient flows back through the resampling (ops::image_affine_transform).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomPerspectiveOptions {  // Keras signature order
  PerChannel factor = 1.0;  // in [0, 1]; Keras keeps and writes the [lower, upper] pair
  double scale = 1.0;       // in [0, 1]
  std::string interpolation = "bilinear";
  double fill_value = 0.0;
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string data_format;            // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("factor", &RandomPerspectiveOptions::factor),
                      keras_field("scale", &RandomPerspectiveOptions::scale),
                      keras_field("interpolation", &RandomPerspectiveOptions::interpolation),
                      keras_field("fill_value", &RandomPerspectiveOptions::fill_value),
                      keras_field("seed", &RandomPerspectiveOptions::seed),
                      keras_field("data_format", &RandomPerspectiveOptions::data_format, Spelling::data_format)};
  }
};

class RandomPerspectiveImpl : public LayerImpl {
 public:
  explicit RandomPerspectiveImpl(RandomPerspectiveOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `factors` (batch, 8), each
  // image's perspective_factor (corner by corner, x then y), and `apply` (batch, 1), 1
  // where the image is transformed (Keras's apply_perspective).
  Output transform(Output images, Output factors, Output apply) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandomPerspectiveOptions options;
};

class RandomPerspective : public Layer {
 public:
  explicit RandomPerspective(RandomPerspectiveOptions options = {});
};

}  // namespace strata::layers
