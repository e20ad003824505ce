#include "layers/reshape.h"

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

ReshapeImpl::ReshapeImpl(Shape target, ReshapeOptions options)
    : LayerImpl("Reshape", options.name), target_shape(std::move(target)) {}

std::vector<Output> ReshapeImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Shape& s = inputs[0].shape();
  std::int64_t features = s.product(1, s.rank());
  std::int64_t known = 1;
  int unknown = 0;
  for (auto d : target_shape.dims()) {
    if (d == -1) {
      ++unknown;
    } else {
      known *= d;
    }
  }
  if (unknown > 1) throw ValueError("target_shape " + target_shape.to_string() + " may hold only one -1");
  if (features != kUnknownDim && (unknown ? features % known != 0 : features != known)) {
    throw ShapeError("total size of the new array must be unchanged: input " + s.to_string() +
                     ", target_shape " + target_shape.to_string());
  }
  std::vector<std::int64_t> full{-1};
  for (auto d : target_shape.dims()) full.push_back(d == -1 ? features / known : d);
  return {ops::reshape(inputs[0], full)};
}

Reshape::Reshape(Shape target_shape, ReshapeOptions options)
    : Layer(std::make_shared<ReshapeImpl>(std::move(target_shape), std::move(options))) {}

}  // namespace strata::layers
