#include "layers/regularization/alpha_dropout.h"

#include <cmath>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/rng.h"
#include "layers/regularization/dropout.h"

namespace strata::layers {

namespace {
// SELU's constants, as Keras writes them.
constexpr double kAlpha = 1.6732632423543772848170429916717;
constexpr double kScale = 1.0507009873554804934193349852946;
}  // namespace

AlphaDropoutImpl::AlphaDropoutImpl(double rate_, AlphaDropoutOptions o)
    : LayerImpl("AlphaDropout", o.name), rate(rate_), seed(o.seed ? *o.seed : next_seed()), options(std::move(o)) {
  supports_masking = true;  // as Keras's: it passes its input's mask on
  // Keras accepts rate = 1 and then scales by an infinite a in training; refused here, as Dropout's.
  if (!(rate >= 0.0 && rate < 1.0)) {
    throw ValueError("AlphaDropout: rate must be in [0, 1), got " + std::to_string(rate));
  }
}

std::vector<Output> AlphaDropoutImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  if (rate == 0.0) return {x};
  const std::vector<std::int64_t> shared =
      options.noise_shape ? noise_shared_axes(*options.noise_shape, x.shape()) : std::vector<std::int64_t>{};
  // kept = 1[u >= rate], Keras's draw: a dropout of ones keeps 1 / (1 - rate) there, and
  // its sign is exactly 1 (times 1 - rate it may round to 0.99999994).
  const auto r = static_cast<float>(rate);
  const Output ones = ops::fill_like(x, 1.0f, shared);
  const Output kept = ops::sign(ops::dropout(ones, r, seed, static_cast<std::uint64_t>(current_call)));
  const double alpha_p = -kAlpha * kScale;
  const double a = std::pow((1.0 - rate) * (1.0 + rate * alpha_p * alpha_p), -0.5);
  const double b = -a * alpha_p * rate;
  // a·(x·kept + α'·(1 - kept)) + b, the mask broadcast along the shared axes.
  const Output dropped = ops::add(ops::mul(x, kept), ops::mul(ops::sub(1.f, kept), static_cast<float>(alpha_p)));
  return {ops::training_select(ops::add(ops::mul(dropped, static_cast<float>(a)), static_cast<float>(b)), x)};
}

AlphaDropout::AlphaDropout(double rate, AlphaDropoutOptions options)
    : Layer(std::make_shared<AlphaDropoutImpl>(rate, std::move(options))) {}

namespace {
// A drawn seed is not written (Keras draws anew).
const bool alpha_dropout_registered = register_keras_class(describe_layer<AlphaDropout>(
    "AlphaDropout", &AlphaDropoutImpl::options, keras_field("rate", &AlphaDropoutImpl::rate)));
}  // namespace

}  // namespace strata::layers
