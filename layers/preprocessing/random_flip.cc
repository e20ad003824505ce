#include "layers/preprocessing/random_flip.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/ops/scan_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomFlipImpl::RandomFlipImpl(RandomFlipOptions o)
    : LayerImpl("RandomFlip", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  if (options.mode != "horizontal" && options.mode != "vertical" && options.mode != "horizontal_and_vertical") {
    throw ValueError("RandomFlip '" + name + "': 'mode' must be 'horizontal', 'vertical' or "
                     "'horizontal_and_vertical', got '" + options.mode + "'");
  }
  is_channels_first(options.data_format);  // validates
}

Output RandomFlipImpl::transform(Output images, Output flips) const {
  const auto [height_axis, width_axis] = image_axes(options.data_format);
  Output y = images;
  if (options.mode != "vertical") y = ops::where(flips, ops::reverse(y, width_axis), y);
  if (options.mode != "horizontal") y = ops::where(flips, ops::reverse(y, height_axis), y);
  return y;
}

std::vector<Output> RandomFlipImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomFlip '" + name + "'");
  // Keras: flips = uniform(batch, 1, 1, 1) <= 0.5.
  const Output u = ops::random_uniform_rows(x, 1, true, seed, static_cast<std::uint64_t>(current_call));
  const Output flips = ops::reshape(ops::less_equal(u, ops::fill_like(u, 0.5f)), {-1, 1, 1, 1});
  return {ops::training_select(transform(x, flips), x)};
}

RandomFlip::RandomFlip(RandomFlipOptions options) : Layer(std::make_shared<RandomFlipImpl>(std::move(options))) {}

namespace {
// A drawn seed is not written (Keras draws anew).
const bool random_flip_registered =
    register_keras_class(describe_layer<RandomFlip>("RandomFlip", &RandomFlipImpl::options));
}  // namespace

}  // namespace strata::layers
