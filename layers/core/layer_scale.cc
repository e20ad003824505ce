#include "layers/core/layer_scale.h"

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

LayerScaleImpl::LayerScaleImpl(double init_values_, std::int64_t projection_dim_, LayerScaleOptions options_)
    : LayerImpl("LayerScale", options_.name),
      init_values(init_values_),
      projection_dim(projection_dim_),
      options(std::move(options_)) {
  if (projection_dim <= 0) {
    throw ValueError("LayerScale '" + name + "': projection_dim must be positive, got " +
                     std::to_string(projection_dim));
  }
}

void LayerScaleImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& in = inputs[0].shape;
  if (in.rank() == 0 || in.dims().back() != projection_dim) {
    throw ShapeError("LayerScale '" + name + "' has projection_dim " + std::to_string(projection_dim) +
                     " but its input is " + in.to_string() + " (the last axis must match)");
  }
  // Keras creates it without a name: its path is "<layer>/variable".
  gamma = add_weight("variable", Shape{projection_dim}, initializers::Constant(init_values));
}

std::vector<Output> LayerScaleImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return {ops::mul(inputs[0], graph.variable(gamma))};
}

LayerScale::LayerScale(double init_values, std::int64_t projection_dim, LayerScaleOptions options)
    : Layer(std::make_shared<LayerScaleImpl>(init_values, projection_dim, std::move(options))) {}

namespace {
const bool layer_scale_registered = [] {
  KerasClass k = describe_layer<LayerScale>("LayerScale", &LayerScaleImpl::options,
                                            keras_field("init_values", &LayerScaleImpl::init_values),
                                            keras_field("projection_dim", &LayerScaleImpl::projection_dim));
  k.module = "keras.src.applications.convnext";
  return register_keras_class(std::move(k));
}();
}  // namespace

}  // namespace strata::layers
