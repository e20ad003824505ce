#include "layers/merging/merge.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/keras_class.h"

namespace strata::layers {

ElementwiseMergeImpl::ElementwiseMergeImpl(std::string class_name, Kind kind_, MergeOptions options)
    : LayerImpl(std::move(class_name), options.name), kind(kind_), options(options) {}

namespace {

// Keras's merge rule for inputs of different ranks: the batch axes line up, and each
// lower-rank input gets new axes of size 1 right after its batch axis until every input
// has the highest rank; only then do the inputs broadcast. Plain NumPy broadcasting from
// the right would line a rank-2 input's batch axis up with another input's time axis.
std::vector<Output> aligned_after_batch(const std::vector<Output>& inputs) {
  int rank = 0;
  std::int64_t batch = kUnknownDim;
  for (const Output& x : inputs) {
    const Shape& shape = x.spec().shape;
    rank = std::max(rank, shape.rank());
    if (shape.rank() == 0) throw ShapeError("a merge layer's inputs need a batch axis, got a scalar");
    const std::int64_t b = shape.dims()[0];
    if (b == kUnknownDim) continue;
    if (batch != kUnknownDim && b != batch)
      throw ShapeError("inputs have different batch sizes " + std::to_string(batch) + " and " + std::to_string(b));
    batch = b;
  }
  std::vector<Output> aligned;
  for (Output x : inputs) {
    for (int r = x.spec().shape.rank(); r < rank; ++r) x = ops::expand_dims(x, 1);
    aligned.push_back(x);
  }
  return aligned;
}

}  // namespace

std::vector<Output> ElementwiseMergeImpl::call(Graph&, const std::vector<Output>& raw_inputs) {
  const std::vector<Output> inputs = aligned_after_batch(raw_inputs);
  Output y = inputs[0];
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const Output& x = inputs[i];
    switch (kind) {
      case Kind::add:
      case Kind::average: y = ops::add(y, x); break;
      case Kind::subtract: y = ops::sub(y, x); break;
      case Kind::multiply: y = ops::mul(y, x); break;
      case Kind::maximum: y = ops::maximum(y, x); break;
      case Kind::minimum: y = ops::minimum(y, x); break;
    }
  }
  if (kind == Kind::average) y = ops::div(y, static_cast<float>(inputs.size()));
  return {y};
}

std::vector<Output> ElementwiseMergeImpl::compute_mask(Graph& graph, const std::vector<Output>&,
                                                       const std::vector<Output>& masks) {
  if (masks.empty() || std::any_of(masks.begin(), masks.end(), [](const Output& m) { return !m.valid(); })) return {};
  // ops.logical_or of Keras's bool masks; a mask of other values counts where nonzero.
  auto kept = [&](Output m) {
    if (m.dtype() != DType::float32) m = ops::cast(m, DType::float32);
    return ops::not_equal(m, ops::constant(graph, 0.f));
  };
  Output any = kept(masks[0]);
  for (std::size_t i = 1; i < masks.size(); ++i) any = ops::maximum(any, kept(masks[i]));
  return {any};
}

using K = ElementwiseMergeImpl::Kind;
Add::Add(MergeOptions o) : Layer(std::make_shared<ElementwiseMergeImpl>("Add", K::add, std::move(o))) {}
Subtract::Subtract(MergeOptions o)
    : Layer(std::make_shared<ElementwiseMergeImpl>("Subtract", K::subtract, std::move(o))) {}
Multiply::Multiply(MergeOptions o)
    : Layer(std::make_shared<ElementwiseMergeImpl>("Multiply", K::multiply, std::move(o))) {}
Average::Average(MergeOptions o) : Layer(std::make_shared<ElementwiseMergeImpl>("Average", K::average, std::move(o))) {}
Maximum::Maximum(MergeOptions o) : Layer(std::make_shared<ElementwiseMergeImpl>("Maximum", K::maximum, std::move(o))) {}
Minimum::Minimum(MergeOptions o) : Layer(std::make_shared<ElementwiseMergeImpl>("Minimum", K::minimum, std::move(o))) {}

namespace {
// No keys of their own (name, trainable, dtype only), in Keras 2 and 3 alike.
const bool merge_registered = [] {
  register_keras_class(describe_layer<Add>("Add", &ElementwiseMergeImpl::options));
  register_keras_class(describe_layer<Subtract>("Subtract", &ElementwiseMergeImpl::options));
  register_keras_class(describe_layer<Multiply>("Multiply", &ElementwiseMergeImpl::options));
  register_keras_class(describe_layer<Average>("Average", &ElementwiseMergeImpl::options));
  register_keras_class(describe_layer<Maximum>("Maximum", &ElementwiseMergeImpl::options));
  register_keras_class(describe_layer<Minimum>("Minimum", &ElementwiseMergeImpl::options));
  return true;
}();
}  // namespace

}  // namespace strata::layers
