#include "layers/preprocessing/resizing.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

std::pair<std::int64_t, std::int64_t> image_size(const Shape& in, const std::string& data_format,
                                                 const std::string& layer) {
  if (in.rank() != 4) {
    throw ShapeError(layer + " expects images (batch, rows, cols, channels), got " + in.to_string());
  }
  const bool first = is_channels_first(data_format);
  const std::int64_t rows = in.dims()[first ? 2 : 1], cols = in.dims()[first ? 3 : 2];
  if (rows == kUnknownDim || cols == kUnknownDim) {
    throw ShapeError(layer + " needs known image rows and columns, got " + in.to_string());
  }
  return {rows, cols};
}

bool has_unknown_image_size(const Shape& in, const std::string& data_format, const std::string& layer) {
  if (in.rank() != 4) {
    throw ShapeError(layer + " expects images (batch, rows, cols, channels), got " + in.to_string());
  }
  const bool first = is_channels_first(data_format);
  return in.dims()[first ? 2 : 1] == kUnknownDim || in.dims()[first ? 3 : 2] == kUnknownDim;
}

ResizingImpl::ResizingImpl(std::int64_t height_, std::int64_t width_, ResizingOptions options_)
    : LayerImpl("Resizing", options_.name), height(height_), width(width_), options(std::move(options_)) {
  const std::string where = "Resizing '" + name + "'";
  if (height <= 0 || width <= 0) {
    throw ValueError(where + ": height and width must be positive, got " + std::to_string(height) +
                     " x " + std::to_string(width));
  }
  if (options.crop_to_aspect_ratio && options.pad_to_aspect_ratio)
    throw ValueError(where + ": crop_to_aspect_ratio and pad_to_aspect_ratio are exclusive");
  check_resize_interpolation(where, options.interpolation);
  if (options.fill_mode != "constant")
    throw ValueError(where + ": fill_mode must be 'constant', got '" + options.fill_mode + "'");
  is_channels_first(options.data_format);  // validates
}

void ResizingImpl::build(const std::vector<TensorSpec>& inputs) {
  const std::string where = "Resizing '" + name + "'";
  at_run_ = has_unknown_image_size(inputs[0].shape, options.data_format, where);
  if (at_run_) return;
  auto [rows, cols] = image_size(inputs[0].shape, options.data_format, where);
  AxisWindow row_window{0, rows}, col_window{0, cols};
  if (options.crop_to_aspect_ratio) {
    std::tie(row_window, col_window) = aspect_ratio_crop(rows, cols, height, width);
  } else if (options.pad_to_aspect_ratio) {
    // Keras pads int(diff / 2) on both sides (an odd difference loses one).
    const std::int64_t want_rows = std::max(rows, static_cast<std::int64_t>(static_cast<double>(cols) * height / width));
    const std::int64_t want_cols = std::max(cols, static_cast<std::int64_t>(static_cast<double>(rows) * width / height));
    pad_rows_ = (want_rows - rows) / 2;
    pad_cols_ = (want_cols - cols) / 2;
    rows += 2 * pad_rows_;
    cols += 2 * pad_cols_;
    row_window = {0, rows};
    col_window = {0, cols};
  }
  matrices_ = resize_matrices("Resizing '" + name + "'", rows, cols, row_window, col_window, height,
                              width, options.interpolation, options.antialias);
}

std::vector<Output> ResizingImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool first = is_channels_first(options.data_format);
  Output x = first ? to_channels_last(inputs[0]) : inputs[0];
  if (pad_rows_ || pad_cols_) {
    const auto fill = static_cast<float>(options.fill_value);
    x = ops::add(ops::pad(ops::sub(x, fill), {0, pad_rows_, pad_cols_, 0}, {0, pad_rows_, pad_cols_, 0}), fill);
  }
  Output y = at_run_ ? resize_images_at_run(x, {.height = height, .width = width,
                                                .crop_to_aspect_ratio = options.crop_to_aspect_ratio,
                                                .pad_to_aspect_ratio = options.pad_to_aspect_ratio,
                                                .fill_value = options.fill_value,
                                                .interpolation = options.interpolation,
                                                .antialias = options.antialias})
                     : resize_images(graph, x, matrices_);
  return {first ? to_channels_first(y) : y};
}

Resizing::Resizing(std::int64_t height, std::int64_t width, ResizingOptions options)
    : Layer(std::make_shared<ResizingImpl>(height, width, std::move(options))) {}

namespace {
const bool resizing_registered = register_keras_class(describe_layer<Resizing>(
    "Resizing", &ResizingImpl::options, keras_field("height", &ResizingImpl::height),
    keras_field("width", &ResizingImpl::width)));
}  // namespace

}  // namespace strata::layers
