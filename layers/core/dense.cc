#include "layers/core/dense.h"

#include "core/error.h"
#include "core/ops.h"
#include "layers/activations.h"
#include "layers/core/int8_quantization.h"
#include "layers/core/low_precision_product.h"

namespace strata::layers {

DenseImpl::DenseImpl(std::int64_t units_, DenseOptions options_)
    : LayerImpl("Dense", options_.name), units(units_), options(std::move(options_)) {
  supports_masking = true;  // as Keras's Dense: a mask of the time steps passes through
  if (units <= 0) throw ValueError("Dense: units must be positive, got " + std::to_string(units));
  activations::validate(options.activation);
  activity_regularizer = options.activity_regularizer;
}

void DenseImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() < 2) {
    throw ShapeError("expects input of rank >= 2 (batch, ..., features), got " + s.to_string());
  }
  std::int64_t in = s.dims().back();
  if (in == kUnknownDim) throw ShapeError("the last dimension of the input must be known, got " + s.to_string());
  if (const auto block = int4_block_of(quantization_mode)) {  // Keras's int4 build, in its order
    const AddFrozenWeight add = [this](const std::string& n, const Shape& s, const std::string& init) {
      return add_weight(n, s, init, false);
    };
    add_int4_kernel(add, int4, "kernel", in, units);
    if (options.use_bias) {
      bias = add_weight("bias", Shape{units}, options.bias_initializer,
                        {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
    }
    add_int4_groups(add, int4, "kernel", *block);
    return;
  }
  if (quantization_mode == "int8") {
    // Keras's int8 build: the kernel has neither regularizer nor constraint (it is not trained).
    kernel = add_weight("kernel", Shape{in, units}, "zeros", false);
    kernel.set_stored_as(Variable::Stored::int8);
  } else {
    kernel = add_weight("kernel", Shape{in, units}, options.kernel_initializer,
                        {.regularizer = options.kernel_regularizer, .constraint = options.kernel_constraint});
  }
  if (options.use_bias) {
    bias = add_weight("bias", Shape{units}, options.bias_initializer,
                      {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
  }
  if (quantization_mode == "int8") kernel_scale = add_weight("kernel_scale", Shape{units}, "ones", false);
  if (const auto history = float8_history_of(quantization_mode)) {
    add_float8_weights([this](const std::string& n, const Shape& s, const std::string& init) { return add_weight(n, s, init, false); },
                       float8, *history);
  }
}

std::vector<Output> DenseImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  std::int64_t expected = int4.packed.defined() ? int4.rows : kernel.shape()[0];
  if (x.shape().rank() < 2 || x.shape().dims().back() != expected) {
    throw ShapeError("expects input with last dimension " + std::to_string(expected) + ", got " +
                     x.shape().to_string());
  }
  if (quantization_mode == "int8") {
    // Keras's int8 product (the rows quantized, multiplied in int32, scaled back) in one op
    // with int8 kernels on each device, then the bias and activation after Keras's custom
    // gradient; inference programs take the bias and a relu into the op's own pass
    // (core/inference_rewrite.h).
    const Output k = graph.variable(kernel), k_scale = graph.variable(kernel_scale);
    Output y = with_dequantized_gradient(ops::dense_int8(x, k, k_scale), ops::div(ops::dense(x, k), k_scale));
    if (options.use_bias) y = ops::add(y, graph.variable(bias));
    return {activations::apply(options.activation, y)};
  }
  if (float8.inputs_scale.defined()) {  // Keras's float8 predict (layers/core/float8_quantization.h)
    Output y = ops::dense(quantize_dequantize_float8(graph, x, float8.inputs_scale),
                          quantize_dequantize_float8(graph, graph.variable(kernel), float8.kernel_scale));
    if (options.use_bias) y = ops::add(y, ops::round_to_bfloat16(graph.variable(bias)));
    return {activations::apply(options.activation, y)};
  }
  if (int4.packed.defined()) {  // Keras's int4: the float layer on the dequantized kernel
    const bool fused_relu = options.activation == "relu";
    const Output y = ops::dense(x, dequantized_int4(graph, int4), options.use_bias ? graph.variable(bias) : Output{},
                                fused_relu ? "relu" : "");
    return {fused_relu ? y : activations::apply(options.activation, y)};
  }
  if (graph.precision() != ComputePrecision::float32) {  // a bfloat16 or float16 policy
    const bool fused = fused_like_onednn(graph, x.shape().rank());
    check_low_precision_activation(graph, options.activation, fused);
    const std::string& act = options.activation;
    if (fused && fuses_into_one_op(act)) {
      return {fused_low_precision_op(graph, x, graph.variable(kernel),
                                     options.use_bias ? graph.variable(bias) : Output{},
                                     [&](Output a, Output k, Output b, ComputePrecision p) {
                                       return ops::dense(a, k, b, act == "relu" ? "relu" : "", p);
                                     })};
    }
    return {low_precision_product(graph, fused, x, graph.variable(kernel),
                                  options.use_bias ? graph.variable(bias) : Output{}, options.activation,
                                  [](Output a, Output k) { return ops::dense(a, k); })};
  }
  // Bias and relu run inside the dense op; other activations follow as their own ops.
  const bool fused_relu = options.activation == "relu";
  Output y = ops::dense(x, graph.variable(kernel), options.use_bias ? graph.variable(bias) : Output{},
                        fused_relu ? "relu" : "");
  return {fused_relu ? y : activations::apply(options.activation, y)};
}

void DenseImpl::quantize(const std::string& mode) {
  check_quantizable(*this, mode);
  if (const auto history = float8_history_of(mode)) {  // Keras's quantize("float8"): scales added, the kernel kept
    add_float8_weights([this](const std::string& n, const Shape& s, const std::string& init) { return add_weight(n, s, init, false); },
                       float8, *history);
    quantization_mode = mode;
    return;
  }
  if (const auto block = int4_block_of(mode)) {  // Keras's quantize("int4"): groups of rows
    const std::int64_t in = kernel.shape()[0];
    const Int4Quantized q = quantize_grouped_int4(kernel.value().to(Device{}).to_vector<float>(), in, units, *block,
                                                  "Dense '" + name + "' kernel");
    drop_weight_rules(*this, kernel);
    assign_int4([this](const std::string& n, const Shape& s, const std::string& init) { return add_weight(n, s, init, false); },
                weights, int4, "kernel", "kernel", in, units, *block, q,
                options.use_bias ? std::vector<Variable>{bias} : std::vector<Variable>{});
    kernel = Variable();
    quantization_mode = mode;
    return;
  }
  Int8Weight q = quantize_weight_int8(kernel.value(), {0}, "Dense '" + name + "' kernel");
  drop_weight_rules(*this, kernel);
  // Keras's int8 build's variables, in the order a loaded int8 Dense has them.
  weights.clear();
  kernel = add_weight("kernel", q.values.shape(), "zeros", false);
  kernel.assign(q.values);
  kernel.set_stored_as(Variable::Stored::int8);
  if (options.use_bias) weights.push_back(bias);
  kernel_scale = add_weight("kernel_scale", Shape{units}, "ones", false);
  kernel_scale.assign(q.scale.reshaped(Shape{units}));
  quantization_mode = mode;
}

Dense::Dense(std::int64_t units, DenseOptions options)
    : Layer(std::make_shared<DenseImpl>(units, std::move(options))) {}

namespace {
const bool dense_registered = register_keras_class(
    describe_layer<Dense>("Dense", &DenseImpl::options, keras_field("units", &DenseImpl::units)));
}  // namespace

}  // namespace strata::layers
