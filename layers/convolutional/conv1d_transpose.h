// Conv1DTranspose: the input gradient of a Conv1D applied as a layer. Kernel (k, filters,
// in), Keras's layout; runs as Conv2DTranspose's op with a unit row. Output length as
// Keras computes it on TensorFlow (layers/convolutional/conv_transpose_utils.h), output_padding included.
#pragma once

#include <optional>
#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct Conv1DTransposeOptions {  // Keras signature order
  std::int64_t strides = 1;
  std::string padding = "valid";  // "valid" or "same"
  std::optional<std::int64_t> output_padding;  // < strides; unset: Keras's default length
  std::string data_format;
  std::int64_t dilation_rate = 1;
  std::string activation;
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  std::string name;

  static constexpr auto keras_fields() {
    using O = Conv1DTransposeOptions;
    return std::tuple{keras_field("strides", &O::strides, Spelling::window1).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("output_padding", &O::output_padding, Spelling::window1).at_least(0),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate, Spelling::window1).at_least(1),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_refused("groups", "1").unwritten().because("groups other than 1")};
  }
};

class Conv1DTransposeImpl : public LayerImpl {
 public:
  Conv1DTransposeImpl(std::int64_t filters, std::int64_t kernel_size, Conv1DTransposeOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t filters;
  std::int64_t kernel_size;
  Conv1DTransposeOptions options;
  Variable kernel, bias;
};

class Conv1DTranspose : public Layer {
 public:
  Conv1DTranspose(std::int64_t filters, std::int64_t kernel_size, Conv1DTransposeOptions options = {});
};

}  // namespace strata::layers
