#include "layers/reshaping/permute.h"

#include <algorithm>

#include "core/error.h"
#include "layers/keras_class.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

PermuteImpl::PermuteImpl(std::vector<std::int64_t> dims_, PermuteOptions o)
    : LayerImpl("Permute", o.name), dims(std::move(dims_)), options(o) {
  std::vector<std::int64_t> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] != static_cast<std::int64_t>(i) + 1) {
      throw ValueError("Permute: dims must be a permutation of 1..n, got " + Shape(dims).to_string());
    }
  }
}

std::vector<Output> PermuteImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  if (x.shape().rank() != static_cast<int>(dims.size()) + 1) {
    throw ShapeError("dims " + Shape(dims).to_string() + " do not match input of shape " + x.shape().to_string());
  }
  std::vector<std::int64_t> perm{0};
  perm.insert(perm.end(), dims.begin(), dims.end());
  return {ops::transpose(x, perm)};
}

Permute::Permute(std::vector<std::int64_t> dims, PermuteOptions o)
    : Layer(std::make_shared<PermuteImpl>(std::move(dims), std::move(o))) {}

namespace {
// dims: 1-based non-batch axes ([2, 1] swaps them).
const bool permute_registered = register_keras_class(describe_layer<Permute>(
    "Permute", &PermuteImpl::options, keras_field("dims", &PermuteImpl::dims).at_least(1)));
}  // namespace

}  // namespace strata::layers
