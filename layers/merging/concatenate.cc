#include "layers/merging/concatenate.h"

#include "core/error.h"
#include "layers/keras_class.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

ConcatenateImpl::ConcatenateImpl(int axis_, ConcatenateOptions o) : LayerImpl("Concatenate", o.name), axis(axis_), options(o) {}

std::vector<Output> ConcatenateImpl::call(Graph&, const std::vector<Output>& inputs) {
  if (inputs[0].shape().normalize_axis(axis) == 0) {
    throw ValueError("cannot concatenate along the batch axis");
  }
  return {ops::concat(inputs, axis)};
}

Concatenate::Concatenate(int axis, ConcatenateOptions o) : Layer(std::make_shared<ConcatenateImpl>(axis, std::move(o))) {}

namespace {
const bool concatenate_registered = register_keras_class(
    describe_layer<Concatenate>("Concatenate", &ConcatenateImpl::options, keras_field("axis", &ConcatenateImpl::axis)));
}  // namespace

}  // namespace strata::layers
