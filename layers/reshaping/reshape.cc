#include "layers/reshaping/reshape.h"

#include "core/error.h"
#include "layers/keras_class.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

ReshapeImpl::ReshapeImpl(Shape target, ReshapeOptions options)
    : LayerImpl("Reshape", options.name), target_shape(std::move(target)), options(options) {
  int inferred = 0;
  for (auto d : target_shape.dims()) {
    if (d < -1) throw ValueError("Reshape: invalid dimension in target_shape " + target_shape.to_string());
    inferred += d == -1;
  }
  if (inferred > 1) throw ValueError("Reshape: target_shape " + target_shape.to_string() + " may hold only one -1");
}

std::vector<Output> ReshapeImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Shape& s = inputs[0].shape();
  const std::int64_t features = s.product(1, s.rank());  // kUnknownDim when not all known
  std::int64_t known = 1;
  bool has_inferred = false;
  for (auto d : target_shape.dims()) {
    if (d == -1) {
      has_inferred = true;
    } else {
      known *= d;
    }
  }
  std::vector<std::int64_t> full{-1};
  full.insert(full.end(), target_shape.dims().begin(), target_shape.dims().end());
  if (features == kUnknownDim) {
    // A None dim besides the batch: the batch is kept as fed and a -1 is worked out when
    // the program runs (where the sizes must then divide), as Keras does.
    full[0] = ops::dim_from(0);
    return {ops::reshape(inputs[0], full, {})};
  }
  bool fits = has_inferred ? known != 0 && features % known == 0 : features == known;
  if (!fits) {
    throw ShapeError("total size of the new array must be unchanged: input " + s.to_string() + ", target_shape " +
                     target_shape.to_string());
  }
  for (std::size_t i = 1; i < full.size(); ++i) {  // full[0] is the batch
    if (full[i] == -1) full[i] = features / known;
  }
  return {ops::reshape(inputs[0], full)};
}

Reshape::Reshape(Shape target_shape, ReshapeOptions options)
    : Layer(std::make_shared<ReshapeImpl>(std::move(target_shape), std::move(options))) {}

namespace {
const bool reshape_registered = register_keras_class(describe_layer<Reshape>(
    "Reshape", &ReshapeImpl::options,
    keras_field("target_shape", &ReshapeImpl::target_shape, Spelling::dims)));
}  // namespace

}  // namespace strata::layers
