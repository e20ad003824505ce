#include "layers/pooling/global_pooling.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

GlobalPoolingImpl::GlobalPoolingImpl(std::string class_name, bool max_, int spatial_rank_, GlobalPoolingOptions o)
    : LayerImpl(std::move(class_name), o.name), max(max_), spatial_rank(spatial_rank_), options(std::move(o)) {
  is_channels_first(options.data_format);
}

std::vector<std::string> GlobalPoolingImpl::call_argument_names() const {
  return takes_mask() ? std::vector<std::string>{"mask"} : std::vector<std::string>{};
}

std::vector<TensorArgument> GlobalPoolingImpl::tensor_arguments() const {
  return takes_mask() ? std::vector<TensorArgument>{{"mask", "mask", -1}} : std::vector<TensorArgument>{};
}

std::vector<Output> GlobalPoolingImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  if (takes_mask()) return call_masked(graph, inputs, {});  // a mask may come with the call
  const Output& x = inputs[0];
  if (x.shape().rank() != spatial_rank + 2) {
    throw ShapeError("expects input of rank " + std::to_string(spatial_rank + 2) + ", got " + x.shape().to_string());
  }
  const std::int64_t first = is_channels_first(options.data_format) ? 2 : 1;
  std::vector<std::int64_t> axes;
  for (std::int64_t a = first; a < first + spatial_rank; ++a) axes.push_back(a);
  return {max ? ops::reduce_max(x, axes, options.keepdims) : ops::reduce_mean(x, axes, options.keepdims)};
}

// Keras: sum(x · mask) / sum(mask) over the steps, the mask (batch, steps) broadcast over
// the features. A sample whose every step is masked gives 0 / 0 = NaN, as in Keras.
std::vector<Output> GlobalPoolingImpl::call_masked(Graph& graph, const std::vector<Output>& all,
                                                   const std::vector<Output>& masks) {
  if (!takes_mask()) return call(graph, all);
  const CallInputs<Output> call = split_call_inputs(*this, current_arguments, all);
  const Output& x = call.inputs[0];
  if (x.shape().rank() != 3) throw ShapeError("expects input of rank 3, got " + x.shape().to_string());
  const bool channels_first = is_channels_first(options.data_format);
  const std::int64_t steps_axis = channels_first ? 2 : 1;
  const Output given = mask_argument_or_input_mask(call, masks);
  if (given.valid() && graph.precision() != ComputePrecision::float32) {
    throw NotImplementedError("a masked mean under dtype policy '" + dtype_policy +
                              "' (Keras's sums in the compute dtype) is not emulated yet (docs/precision.md)");
  }
  if (!given.valid()) return {ops::reduce_mean(x, {steps_axis}, options.keepdims)};
  Output mask = given.dtype() == x.dtype() ? given : ops::cast(given, x.dtype());
  mask = ops::expand_dims(mask, channels_first ? 1 : 2);
  return {ops::div(ops::reduce_sum(ops::mul(x, mask), {steps_axis}, options.keepdims),
                   ops::reduce_sum(mask, {steps_axis}, options.keepdims))};
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
const bool global_pooling_registered = [] {
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
