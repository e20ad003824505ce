#include "layers/merge.h"

#include "core/error.h"
#include "core/ops.h"
#include "layers/keras_class.h"

namespace strata::layers {

ElementwiseMergeImpl::ElementwiseMergeImpl(std::string class_name, Kind kind_, MergeOptions options)
    : LayerImpl(std::move(class_name), options.name), kind(kind_), options(options) {}

std::vector<Output> ElementwiseMergeImpl::call(Graph&, const std::vector<Output>& inputs) {
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
const bool registered = [] {
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
