// Conv2DTranspose: the gradient of a Conv2D applied as a layer (scatter-add of x[i]·K at
// i·stride). Kernel (kh, kw, filters, in), Keras's layout. Output size without
// output_padding: valid (in − 1)·s + max(k_eff, s), same in·s (keras-spec §2).
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct Conv2DTransposeOptions {  // Keras signature order (output_padding is not supported)
  IntPair strides = 1;
  std::string padding = "valid";
  std::string data_format;
  IntPair dilation_rate = 1;
  std::string activation;
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  std::string name;

  static constexpr auto keras_fields() {
    using O = Conv2DTransposeOptions;
    return std::tuple{keras_field("strides", &O::strides).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate).at_least(1),
                      keras_refused("output_padding"),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_refused("groups", "1").unwritten().because("groups other than 1")};
  }
};

class Conv2DTransposeImpl : public LayerImpl {
 public:
  Conv2DTransposeImpl(std::int64_t filters, IntPair kernel_size, Conv2DTransposeOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t filters;
  IntPair kernel_size;
  Conv2DTransposeOptions options;
  Variable kernel, bias;
};

class Conv2DTranspose : public Layer {
 public:
  Conv2DTranspose(std::int64_t filters, IntPair kernel_size, Conv2DTransposeOptions options = {});
};

}  // namespace strata::layers
