#include "layers/regularization/gaussian_noise.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"

namespace strata::layers {

GaussianNoiseImpl::GaussianNoiseImpl(double stddev_, GaussianNoiseOptions o)
    : LayerImpl("GaussianNoise", o.name), stddev(stddev_), seed(o.seed ? *o.seed : next_seed()), options(o) {
  supports_masking = true;  // as Keras's: it passes its input's mask on
  // Keras's own bound (a noise of more than one standard deviation is refused there too).
  if (!(stddev >= 0.0 && stddev <= 1.0)) {
    throw ValueError("GaussianNoise: stddev must be in [0, 1], got " + std::to_string(stddev));
  }
}

std::vector<Output> GaussianNoiseImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  if (stddev == 0.0) return {x};
  // The call's index keeps each call's draws its own, as Dropout's. The noise is drawn in
  // either mode; an inference program resolves the select to x and never draws it.
  const Output noise = ops::random_normal_like(x, seed, static_cast<std::uint64_t>(current_call));
  return {ops::training_select(ops::add(x, ops::mul(noise, static_cast<float>(stddev))), x)};
}

GaussianNoise::GaussianNoise(double stddev, GaussianNoiseOptions options)
    : Layer(std::make_shared<GaussianNoiseImpl>(stddev, std::move(options))) {}

namespace {
// A drawn seed is not written (Keras draws anew).
const bool gaussian_noise_registered = register_keras_class(describe_layer<GaussianNoise>(
    "GaussianNoise", &GaussianNoiseImpl::options, keras_field("stddev", &GaussianNoiseImpl::stddev)));
}  // namespace

}  // namespace strata::layers
