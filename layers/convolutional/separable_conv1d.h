// SeparableConv1D: SeparableConv2D over one spatial axis. A depthwise convolution
// (depthwise_kernel (k, in, dm)) followed by a pointwise one (pointwise_kernel
// (1, in·dm, filters)) and the bias.
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct SeparableConv1DOptions {  // Keras signature order
  std::int64_t strides = 1;
  std::string padding = "valid";
  std::string data_format;
  std::int64_t dilation_rate = 1;
  std::int64_t depth_multiplier = 1;
  std::string activation;
  bool use_bias = true;
  Initializer depthwise_initializer = "glorot_uniform";
  Initializer pointwise_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  Regularizer depthwise_regularizer;
  Regularizer pointwise_regularizer;
  Regularizer bias_regularizer;
  Regularizer activity_regularizer;
  Constraint depthwise_constraint;
  Constraint pointwise_constraint;
  Constraint bias_constraint;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = SeparableConv1DOptions;
    return std::tuple{keras_field("depth_multiplier", &O::depth_multiplier).at_least(1),
                      keras_field("strides", &O::strides, Spelling::window1).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate, Spelling::window1).at_least(1),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("depthwise_initializer", &O::depthwise_initializer),
                      keras_field("pointwise_initializer", &O::pointwise_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_field("depthwise_regularizer", &O::depthwise_regularizer),
                      keras_field("pointwise_regularizer", &O::pointwise_regularizer),
                      keras_field("bias_regularizer", &O::bias_regularizer),
                      keras_field("activity_regularizer", &O::activity_regularizer),
                      keras_field("depthwise_constraint", &O::depthwise_constraint),
                      keras_field("pointwise_constraint", &O::pointwise_constraint),
                      keras_field("bias_constraint", &O::bias_constraint)};
  }
};

class SeparableConv1DImpl : public LayerImpl {
 public:
  SeparableConv1DImpl(std::int64_t filters, std::int64_t kernel_size, SeparableConv1DOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t filters;
  std::int64_t kernel_size;
  SeparableConv1DOptions options;
  Variable depthwise_kernel, pointwise_kernel, bias;
};

class SeparableConv1D : public Layer {
 public:
  SeparableConv1D(std::int64_t filters, std::int64_t kernel_size, SeparableConv1DOptions options = {});
};

}  // namespace strata::layers
