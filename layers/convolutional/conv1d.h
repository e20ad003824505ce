// Conv1D: 1-D cross-correlation over (batch, steps, channels) — or (batch, channels,
// steps) with "channels_first" — kernel (kernel_size, in / groups, filters). Padding
// "valid", "same" or "causal" (left padding only: output t never sees input t + 1).
// Runs as conv2d with a unit row dimension.
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct Conv1DOptions {  // Keras signature order
  std::int64_t strides = 1;
  std::string padding = "valid";  // "valid", "same" or "causal"
  std::string data_format;        // "" = "channels_last"
  std::int64_t dilation_rate = 1;
  std::int64_t groups = 1;
  std::string activation;
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  std::string name;

  static constexpr auto keras_fields() {
    using O = Conv1DOptions;
    return std::tuple{keras_field("strides", &O::strides, Spelling::window1).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate, Spelling::window1).at_least(1),
                      keras_field("groups", &O::groups, Spelling::unwrap1).at_least(1),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("bias_initializer", &O::bias_initializer)};
  }
};

class Conv1DImpl : public LayerImpl {
 public:
  Conv1DImpl(std::int64_t filters, std::int64_t kernel_size, Conv1DOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t filters, kernel_size;
  Conv1DOptions options;
  Variable kernel, bias;
};

class Conv1D : public Layer {
 public:
  Conv1D(std::int64_t filters, std::int64_t kernel_size, Conv1DOptions options = {});
};

}  // namespace strata::layers
