// RandomErasing: in training, a box of each image replaced by fill with probability p (p
// drawn per image from Keras's factor, bounds [0, 1]: a number f is [0, f], and compared
// with a second draw, as Keras). The box's width and height are sqrt(s) of the image's, s
// drawn for each from scale (bounds [0, 1]), its corner uniform where it fits; a pixel is
// inside where x0 <= column < x1 and y0 <= row < y1, over every channel. The fill is
// fill_value (a number, or three numbers along the last axis, as Keras fills them) or, when
// null, normal noise times value_range's upper end; clipped to value_range. Identity in
// inference. Gradients flow to the pixels kept.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomErasingOptions {  // Keras signature order
  PerChannel factor = 1.0;                // Keras keeps and writes the [lower, upper] pair
  PerChannel scale = {0.02, 0.33};        // Keras keeps and writes the [lower, upper] pair
  std::optional<PerChannel> fill_value;   // none: noise; a number, or three (channels last)
  PerChannel value_range = {0.0, 255.0};  // kept as given, as Keras
  std::optional<std::uint64_t> seed;      // default: drawn from the global seed generator
  std::string data_format;                // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("factor", &RandomErasingOptions::factor),
                      keras_field("scale", &RandomErasingOptions::scale),
                      keras_field("fill_value", &RandomErasingOptions::fill_value, Spelling::bare_single),
                      keras_field("value_range", &RandomErasingOptions::value_range),
                      keras_field("seed", &RandomErasingOptions::seed),
                      keras_field("data_format", &RandomErasingOptions::data_format, Spelling::data_format)};
  }
};

class RandomErasingImpl : public LayerImpl {
 public:
  explicit RandomErasingImpl(RandomErasingOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `corners` (batch, 4), each box's
  // x0, x1, y0, y1 in pixels; `apply` (batch, 1, 1, 1), 1 where the image is erased;
  // `fill`, the images' shape (or broadcast to it), before it is clipped to value_range.
  Output transform(Output images, Output corners, Output apply, Output fill) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandomErasingOptions options;

 private:
  double factor_lower_ = 0.0, factor_upper_ = 0.0, scale_lower_ = 0.0, scale_upper_ = 0.0;
};

class RandomErasing : public Layer {
 public:
  explicit RandomErasing(RandomErasingOptions options = {});
};

}  // namespace strata::layers
