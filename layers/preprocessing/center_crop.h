// CenterCrop: the centered (height, width) window of each image. When the image is
// smaller than the target in either dimension, Keras's smart_resize instead: the largest
// centered window with the target's aspect ratio, resized (bilinear) to the target.
#pragma once

#include <string>

#include "layers/preprocessing/image_resize.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct CenterCropOptions {  // Keras signature order (after height, width)
  std::string data_format;  // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &CenterCropOptions::data_format, Spelling::data_format)};
  }
};

class CenterCropImpl : public LayerImpl {
 public:
  CenterCropImpl(std::int64_t height, std::int64_t width, CenterCropOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t height, width;
  CenterCropOptions options;

 private:
  std::int64_t rows_ = 0, cols_ = 0;
  bool resize_ = false;
  ResizeMatrices matrices_;
};

class CenterCrop : public Layer {
 public:
  CenterCrop(std::int64_t height, std::int64_t width, CenterCropOptions options = {});
};

}  // namespace strata::layers
