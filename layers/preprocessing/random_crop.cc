#include "layers/preprocessing/random_crop.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/image_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"
#include "layers/preprocessing/resizing.h"

namespace strata::layers {

RandomCropImpl::RandomCropImpl(std::int64_t height_, std::int64_t width_, RandomCropOptions o)
    : LayerImpl("RandomCrop", o.name),
      height(height_),
      width(width_),
      seed(o.seed ? *o.seed : next_seed()),
      options(std::move(o)) {
  if (height <= 0 || width <= 0) {
    throw ValueError("RandomCrop '" + name + "': height and width must be positive, got " + std::to_string(height) +
                     " x " + std::to_string(width));
  }
  is_channels_first(options.data_format);  // validates
}

void RandomCropImpl::build(const std::vector<TensorSpec>& inputs) {
  std::tie(rows_, cols_) = image_size(inputs[0].shape, options.data_format, "RandomCrop '" + name + "'");
  // Keras's get_random_transformation without a draw: where the largest centred window of
  // the target's aspect ratio starts; transform_images then slices (height, width) pixels
  // from there, as many as the image holds, and resizes them when they are fewer.
  const std::int64_t crop_rows = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(static_cast<double>(cols_ * height) / static_cast<double>(width)), 1, rows_);
  const std::int64_t crop_cols = std::clamp<std::int64_t>(
      static_cast<std::int64_t>(static_cast<double>(rows_ * width) / static_cast<double>(height)), 1, cols_);
  const auto row_start = static_cast<std::int64_t>(static_cast<double>(rows_ - crop_rows) / 2.0);
  const auto col_start = static_cast<std::int64_t>(static_cast<double>(cols_ - crop_cols) / 2.0);
  row_window_ = {row_start, std::min(rows_, row_start + height) - row_start};
  col_window_ = {col_start, std::min(cols_, col_start + width) - col_start};
  resize_ = row_window_.size != height || col_window_.size != width;
  if (resize_) {
    matrices_ = resize_matrices("RandomCrop '" + name + "'", rows_, cols_, row_window_, col_window_, height, width,
                                "bilinear");
  }
}

Output RandomCropImpl::centre_window(Graph& graph, Output images) const {
  const bool first = is_channels_first(options.data_format);
  const Output x = first ? to_channels_last(images) : images;
  const Output y = resize_ ? resize_images(graph, x, matrices_)
                           : ops::crop(x, {0, row_window_.start, col_window_.start, 0},
                                       {0, rows_ - row_window_.start - height, cols_ - col_window_.start - width, 0});
  return first ? to_channels_first(y) : y;
}

Output RandomCropImpl::transform(Output images, Output starts) const {
  // The window as a shift by (w_start, h_start) sampled at whole pixels, into an output of
  // the window's size.
  const Output h_start = draw_column(starts, 0), w_start = draw_column(starts, 1);
  const Output zero = ops::zeros_like(h_start), one = ops::add(zero, 1.f);
  const Output rows = transform_rows({one, zero, w_start, zero, one, h_start, zero, zero});
  const bool first = is_channels_first(options.data_format);
  const Output y = ops::image_affine_transform(first ? to_channels_last(images) : images, rows,
                                               {.interpolation = "nearest",
                                                .fill_mode = "constant",
                                                .out_height = height,
                                                .out_width = width});
  return first ? to_channels_first(y) : y;
}

std::vector<Output> RandomCropImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  const Output fixed = centre_window(graph, x);
  if (!(rows_ > height && cols_ > width)) return {fixed};
  // Keras: h_start = int(uniform(0, rows - height + 1)), likewise w_start; one pair a batch.
  const Output u = ops::random_uniform_rows(x, 2, false, seed, static_cast<std::uint64_t>(current_call));
  const Output h_start = ops::floor(ops::mul(draw_column(u, 0), static_cast<float>(rows_ - height + 1)));
  const Output w_start = ops::floor(ops::mul(draw_column(u, 1), static_cast<float>(cols_ - width + 1)));
  return {ops::training_select(transform(x, ops::concat({h_start, w_start}, 1)), fixed)};
}

RandomCrop::RandomCrop(std::int64_t height, std::int64_t width, RandomCropOptions options)
    : Layer(std::make_shared<RandomCropImpl>(height, width, std::move(options))) {}

namespace {
const bool random_crop_registered = register_keras_class(describe_layer<RandomCrop>(
    "RandomCrop", &RandomCropImpl::options, keras_field("height", &RandomCropImpl::height),
    keras_field("width", &RandomCropImpl::width)));
}  // namespace

}  // namespace strata::layers
