#include "layers/preprocessing/random_grayscale.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

RandomGrayscaleImpl::RandomGrayscaleImpl(RandomGrayscaleOptions o)
    : LayerImpl("RandomGrayscale", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  if (!(options.factor >= 0.0 && options.factor <= 1.0)) {
    throw ValueError("RandomGrayscale '" + name + "': 'factor' must be in [0, 1], got " +
                     std::to_string(options.factor));
  }
  is_channels_first(options.data_format);  // validates
}

Output RandomGrayscaleImpl::transform(Output images, Output apply) const {
  const int axis = is_channels_first(options.data_format) ? 1 : 3;
  const std::int64_t channels = images.shape().dims()[static_cast<std::size_t>(axis)];
  if (channels == 1) return images;
  if (channels != 3) {
    throw ShapeError("RandomGrayscale '" + name + "': expects 1 or 3 channels, got shape " +
                     images.shape().to_string());
  }
  const auto channel = [&](std::int64_t c) {
    std::vector<std::int64_t> before(4, 0), after(4, 0);
    before[static_cast<std::size_t>(axis)] = c;
    after[static_cast<std::size_t>(axis)] = 2 - c;
    return ops::crop(images, before, after);
  };
  const Output grey = ops::add(ops::add(ops::mul(channel(0), 0.2989f), ops::mul(channel(1), 0.5870f)),
                               ops::mul(channel(2), 0.1140f));
  return ops::where(apply, ops::broadcast_like(grey, images), images);
}

std::vector<Output> RandomGrayscaleImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "RandomGrayscale '" + name + "'");
  const Output u = ops::random_uniform_rows(x, 1, true, seed, static_cast<std::uint64_t>(current_call));
  const Output apply = ops::reshape(ops::less(u, ops::fill_like(u, static_cast<float>(options.factor))), {-1, 1, 1, 1});
  return {ops::training_select(transform(x, apply), x)};
}

RandomGrayscale::RandomGrayscale(RandomGrayscaleOptions options)
    : Layer(std::make_shared<RandomGrayscaleImpl>(std::move(options))) {}

namespace {
const bool random_grayscale_registered =
    register_keras_class(describe_layer<RandomGrayscale>("RandomGrayscale", &RandomGrayscaleImpl::options));
}  // namespace

}  // namespace strata::layers
