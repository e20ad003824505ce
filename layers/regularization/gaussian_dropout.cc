#include "layers/regularization/gaussian_dropout.h"

#include <cmath>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/random_ops.h"
#include "core/rng.h"

namespace strata::layers {

GaussianDropoutImpl::GaussianDropoutImpl(double rate_, GaussianDropoutOptions o)
    : LayerImpl("GaussianDropout", o.name), rate(rate_), seed(o.seed ? *o.seed : next_seed()), options(o) {
  supports_masking = true;  // as Keras's: it passes its input's mask on
  // Keras accepts rate = 1 and then divides by zero in training; refused here, as Dropout's.
  if (!(rate >= 0.0 && rate < 1.0)) {
    throw ValueError("GaussianDropout: rate must be in [0, 1), got " + std::to_string(rate));
  }
}

std::vector<Output> GaussianDropoutImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  if (rate == 0.0) return {x};
  const auto stddev = static_cast<float>(std::sqrt(rate / (1.0 - rate)));
  // The call's index keeps each call's draws its own, as Dropout's. The noise is drawn in
  // either mode; an inference program resolves the select to x and never draws it.
  const Output noise = ops::random_normal_like(x, seed, static_cast<std::uint64_t>(current_call));
  return {ops::training_select(ops::mul(x, ops::add(ops::mul(noise, stddev), 1.f)), x)};
}

GaussianDropout::GaussianDropout(double rate, GaussianDropoutOptions options)
    : Layer(std::make_shared<GaussianDropoutImpl>(rate, std::move(options))) {}

namespace {
// A drawn seed is not written (Keras draws anew).
const bool gaussian_dropout_registered = register_keras_class(describe_layer<GaussianDropout>(
    "GaussianDropout", &GaussianDropoutImpl::options, keras_field("rate", &GaussianDropoutImpl::rate)));
}  // namespace

}  // namespace strata::layers
