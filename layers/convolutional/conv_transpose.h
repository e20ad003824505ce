// Conv1DTranspose, Conv2DTranspose and Conv3DTranspose: the gradient of a convolution
// applied as a layer (scatter-add of x[i]·K at i·stride), kernel (window..., filters, in)
// in Keras's layout. Output size per axis without output_padding: valid
// (in − 1)·s + max(k_eff, s), same in·s; with it, TensorFlow's rule (keras-spec §2). One
// implementation for every rank: 1-D runs as 2-D with a unit row axis.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

// The config keys of every rank, in the order Keras writes them.
template <typename O, int Rank>
constexpr auto conv_transpose_fields() {
  return std::tuple{keras_field("strides", &O::strides, window_spelling(Rank)).at_least(1),
                    keras_field("padding", &O::padding, Spelling::padding),
                    keras_field("output_padding", &O::output_padding, window_spelling(Rank)).at_least(0),
                    keras_field("data_format", &O::data_format, Spelling::data_format),
                    keras_field("dilation_rate", &O::dilation_rate, window_spelling(Rank)).at_least(1),
                    keras_field("activation", &O::activation, Spelling::activation),
                    keras_field("use_bias", &O::use_bias),
                    keras_field("kernel_initializer", &O::kernel_initializer),
                    keras_field("bias_initializer", &O::bias_initializer),
                    keras_field("kernel_regularizer", &O::kernel_regularizer),
                    keras_field("bias_regularizer", &O::bias_regularizer),
                    keras_field("activity_regularizer", &O::activity_regularizer),
                    keras_field("kernel_constraint", &O::kernel_constraint),
                    keras_field("bias_constraint", &O::bias_constraint),
                    keras_refused("groups", "1").unwritten().because("groups other than 1")};
}

template <int Rank>
struct ConvTransposeOptions {  // Keras signature order
  Window<Rank> strides = 1;
  std::string padding = "valid";                // "valid" or "same"
  std::optional<Window<Rank>> output_padding;  // each < its stride; unset: Keras's default size
  std::string data_format;
  Window<Rank> dilation_rate = 1;
  std::string activation;
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

  static constexpr auto keras_fields() { return conv_transpose_fields<ConvTransposeOptions, Rank>(); }
};

// Keras's Conv3DTranspose takes data_format before output_padding; designated
// initializers follow the signature.
template <>
struct ConvTransposeOptions<3> {
  IntTriple strides = 1;
  std::string padding = "valid";
  std::string data_format;
  std::optional<IntTriple> output_padding;
  IntTriple dilation_rate = 1;
  std::string activation;
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

  static constexpr auto keras_fields() { return conv_transpose_fields<ConvTransposeOptions, 3>(); }
};

// The transposed convolution Keras's conv_transpose computes (these layers' product, and the
// keras.ops function's): x channels last (batch, spatial..., C) with 1 to 3 spatial axes, kernel
// (window..., out_channels, C); per spatial axis, strides, dilation and output_padding (each
// below its stride; none: Keras's default size); padding "valid" or "same". Keras's output
// length per axis (above); a spatial size unknown until run time is computed then.
Output transposed_convolution(Output x, Output kernel, const std::string& padding,
                              const std::vector<std::int64_t>& strides, const std::vector<std::int64_t>& dilation,
                              const std::optional<std::vector<std::int64_t>>& output_padding);

template <int Rank>
class ConvTransposeImpl : public LayerImpl {
 public:
  ConvTransposeImpl(std::int64_t filters, Window<Rank> kernel_size, ConvTransposeOptions<Rank> options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t filters;
  Window<Rank> kernel_size;
  ConvTransposeOptions<Rank> options;
  Variable kernel, bias;
};

template <int Rank>
class ConvTranspose : public Layer {
 public:
  ConvTranspose(std::int64_t filters, Window<Rank> kernel_size, ConvTransposeOptions<Rank> options = {});
};

using Conv1DTransposeOptions = ConvTransposeOptions<1>;
using Conv2DTransposeOptions = ConvTransposeOptions<2>;
using Conv3DTransposeOptions = ConvTransposeOptions<3>;
using Conv1DTransposeImpl = ConvTransposeImpl<1>;
using Conv2DTransposeImpl = ConvTransposeImpl<2>;
using Conv3DTransposeImpl = ConvTransposeImpl<3>;
using Conv1DTranspose = ConvTranspose<1>;
using Conv2DTranspose = ConvTranspose<2>;
using Conv3DTranspose = ConvTranspose<3>;

extern template class ConvTransposeImpl<1>;
extern template class ConvTransposeImpl<2>;
extern template class ConvTransposeImpl<3>;
extern template class ConvTranspose<1>;
extern template class ConvTranspose<2>;
extern template class ConvTranspose<3>;

}  // namespace strata::layers
