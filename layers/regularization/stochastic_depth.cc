#include "layers/regularization/stochastic_depth.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/rng.h"
#include "layers/regularization/dropout.h"

namespace strata::layers {

StochasticDepthImpl::StochasticDepthImpl(double drop_path_rate_, StochasticDepthOptions options_)
    : LayerImpl("StochasticDepth", options_.name),
      drop_path_rate(drop_path_rate_),
      options(std::move(options_)),
      seed(next_seed()) {
  if (drop_path_rate < 0.0 || drop_path_rate >= 1.0) {
    throw ValueError("StochasticDepth '" + name + "': drop_path_rate must be in [0, 1), got " +
                     std::to_string(drop_path_rate));
  }
}

std::vector<Output> StochasticDepthImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output x = inputs[0];
  if (drop_path_rate == 0.0) return {ops::identity(x)};
  // One draw per sample: Dropout with every non-batch axis shared.
  std::vector<std::int64_t> non_batch;
  for (int a = 1; a < x.shape().rank(); ++a) non_batch.push_back(static_cast<std::int64_t>(a));
  return {dropout_shared_along(x, non_batch, static_cast<float>(drop_path_rate), seed,
                               static_cast<std::uint64_t>(current_call))};
}

StochasticDepth::StochasticDepth(double drop_path_rate, StochasticDepthOptions options)
    : Layer(std::make_shared<StochasticDepthImpl>(drop_path_rate, std::move(options))) {}

namespace {
const bool stochastic_depth_registered = [] {
  KerasClass k = describe_layer<StochasticDepth>(
      "StochasticDepth", &StochasticDepthImpl::options,
      keras_field("drop_path_rate", &StochasticDepthImpl::drop_path_rate));
  k.module = "keras.src.applications.convnext";
  return register_keras_class(std::move(k));
}();
}  // namespace

}  // namespace strata::layers
