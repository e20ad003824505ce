// RandomCrop: in training, on images larger than (height, width) in both axes, one window
// of that size at an offset drawn uniformly for the whole batch (as Keras: every image of
// a batch is cropped alike). Otherwise (inference, or an image not larger in both axes)
// Keras's deterministic window: it starts where the largest centred window of the
// target's aspect ratio starts, takes (height, width) pixels from there (fewer where the
// image ends) and resizes them (bilinear) to (height, width) when fewer.
//
// Keras 3.15 documents that window for inference but returns its input unchanged there
// (not of the shape it declares for the layer's output); a graph has one output shape,
// so Strata gives the documented window (docs/layers.md). No gradient flows back through
// the training crop (ops::image_affine_transform).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/preprocessing/image_resize.h"

namespace strata::layers {

struct RandomCropOptions {  // Keras signature order (after height, width)
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string data_format;            // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("seed", &RandomCropOptions::seed),
                      keras_field("data_format", &RandomCropOptions::data_format, Spelling::data_format)};
  }
};

class RandomCropImpl : public LayerImpl {
 public:
  RandomCropImpl(std::int64_t height, std::int64_t width, RandomCropOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training crop with Keras's parameters given: `starts` (1, 2), [h_start, w_start].
  Output transform(Output images, Output starts) const;
  // Keras's deterministic window (inference; training on an image not larger than it).
  Output centre_window(Graph& graph, Output images) const;

  std::int64_t height, width;
  std::uint64_t seed;  // options.seed, or drawn
  RandomCropOptions options;

 private:
  std::int64_t rows_ = 0, cols_ = 0;
  AxisWindow row_window_, col_window_;  // the deterministic window's part of the image
  bool resize_ = false;
  ResizeMatrices matrices_;
};

class RandomCrop : public Layer {
 public:
  RandomCrop(std::int64_t height, std::int64_t width, RandomCropOptions options = {});
};

}  // namespace strata::layers
