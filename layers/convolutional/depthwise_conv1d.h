// DepthwiseConv1D: DepthwiseConv2D over one spatial axis. Each input channel convolved with
// its own depth_multiplier filters; kernel (k, in, depth_multiplier) named "kernel" as in
// Keras 3, output channel c·dm + m. Runs as a depthwise conv2d over a unit row axis.
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct DepthwiseConv1DOptions {  // Keras signature order
  std::int64_t strides = 1;
  std::string padding = "valid";
  std::int64_t depth_multiplier = 1;
  std::string data_format;
  std::int64_t dilation_rate = 1;
  std::string activation;
  bool use_bias = true;
  Initializer depthwise_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  Regularizer depthwise_regularizer;
  Regularizer bias_regularizer;
  Regularizer activity_regularizer;
  Constraint depthwise_constraint;
  Constraint bias_constraint;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = DepthwiseConv1DOptions;
    return std::tuple{keras_field("depth_multiplier", &O::depth_multiplier).at_least(1),
                      keras_field("strides", &O::strides, Spelling::window1).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate, Spelling::window1).at_least(1),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("depthwise_initializer", &O::depthwise_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_field("depthwise_regularizer", &O::depthwise_regularizer),
                      keras_field("bias_regularizer", &O::bias_regularizer),
                      keras_field("activity_regularizer", &O::activity_regularizer),
                      keras_field("depthwise_constraint", &O::depthwise_constraint),
                      keras_field("bias_constraint", &O::bias_constraint)};
  }
};

class DepthwiseConv1DImpl : public LayerImpl {
 public:
  DepthwiseConv1DImpl(std::int64_t kernel_size, DepthwiseConv1DOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t kernel_size;
  DepthwiseConv1DOptions options;
  Variable kernel, bias;
};

class DepthwiseConv1D : public Layer {
 public:
  explicit DepthwiseConv1D(std::int64_t kernel_size, DepthwiseConv1DOptions options = {});
};

// The depthwise step shared with SeparableConv1D: x (N, L, C), kernel variable node
// (k, C, dm) -> (N, L', C·dm), by depthwise_conv2d over a unit row axis.
Output depthwise_conv1d(Output x, Output kernel, const std::string& padding, std::int64_t strides,
                        std::int64_t dilation_rate);

}  // namespace strata::layers
