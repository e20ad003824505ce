#include "layers/merging/concatenate.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/keras_class.h"

namespace strata::layers {

ConcatenateImpl::ConcatenateImpl(int axis_, ConcatenateOptions o) : LayerImpl("Concatenate", o.name), axis(axis_), options(o) {}

std::vector<Output> ConcatenateImpl::call(Graph&, const std::vector<Output>& inputs) {
  if (inputs[0].shape().normalize_axis(axis) == 0) {
    throw ValueError("cannot concatenate along the batch axis");
  }
  return {ops::concat(inputs, axis)};
}

std::vector<Output> ConcatenateImpl::compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                                  const std::vector<Output>& masks) {
  if (std::none_of(masks.begin(), masks.end(), [](const Output& m) { return m.valid(); })) return {};
  std::vector<Output> full;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Output& x = inputs[i];
    Output m = i < masks.size() ? masks[i] : Output{};
    if (!m.valid()) {
      full.push_back(ops::ones_like(x));
      continue;
    }
    if (m.dtype() != DType::float32) m = ops::cast(m, DType::float32);
    m = ops::not_equal(m, ops::constant(graph, 0.f));  // Keras's masks are bool
    // logical_or(expand_dims(mask, -1), zeros_like(input)): the mask over the input's shape.
    if (m.shape().rank() < x.shape().rank()) m = ops::broadcast_like(ops::expand_dims(m, -1), x);
    full.push_back(m);
  }
  return {ops::reduce_max(ops::concat(full, axis), {-1}, false)};
}

Concatenate::Concatenate(int axis, ConcatenateOptions o) : Layer(std::make_shared<ConcatenateImpl>(axis, std::move(o))) {}

namespace {
const bool concatenate_registered = register_keras_class(
    describe_layer<Concatenate>("Concatenate", &ConcatenateImpl::options, keras_field("axis", &ConcatenateImpl::axis)));
}  // namespace

}  // namespace strata::layers
