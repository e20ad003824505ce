// Conv3DTranspose: the input gradient of a Conv3D applied as a layer (scatter-add of
// x[i]·K at i·stride). Kernel (kd, kh, kw, filters, in), Keras's layout. Output size per
// axis as Keras computes it on TensorFlow (layers/convolutional/conv_transpose_utils.h), output_padding
// included.
#pragma once

#include <optional>
#include <string>

#include "layers/convolutional/conv3d_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct Conv3DTransposeOptions {  // Keras signature order
  IntTriple strides = 1;
  std::string padding = "valid";  // "valid" or "same"
  std::string data_format;
  std::optional<IntTriple> output_padding;  // each < its stride; unset: Keras's default size
  IntTriple dilation_rate = 1;
  std::string activation;
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  std::string name;

  static constexpr auto keras_fields() {  // in the order Keras writes them
    using O = Conv3DTransposeOptions;
    return std::tuple{keras_field("strides", &O::strides).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("output_padding", &O::output_padding).at_least(0),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate).at_least(1),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_refused("groups", "1").unwritten().because("groups other than 1")};
  }
};

class Conv3DTransposeImpl : public LayerImpl {
 public:
  Conv3DTransposeImpl(std::int64_t filters, IntTriple kernel_size, Conv3DTransposeOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t filters;
  IntTriple kernel_size;
  Conv3DTransposeOptions options;
  Variable kernel, bias;
};

class Conv3DTranspose : public Layer {
 public:
  Conv3DTranspose(std::int64_t filters, IntTriple kernel_size, Conv3DTransposeOptions options = {});
};

}  // namespace strata::layers
