#include "layers/reshaping/flatten.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/keras_class.h"

namespace strata::layers {

std::vector<Output> FlattenImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Shape& s = inputs[0].shape();
  if (s.rank() < 1) throw ShapeError("expects input with a batch dimension, got " + s.to_string());
  std::int64_t features = s.product(1, s.rank());
  // With a None dim besides the batch the features are None too (as in Keras) and are
  // counted when the program runs.
  if (features == kUnknownDim) return {ops::reshape(inputs[0], {ops::dim_from(0), -1}, {})};
  return {ops::reshape(inputs[0], {-1, features})};
}

Flatten::Flatten(FlattenOptions options) : Layer(std::make_shared<FlattenImpl>(std::move(options))) {}

namespace {
// Keras's data_format: only channels_last is meaningful here.
const bool flatten_registered = register_keras_class(
    describe_layer<Flatten>("Flatten", &FlattenImpl::options)
        .fixed({keras_refused("data_format", "\"channels_last\"").because("only channels_last")}));
}  // namespace

}  // namespace strata::layers
