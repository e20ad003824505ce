// Resizing: resizes images to (height, width) as Keras does (TF's resize, half-pixel
// centers; with antialias, TF's ScaleAndTranslate widening a shrink's kernel), optionally cropping or padding to the target aspect ratio first.
// Input (batch, rows, cols, channels), or channels first with data_format.
#pragma once

#include <string>

#include "layers/preprocessing/image_resize.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct ResizingOptions {  // Keras signature order (after height, width)
  std::string interpolation = "bilinear";  // or nearest, bicubic, area, lanczos3, lanczos5
  bool crop_to_aspect_ratio = false;
  bool pad_to_aspect_ratio = false;
  std::string fill_mode = "constant";  // the only mode Keras has
  double fill_value = 0.0;
  bool antialias = false;  // bilinear, bicubic, lanczos3/5: a shrink low-pass filtered, as TF's
  std::string data_format;  // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = ResizingOptions;
    return std::tuple{keras_field("interpolation", &O::interpolation),
                      keras_field("crop_to_aspect_ratio", &O::crop_to_aspect_ratio),
                      keras_field("pad_to_aspect_ratio", &O::pad_to_aspect_ratio),
                      keras_field("fill_mode", &O::fill_mode),
                      keras_field("fill_value", &O::fill_value),
                      keras_field("antialias", &O::antialias),
                      keras_field("data_format", &O::data_format, Spelling::data_format)};
  }
};

class ResizingImpl : public LayerImpl {
 public:
  ResizingImpl(std::int64_t height, std::int64_t width, ResizingOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t height, width;
  ResizingOptions options;

 private:
  std::int64_t pad_rows_ = 0, pad_cols_ = 0;  // each side, pad_to_aspect_ratio
  ResizeMatrices matrices_;  // for a known height and width
  bool at_run_ = false;      // a None one: the matrices are made when the program runs
};

class Resizing : public Layer {
 public:
  Resizing(std::int64_t height, std::int64_t width, ResizingOptions options = {});
};

// (rows, cols) of a 4-D image input in `data_format`; ShapeError unless both are known.
std::pair<std::int64_t, std::int64_t> image_size(const Shape& input, const std::string& data_format,
                                                 const std::string& layer);
// Whether a 4-D image input in `data_format` has a None row or column count (ShapeError,
// naming `layer`, for another rank).
bool has_unknown_image_size(const Shape& input, const std::string& data_format, const std::string& layer);

}  // namespace strata::layers
