// ContrastLimitedAdaptiveHistogramEqualization (Keras 3.15's CLAHE layer): each image's
// contrast equalized tile by tile, as Keras computes it: value_range mapped to [0, 255];
// per tile of a tile_grid_size grid (the image padded symmetrically to whole tiles) and
// channel a 256-bin histogram of the pixels' whole parts, its bins clipped at
// clip_limit · tile pixels / 256 with the excess spread over all bins (clip_limit > 0), its
// cumulative sum normalized to [0, 255]; each pixel the bilinear blend of the four nearest
// tiles' tables at its bin; mapped back to value_range. Deterministic, applied in training
// and inference alike, as Keras (ops::clahe_tables, ops::clahe_interpolate). No gradient
// flows back to the images: Keras reads them through an integer cast.
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct ContrastLimitedAdaptiveHistogramEqualizationOptions {  // Keras signature order
  PerChannel value_range = {0.0, 255.0};  // kept as given, as Keras
  double clip_limit = 4.0;                // none when <= 0
  IntPair tile_grid_size = {8, 8};        // (height, width), each at least 1
  std::string data_format;                // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = ContrastLimitedAdaptiveHistogramEqualizationOptions;
    return std::tuple{keras_field("value_range", &O::value_range), keras_field("clip_limit", &O::clip_limit),
                      keras_field("tile_grid_size", &O::tile_grid_size),
                      keras_field("data_format", &O::data_format, Spelling::data_format)};
  }
};

class ContrastLimitedAdaptiveHistogramEqualizationImpl : public LayerImpl {
 public:
  explicit ContrastLimitedAdaptiveHistogramEqualizationImpl(ContrastLimitedAdaptiveHistogramEqualizationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  ContrastLimitedAdaptiveHistogramEqualizationOptions options;
};

class ContrastLimitedAdaptiveHistogramEqualization : public Layer {
 public:
  explicit ContrastLimitedAdaptiveHistogramEqualization(ContrastLimitedAdaptiveHistogramEqualizationOptions options = {});
};

}  // namespace strata::layers
