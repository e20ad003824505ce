#include "layers/preprocessing/cut_mix.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/ops/scan_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

namespace {

// Each element's position along `axis` (0, 1, ...), shaped like `images`.
Output cut_mix_positions(Output images, int axis) { return ops::sub(ops::cumsum(ops::ones_like(images), axis), 1.0f); }

// The per-batch draw (alpha) comes from its own stream, apart from the per-image draws.
constexpr std::uint64_t kBatchStream = std::uint64_t{1} << 32;

}  // namespace

CutMixImpl::CutMixImpl(CutMixOptions o)
    : LayerImpl("CutMix", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  const FactorRange range = base_factor("CutMix '" + name + "'", options.factor, 0.0, 1.0);
  options.factor = PerChannel{range.lower, range.upper};
  is_channels_first(options.data_format);  // validates
}

Output CutMixImpl::transform(Output images, Output boxes, Output order) const {
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  const auto corner = [&](std::int64_t k) { return ops::reshape(draw_column(boxes, k), {-1, 1, 1, 1}); };
  const Output x = cut_mix_positions(images, width_axis), y = cut_mix_positions(images, height_axis);
  const Output inside = ops::mul(ops::mul(ops::greater_equal(x, corner(0)), ops::less(x, corner(1))),
                                 ops::mul(ops::greater_equal(y, corner(2)), ops::less(y, corner(3))));
  return ops::where(inside, take_images(images, order), images);
}

std::vector<Output> CutMixImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& images = inputs[0];
  const std::string where = "CutMix '" + name + "'";
  expect_image_batch(images, where);
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  const std::int64_t height = images.shape().dims()[static_cast<std::size_t>(height_axis)];
  const std::int64_t width = images.shape().dims()[static_cast<std::size_t>(width_axis)];
  if (height < 0 || width < 0) {
    throw ShapeError(where + ": needs the image's height and width, got shape " + images.shape().to_string());
  }
  const auto call = static_cast<std::uint64_t>(current_call);
  const Output batch_u = ops::random_uniform_rows(images, 1, false, seed, call + kBatchStream);
  const Output alpha =
      ops::add(uniform_between(batch_u, options.factor.values[0], options.factor.values[1]), 1e-6f);
  // Per image: the weight's draws, then the box's x and y starts, then the order.
  const Output u = ops::random_uniform_rows(images, kBetaColumns + 3, true, seed, call);
  const Output w = beta_draws(ops::crop(u, {0, 0}, {0, 3}), alpha);
  const Output ratio = ops::sqrt(ops::sub(1.0f, w));
  const auto bounds = [&](std::int64_t column, std::int64_t length) {
    const Output crop = ops::mul(ratio, static_cast<float>(length));
    const Output start = ops::mul(draw_column(u, column), ops::sub(static_cast<float>(length), crop));
    return std::pair{start, ops::add(start, crop)};
  };
  const auto [x0, x1] = bounds(kBetaColumns, width);
  const auto [y0, y1] = bounds(kBetaColumns + 1, height);
  const Output boxes = ops::concat({x0, x1, y0, y1}, 1);
  const Output order = shuffled_order(draw_column(u, kBetaColumns + 2));
  return {ops::training_select(transform(images, boxes, order), images)};
}

CutMix::CutMix(CutMixOptions options) : Layer(std::make_shared<CutMixImpl>(std::move(options))) {}

namespace {
const bool cut_mix_registered = register_keras_class(describe_layer<CutMix>("CutMix", &CutMixImpl::options));
}  // namespace

}  // namespace strata::layers
