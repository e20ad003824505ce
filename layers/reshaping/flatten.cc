#include "layers/reshaping/flatten.h"

#include "core/error.h"
#include "core/ops.h"
#include "layers/keras_class.h"

namespace strata::layers {

std::vector<Output> FlattenImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Shape& s = inputs[0].shape();
  if (s.rank() < 1) throw ShapeError("expects input with a batch dimension, got " + s.to_string());
  std::int64_t features = s.product(1, s.rank());
  if (features == kUnknownDim) {
    throw ShapeError("all non-batch dimensions must be known to flatten, got " + s.to_string());
  }
  return {ops::reshape(inputs[0], {-1, features})};
}

Flatten::Flatten(FlattenOptions options) : Layer(std::make_shared<FlattenImpl>(std::move(options))) {}

namespace {
// Keras's data_format: only channels_last is meaningful here.
const bool registered = register_keras_class(
    describe_layer<Flatten>("Flatten", &FlattenImpl::options)
        .fixed({keras_refused("data_format", "\"channels_last\"").because("only channels_last")}));
}  // namespace

}  // namespace strata::layers
