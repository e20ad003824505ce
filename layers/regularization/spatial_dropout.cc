#include "layers/regularization/spatial_dropout.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/rng.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

SpatialDropoutImpl::SpatialDropoutImpl(std::string class_name, int spatial_rank_, double rate_,
                                       SpatialDropoutOptions o)
    : LayerImpl(class_name, o.name), spatial_rank(spatial_rank_), rate(rate_), data_format(o.data_format),
      seed(o.seed ? *o.seed : next_seed()), options(o) {
  supports_masking = true;  // Keras's SpatialDropout is its Dropout's subclass
  if (rate < 0.0 || rate >= 1.0) throw ValueError(class_name + ": rate must be in [0, 1), got " + std::to_string(rate));
  is_channels_first(data_format);
}

std::vector<Output> SpatialDropoutImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  if (x.shape().rank() != spatial_rank + 2) {
    throw ShapeError("expects input of rank " + std::to_string(spatial_rank + 2) + ", got " + x.shape().to_string());
  }
  if (rate == 0.0) return {x};
  const std::int64_t first = is_channels_first(data_format) ? 2 : 1;
  std::vector<std::int64_t> spatial;
  for (std::int64_t a = first; a < first + spatial_rank; ++a) spatial.push_back(a);
  // The mask has the noise shape (batch, 1, ..., channels): dropout of ones, broadcast.
  Output ones = ops::fill_like(x, 1.0f, spatial);
  return {ops::mul(x, ops::dropout(ones, static_cast<float>(rate), seed, /*stream=*/0))};
}

SpatialDropout1D::SpatialDropout1D(double rate, SpatialDropoutOptions o)
    : Layer(std::make_shared<SpatialDropoutImpl>("SpatialDropout1D", 1, rate, std::move(o))) {}
SpatialDropout2D::SpatialDropout2D(double rate, SpatialDropoutOptions o)
    : Layer(std::make_shared<SpatialDropoutImpl>("SpatialDropout2D", 2, rate, std::move(o))) {}
SpatialDropout3D::SpatialDropout3D(double rate, SpatialDropoutOptions o)
    : Layer(std::make_shared<SpatialDropoutImpl>("SpatialDropout3D", 3, rate, std::move(o))) {}

namespace {
SpatialDropoutOptions options_of(const SpatialDropoutImpl& l) { return l.options; }
// tf.keras also writes noise_shape (always null for these layers).
const bool spatial_dropout_registered = [] {
  register_keras_class(
      describe_layer<SpatialDropout1D>("SpatialDropout1D", options_of,
                                       std::tuple{keras_field("seed", &SpatialDropoutOptions::seed)},
                                       keras_field("rate", &SpatialDropoutImpl::rate))
          .fixed({keras_refused("noise_shape").unwritten()}));
  register_keras_class(describe_layer<SpatialDropout2D>("SpatialDropout2D", &SpatialDropoutImpl::options,
                                                        keras_field("rate", &SpatialDropoutImpl::rate))
                           .fixed({keras_refused("noise_shape").unwritten()}));
  register_keras_class(describe_layer<SpatialDropout3D>("SpatialDropout3D", &SpatialDropoutImpl::options,
                                                        keras_field("rate", &SpatialDropoutImpl::rate))
                           .fixed({keras_refused("noise_shape").unwritten()}));
  return true;
}();
}  // namespace

}  // namespace strata::layers
