// DepthwiseConv2D: each input channel convolved with its own depth_multiplier filters;
// depthwise_kernel (kh, kw, in, depth_multiplier), output channel c·dm + m. Runs as a
// grouped conv2d with groups = in.
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct DepthwiseConv2DOptions {  // Keras signature order
  IntPair strides = 1;
  std::string padding = "valid";
  std::int64_t depth_multiplier = 1;
  std::string data_format;
  IntPair dilation_rate = 1;
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
    using O = DepthwiseConv2DOptions;
    return std::tuple{keras_field("strides", &O::strides).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("depth_multiplier", &O::depth_multiplier, Spelling::unwrap1).at_least(1),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate).at_least(1),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("depthwise_initializer", &O::depthwise_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_field("depthwise_regularizer", &O::depthwise_regularizer),
                      keras_field("bias_regularizer", &O::bias_regularizer),
                      keras_field("activity_regularizer", &O::activity_regularizer),
                      keras_field("depthwise_constraint", &O::depthwise_constraint),
                      keras_field("bias_constraint", &O::bias_constraint),
                      keras_refused("groups", "1").unwritten()};  // Keras 2's base Conv2D key
  }
};

class DepthwiseConv2DImpl : public LayerImpl {
 public:
  DepthwiseConv2DImpl(IntPair kernel_size, DepthwiseConv2DOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::low_precision; }

  IntPair kernel_size;
  DepthwiseConv2DOptions options;
  Variable depthwise_kernel, bias;
};

class DepthwiseConv2D : public Layer {
 public:
  explicit DepthwiseConv2D(IntPair kernel_size, DepthwiseConv2DOptions options = {});
};

// The depthwise step shared with SeparableConv2D: x NHWC, kernel variable node
// (kh, kw, C, dm) -> (N, OH, OW, C·dm).
Output depthwise_conv2d(Output x, Output kernel, const std::string& padding, IntPair strides, IntPair dilation_rate);

}  // namespace strata::layers
