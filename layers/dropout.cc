#include "layers/dropout.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/rng.h"

namespace strata::layers {

DropoutImpl::DropoutImpl(double rate_, DropoutOptions options)
    : LayerImpl("Dropout", options.name), rate(rate_), seed(options.seed ? *options.seed : next_seed()), options(options) {
  if (rate < 0.0 || rate >= 1.0) throw ValueError("Dropout: rate must be in [0, 1), got " + std::to_string(rate));
}

std::vector<Output> DropoutImpl::call(Graph&, const std::vector<Output>& inputs) {
  if (rate == 0.0) return {inputs[0]};
  // The layer's seed and the call's index make each call's masks its own; the name must
  // not enter (a second model in the same process gets other default names but must
  // train identically).
  return {ops::dropout(inputs[0], static_cast<float>(rate), seed, static_cast<std::uint64_t>(current_call))};
}

Dropout::Dropout(double rate, DropoutOptions options) : Layer(std::make_shared<DropoutImpl>(rate, std::move(options))) {}

namespace {
// A drawn seed is not written (Keras draws anew); noise_shape is not supported.
const bool registered = register_keras_class(
    describe_layer<Dropout>("Dropout", &DropoutImpl::options, keras_field("rate", &DropoutImpl::rate))
        .refused({"noise_shape"}));
}  // namespace

}  // namespace strata::layers
