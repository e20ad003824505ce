#include "layers/merge.h"

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

ElementwiseMergeImpl::ElementwiseMergeImpl(std::string class_name, Kind kind_, MergeOptions options)
    : LayerImpl(std::move(class_name), options.name), kind(kind_) {}

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

}  // namespace strata::layers
