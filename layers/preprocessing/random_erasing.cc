#include "layers/preprocessing/random_erasing.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/ops/scan_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"
#include "layers/preprocessing/color_space.h"

namespace strata::layers {

RandomErasingImpl::RandomErasingImpl(RandomErasingOptions o)
    : LayerImpl("RandomErasing", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const std::string where = "RandomErasing '" + name + "'";
  const FactorRange factor = base_factor(where, options.factor, 0.0, 1.0);
  factor_lower_ = factor.lower;
  factor_upper_ = factor.upper;
  options.factor = PerChannel{factor.lower, factor.upper};
  const FactorRange scale = base_factor(where + " ('scale')", options.scale, 0.0, 1.0);
  scale_lower_ = scale.lower;
  scale_upper_ = scale.upper;
  options.scale = PerChannel{scale.lower, scale.upper};
  check_value_range(where, options.value_range);
  if (options.fill_value && options.fill_value->values.size() != 1) {
    if (options.fill_value->values.size() != 3) {
      throw ValueError(where + ": 'fill_value' must be a number or a list of three numbers, got a list of " +
                       std::to_string(options.fill_value->values.size()));
    }
    if (is_channels_first(options.data_format)) {
      throw ValueError(where + ": 'fill_value' of three numbers with 'data_format' = 'channels_first' is not "
                       "supported: Keras lays the three along the last axis, the images' width");
    }
  }
  is_channels_first(options.data_format);  // validates
}

Output RandomErasingImpl::transform(Output images, Output corners, Output apply, Output fill) const {
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  // Each pixel's row and column, from running sums of ones over one channel.
  const Output ones = ops::ones_like(image_channel(images, options.data_format, 0));
  const Output row = ops::sub(ops::cumsum(ones, height_axis), 1.0f);
  const Output column = ops::sub(ops::cumsum(ones, width_axis), 1.0f);
  const auto corner = [&](std::int64_t i) { return ops::reshape(draw_column(corners, i), {-1, 1, 1, 1}); };
  // Comparisons are 0 / 1: their product is "all of them".
  const Output inside = ops::mul(ops::mul(ops::greater_equal(column, corner(0)), ops::less(column, corner(1))),
                                 ops::mul(ops::greater_equal(row, corner(2)), ops::less(row, corner(3))));
  const Output clipped = ops::clip(ops::broadcast_like(fill, images), static_cast<float>(options.value_range.values[0]),
                                   static_cast<float>(options.value_range.values[1]));
  return ops::where(ops::mul(inside, apply), clipped, images);
}

std::vector<Output> RandomErasingImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomErasing '" + name + "'");
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  const std::int64_t height = x.shape().dims()[static_cast<std::size_t>(height_axis)];
  const std::int64_t width = x.shape().dims()[static_cast<std::size_t>(width_axis)];
  if (height < 0 || width < 0) {
    throw ShapeError("RandomErasing '" + name + "': needs the images' height and width, got shape " +
                     x.shape().to_string());
  }
  const auto stream = static_cast<std::uint64_t>(current_call);
  // Columns: the box's width and height scales, its x and y starts, the probability and
  // the draw compared with it.
  const Output u = ops::random_uniform_rows(x, 6, true, seed, stream);
  const auto bounds = [&](std::int64_t scale_column, std::int64_t start_column, std::int64_t length) {
    const Output size = ops::mul(ops::sqrt(uniform_between(draw_column(u, scale_column), scale_lower_, scale_upper_)),
                                 static_cast<float>(length));
    const Output start = ops::mul(draw_column(u, start_column), ops::sub(static_cast<float>(length), size));
    return std::pair{start, ops::add(start, size)};
  };
  const auto [x0, x1] = bounds(0, 2, width);
  const auto [y0, y1] = bounds(1, 3, height);
  const Output corners = ops::concat({x0, x1, y0, y1}, 1);
  const Output apply = ops::reshape(
      ops::less(draw_column(u, 5), uniform_between(draw_column(u, 4), factor_lower_, factor_upper_)), {-1, 1, 1, 1});
  Output fill;
  if (!options.fill_value) {
    fill = ops::mul(ops::random_normal_like(x, seed, stream + (std::uint64_t{1} << 32)),
                    static_cast<float>(options.value_range.values[1]));
  } else if (options.fill_value->single()) {
    fill = ops::fill_like(x, static_cast<float>(options.fill_value->values[0]));
  } else {  // three values along the last axis (channels last)
    std::vector<Output> channels;
    for (std::int64_t c = 0; c < 3; ++c) {
      channels.push_back(ops::fill_like(image_channel(x, options.data_format, 0),
                                        static_cast<float>(options.fill_value->values[static_cast<std::size_t>(c)])));
    }
    fill = ops::concat(channels, 3);
  }
  return {ops::training_select(transform(x, corners, apply, fill), x)};
}

RandomErasing::RandomErasing(RandomErasingOptions options)
    : Layer(std::make_shared<RandomErasingImpl>(std::move(options))) {}

namespace {
const bool random_erasing_registered =
    register_keras_class(describe_layer<RandomErasing>("RandomErasing", &RandomErasingImpl::options));
}  // namespace

}  // namespace strata::layers
