// RandomZoom: in training, each image scaled about its centre: the output pixel (x, y)
// reads the input at the centre plus (x, y) from it times a zoom drawn from
// 1 + height_factor (and 1 + width_factor; without one, the height's draw for both
// axes), so a positive factor zooms out and a negative one in, as Keras draws it. The
// pixels that come from outside filled by fill_mode, bilinear or nearest interpolation.
// Identity in inference. No gradient flows back through the zoom
// (ops::image_affine_transform).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomZoomOptions {  // Keras signature order (after height_factor)
  std::optional<PerChannel> width_factor;  // none: the height's zoom for both axes
  std::string fill_mode = "reflect";
  std::string interpolation = "bilinear";
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  double fill_value = 0.0;
  std::string data_format;  // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("width_factor", &RandomZoomOptions::width_factor, Spelling::bare_single),
                      keras_field("fill_mode", &RandomZoomOptions::fill_mode),
                      keras_field("interpolation", &RandomZoomOptions::interpolation),
                      keras_field("seed", &RandomZoomOptions::seed),
                      keras_field("fill_value", &RandomZoomOptions::fill_value),
                      keras_field("data_format", &RandomZoomOptions::data_format, Spelling::data_format)};
  }
};

class RandomZoomImpl : public LayerImpl {
 public:
  RandomZoomImpl(PerChannel height_factor, RandomZoomOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `zooms` (batch, 2), each row
  // [width zoom, height zoom] (transform_images's width_zoom and height_zoom).
  Output transform(Output images, Output zooms) const;

  PerChannel height_factor;
  std::uint64_t seed;  // options.seed, or drawn
  RandomZoomOptions options;

 private:
  double height_lower_ = 0.0, height_upper_ = 0.0, width_lower_ = 0.0, width_upper_ = 0.0;
};

class RandomZoom : public Layer {
 public:
  explicit RandomZoom(PerChannel height_factor, RandomZoomOptions options = {});
};

}  // namespace strata::layers
