// Conv1D, Conv2D and Conv3D: cross-correlation over the spatial axes of (batch, ...,
// channels) — or (batch, channels, ...) with data_format "channels_first" — with Keras's
// arguments and kernel layout (window..., in / groups, filters). One implementation for
// every rank: 1-D runs as 2-D with a unit row axis (and alone takes "causal" padding,
// left padding only: output t never sees input t + 1); 2-D fuses bias and relu into the
// convolution's kernel; 3-D runs the 3-D convolution.
#pragma once

#include <cstdint>
#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

template <int Rank>
struct ConvOptions {  // Keras signature order
  Window<Rank> strides = 1;
  std::string padding = "valid";  // "valid" or "same" ("causal" too in 1-D)
  std::string data_format;        // "" = "channels_last"
  Window<Rank> dilation_rate = 1;
  std::int64_t groups = 1;
  std::string activation;  // "" = linear
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  Regularizer kernel_regularizer;
  Regularizer bias_regularizer;
  Regularizer activity_regularizer;
  Constraint kernel_constraint;
  Constraint bias_constraint;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = ConvOptions;
    return std::tuple{keras_field("strides", &O::strides, window_spelling(Rank)).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate, window_spelling(Rank)).at_least(1),
                      keras_field("groups", &O::groups, Spelling::unwrap1).at_least(1),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_field("kernel_regularizer", &O::kernel_regularizer),
                      keras_field("bias_regularizer", &O::bias_regularizer),
                      keras_field("activity_regularizer", &O::activity_regularizer),
                      keras_field("kernel_constraint", &O::kernel_constraint),
                      keras_field("bias_constraint", &O::bias_constraint)};
  }
};

template <int Rank>
class ConvImpl : public LayerImpl {
 public:
  ConvImpl(std::int64_t filters, Window<Rank> kernel_size, ConvOptions<Rank> options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // Conv2D's bfloat16 and float16 forms (checked against Keras); Conv1D's and Conv3D's not yet.
  LowPrecisionForm low_precision_form() const override {
    return Rank == 2 ? LowPrecisionForm::low_precision : LowPrecisionForm::refused;
  }

  std::int64_t filters;
  Window<Rank> kernel_size;
  ConvOptions<Rank> options;
  Variable kernel, bias;
};

template <int Rank>
class Conv : public Layer {
 public:
  Conv(std::int64_t filters, Window<Rank> kernel_size, ConvOptions<Rank> options = {});
};

using Conv1DOptions = ConvOptions<1>;
using Conv2DOptions = ConvOptions<2>;
using Conv3DOptions = ConvOptions<3>;
using Conv1DImpl = ConvImpl<1>;
using Conv2DImpl = ConvImpl<2>;
using Conv3DImpl = ConvImpl<3>;
using Conv1D = Conv<1>;
using Conv2D = Conv<2>;
using Conv3D = Conv<3>;

extern template class ConvImpl<1>;
extern template class ConvImpl<2>;
extern template class ConvImpl<3>;
extern template class Conv<1>;
extern template class Conv<2>;
extern template class Conv<3>;

}  // namespace strata::layers
