#include "layers/preprocessing/center_crop.h"

#include "core/error.h"
#include "core/ops/array_ops.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/resizing.h"

namespace strata::layers {

CenterCropImpl::CenterCropImpl(std::int64_t height_, std::int64_t width_, CenterCropOptions options_)
    : LayerImpl("CenterCrop", options_.name), height(height_), width(width_), options(std::move(options_)) {
  if (height <= 0 || width <= 0) {
    throw ValueError("CenterCrop '" + name + "': height and width must be positive, got " +
                     std::to_string(height) + " x " + std::to_string(width));
  }
  is_channels_first(options.data_format);  // validates
}

void CenterCropImpl::build(const std::vector<TensorSpec>& inputs) {
  std::tie(rows_, cols_) = image_size(inputs[0].shape, options.data_format, "CenterCrop '" + name + "'");
  resize_ = rows_ < height || cols_ < width;
  if (resize_) {
    auto [row_window, col_window] = aspect_ratio_crop(rows_, cols_, height, width);
    matrices_ = resize_matrices("CenterCrop '" + name + "'", rows_, cols_, row_window, col_window,
                                height, width, "bilinear");
  }
}

std::vector<Output> CenterCropImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool first = is_channels_first(options.data_format);
  Output x = first ? to_channels_last(inputs[0]) : inputs[0];
  Output y;
  if (resize_) {
    y = resize_images(graph, x, matrices_);
  } else {
    const std::int64_t top = (rows_ - height) / 2, left = (cols_ - width) / 2;
    y = ops::crop(x, {0, top, left, 0}, {0, rows_ - height - top, cols_ - width - left, 0});
  }
  return {first ? to_channels_first(y) : y};
}

CenterCrop::CenterCrop(std::int64_t height, std::int64_t width, CenterCropOptions options)
    : Layer(std::make_shared<CenterCropImpl>(height, width, std::move(options))) {}

namespace {
const bool center_crop_registered = register_keras_class(describe_layer<CenterCrop>(
    "CenterCrop", &CenterCropImpl::options, keras_field("height", &CenterCropImpl::height),
    keras_field("width", &CenterCropImpl::width)));
}  // namespace

}  // namespace strata::layers
