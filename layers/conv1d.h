// Conv1D: 1-D cross-correlation over (batch, steps, channels) — or (batch, channels,
// steps) with "channels_first" — kernel (kernel_size, in / groups, filters). Padding
// "valid", "same" or "causal" (left padding only: output t never sees input t + 1).
// Runs as conv2d with a unit row dimension.
#pragma once

#include <string>

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
