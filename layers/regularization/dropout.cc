#include "layers/regularization/dropout.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/rng.h"

namespace strata::layers {

DropoutImpl::DropoutImpl(double rate_, DropoutOptions options)
    : LayerImpl("Dropout", options.name), rate(rate_), seed(options.seed ? *options.seed : next_seed()), options(options) {
  supports_masking = true;
  if (rate < 0.0 || rate >= 1.0) throw ValueError("Dropout: rate must be in [0, 1), got " + std::to_string(rate));
}

std::vector<Output> DropoutImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output x = inputs[0];
  if (rate == 0.0) return {x};
  // The layer's seed and the call's index make each call's masks its own; the name must
  // not enter (a second model in the same process gets other default names but must
  // train identically).
  const auto stream = static_cast<std::uint64_t>(current_call);
  if (!options.noise_shape) return {ops::dropout(x, static_cast<float>(rate), seed, stream)};
  return {dropout_shared_along(x, noise_shared_axes(*options.noise_shape, x.shape()), static_cast<float>(rate), seed,
                               stream)};
}

std::vector<std::int64_t> noise_shared_axes(const Shape& noise, const Shape& in) {
  if (noise.rank() != in.rank()) {
    throw ShapeError("noise_shape " + noise.to_string() + " does not have the rank of the input " + in.to_string());
  }
  std::vector<std::int64_t> shared;
  for (std::size_t a = 0; a < static_cast<std::size_t>(in.rank()); ++a) {
    const std::int64_t n = noise.dims()[a], d = in.dims()[a];
    if (n == kUnknownDim || n == d) continue;
    if (n != 1) {
      throw ShapeError("noise_shape " + noise.to_string() + " does not fit the input " + in.to_string() +
                       ": each entry must be None, 1 or the input's size");
    }
    shared.push_back(static_cast<std::int64_t>(a));
  }
  return shared;
}

Output dropout_shared_along(Output x, const std::vector<std::int64_t>& shared_axes, float rate,
                            std::uint64_t seed, std::uint64_t stream) {
  // The mask: dropout of ones shaped like x with the shared axes 1, made from x's shape
  // alone. In inference the dropout op leaves them ones, and the rewrite for inference
  // drops the multiplication (core/inference_rewrite.h).
  const Output ones = ops::fill_like(x, 1.0f, shared_axes);
  return ops::mul(x, ops::dropout(ones, rate, seed, stream));
}

Dropout::Dropout(double rate, DropoutOptions options) : Layer(std::make_shared<DropoutImpl>(rate, std::move(options))) {}

namespace {
// A drawn seed is not written (Keras draws anew).
const bool dropout_registered = register_keras_class(
    describe_layer<Dropout>("Dropout", &DropoutImpl::options, keras_field("rate", &DropoutImpl::rate)));
}  // namespace

}  // namespace strata::layers
