// Conv2D: 2-D cross-correlation over (batch, rows, cols, channels) — or (batch, channels,
// rows, cols) with data_format "channels_first" — with Keras's arguments and kernel
// layout (kh, kw, in / groups, filters).
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct Conv2DOptions {  // Keras signature order
  IntPair strides = 1;
  std::string padding = "valid";  // "valid" or "same"
  std::string data_format;        // "" = "channels_last"
  IntPair dilation_rate = 1;
  std::int64_t groups = 1;
  std::string activation;         // "" = linear
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  std::string name;

  static constexpr auto keras_fields() {
    using O = Conv2DOptions;
    return std::tuple{keras_field("strides", &O::strides).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate).at_least(1),
                      keras_field("groups", &O::groups, Spelling::unwrap1).at_least(1),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("bias_initializer", &O::bias_initializer)};
  }
};

class Conv2DImpl : public LayerImpl {
 public:
  Conv2DImpl(std::int64_t filters, IntPair kernel_size, Conv2DOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t filters;
  IntPair kernel_size;
  Conv2DOptions options;
  Variable kernel, bias;
};

class Conv2D : public Layer {
 public:
  Conv2D(std::int64_t filters, IntPair kernel_size, Conv2DOptions options = {});
};

}  // namespace strata::layers
