#include "layers/preprocessing/mix_up.h"

#include <sstream>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/preprocessing/augmentation.h"

namespace strata::layers {

MixUpImpl::MixUpImpl(MixUpOptions o)
    : LayerImpl("MixUp", o.name), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  if (!(options.alpha > 0.0)) {
    std::ostringstream value;
    value << options.alpha;
    throw ValueError("MixUp '" + name + "': 'alpha' must be above 0 (Beta(alpha, alpha) needs it), got " +
                     value.str());
  }
  is_channels_first(options.data_format);  // validates
}

Output MixUpImpl::transform(Output images, Output weights, Output order) const {
  const Output w = ops::reshape(weights, {-1, 1, 1, 1});
  return ops::add(ops::mul(w, images), ops::mul(ops::sub(1.0f, w), take_images(images, order)));
}

std::vector<Output> MixUpImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  expect_image_batch(x, "MixUp '" + name + "'");
  // Column 0 orders the batch; the rest draw the weights.
  const Output u = ops::random_uniform_rows(x, 1 + kBetaColumns, true, seed, static_cast<std::uint64_t>(current_call));
  const Output shuffle = draw_column(u, 0);
  const Output beta_uniforms = ops::crop(u, {0, 1}, {0, 0});
  const Output weights = beta_draws(beta_uniforms, ops::fill_like(shuffle, static_cast<float>(options.alpha)));
  return {ops::training_select(transform(x, weights, shuffled_order(shuffle)), x)};
}

MixUp::MixUp(MixUpOptions options) : Layer(std::make_shared<MixUpImpl>(std::move(options))) {}

namespace {
const bool mix_up_registered = register_keras_class(describe_layer<MixUp>("MixUp", &MixUpImpl::options));
}  // namespace

}  // namespace strata::layers
