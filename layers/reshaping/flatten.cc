#include "layers/reshaping/flatten.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"

namespace strata::layers {

std::vector<Output> FlattenImpl::call(Graph&, const std::vector<Output>& inputs) {
  Output x = inputs[0];
  const Shape& s = x.shape();
  if (s.rank() < 1) throw ShapeError("expects input with a batch dimension, got " + s.to_string());
  if (is_channels_first(options.data_format) && s.rank() > 2) {  // Keras: channels last first
    std::vector<std::int64_t> perm{0};
    for (int a = 2; a < s.rank(); ++a) perm.push_back(a);
    perm.push_back(1);
    x = ops::transpose(x, perm);
  }
  std::int64_t features = s.product(1, s.rank());
  // With a None dim besides the batch the features are None too (as in Keras) and are
  // counted when the program runs.
  if (features == kUnknownDim) return {ops::reshape(x, {ops::dim_from(0), -1}, {})};
  return {ops::reshape(x, {-1, features})};
}

Flatten::Flatten(FlattenOptions options) : Layer(std::make_shared<FlattenImpl>(std::move(options))) {}

namespace {
const bool flatten_registered = register_keras_class(describe_layer<Flatten>("Flatten", &FlattenImpl::options));
}  // namespace

}  // namespace strata::layers
