#include "layers/global_pooling.h"

#include "core/error.h"
#include "core/ops.h"
#include "layers/conv_utils.h"

namespace strata::layers {

GlobalPoolingImpl::GlobalPoolingImpl(std::string class_name, bool max_, int spatial_rank_, GlobalPoolingOptions o)
    : LayerImpl(std::move(class_name), o.name), max(max_), spatial_rank(spatial_rank_), options(std::move(o)) {
  is_channels_first(options.data_format);
}

std::vector<Output> GlobalPoolingImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  if (x.shape().rank() != spatial_rank + 2) {
    throw ShapeError("expects input of rank " + std::to_string(spatial_rank + 2) + ", got " + x.shape().to_string());
  }
  const std::int64_t first = is_channels_first(options.data_format) ? 2 : 1;
  std::vector<std::int64_t> axes;
  for (std::int64_t a = first; a < first + spatial_rank; ++a) axes.push_back(a);
  return {max ? ops::reduce_max(x, axes, options.keepdims) : ops::reduce_mean(x, axes, options.keepdims)};
}

GlobalMaxPooling1D::GlobalMaxPooling1D(GlobalPoolingOptions o)
    : Layer(std::make_shared<GlobalPoolingImpl>("GlobalMaxPooling1D", true, 1, std::move(o))) {}
GlobalMaxPooling2D::GlobalMaxPooling2D(GlobalPoolingOptions o)
    : Layer(std::make_shared<GlobalPoolingImpl>("GlobalMaxPooling2D", true, 2, std::move(o))) {}
GlobalMaxPooling3D::GlobalMaxPooling3D(GlobalPoolingOptions o)
    : Layer(std::make_shared<GlobalPoolingImpl>("GlobalMaxPooling3D", true, 3, std::move(o))) {}
GlobalAveragePooling1D::GlobalAveragePooling1D(GlobalPoolingOptions o)
    : Layer(std::make_shared<GlobalPoolingImpl>("GlobalAveragePooling1D", false, 1, std::move(o))) {}
GlobalAveragePooling2D::GlobalAveragePooling2D(GlobalPoolingOptions o)
    : Layer(std::make_shared<GlobalPoolingImpl>("GlobalAveragePooling2D", false, 2, std::move(o))) {}
GlobalAveragePooling3D::GlobalAveragePooling3D(GlobalPoolingOptions o)
    : Layer(std::make_shared<GlobalPoolingImpl>("GlobalAveragePooling3D", false, 3, std::move(o))) {}

namespace {
const bool registered = [] {
  register_keras_class(describe_layer<GlobalMaxPooling1D>("GlobalMaxPooling1D", &GlobalPoolingImpl::options));
  register_keras_class(describe_layer<GlobalMaxPooling2D>("GlobalMaxPooling2D", &GlobalPoolingImpl::options));
  register_keras_class(describe_layer<GlobalMaxPooling3D>("GlobalMaxPooling3D", &GlobalPoolingImpl::options));
  register_keras_class(
      describe_layer<GlobalAveragePooling1D>("GlobalAveragePooling1D", &GlobalPoolingImpl::options));
  register_keras_class(
      describe_layer<GlobalAveragePooling2D>("GlobalAveragePooling2D", &GlobalPoolingImpl::options));
  register_keras_class(
      describe_layer<GlobalAveragePooling3D>("GlobalAveragePooling3D", &GlobalPoolingImpl::options));
  return true;
}();
}  // namespace

}  // namespace strata::layers
