// Dense: y = activation(x · kernel + bias), acting on the last axis of N-D input. In int8
// mode (a file's QuantizedDTypePolicy), as Keras's int8 Dense: x quantized per row, an
// integer product with the int8 kernel, divided by kernel_scale times the row's scale; the
// input's gradient is the float product's with the kernel divided by kernel_scale (Keras's).
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/core/float8_quantization.h"
#include "layers/core/int4_quantization.h"

namespace strata::layers {

struct DenseOptions {  // Keras signature order
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

  // activity_regularizer is not among them: Keras's Dense writes it as every layer does
  // (io, from LayerImpl::activity_regularizer), after dtype and only when set.
  static constexpr auto keras_fields() {
    using O = DenseOptions;
    return std::tuple{keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_field("kernel_regularizer", &O::kernel_regularizer),
                      keras_field("bias_regularizer", &O::bias_regularizer),
                      keras_field("kernel_constraint", &O::kernel_constraint),
                      keras_field("bias_constraint", &O::bias_constraint),
                      keras_refused("quantization_config").unwritten().because("quantized layers, issue #39")};
  }
};

class DenseImpl : public LayerImpl {
 public:
  DenseImpl(std::int64_t units, DenseOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // int8, and Keras's sub-channel int4 ("int4/<block>", layers/core/int4_quantization.h)
  // and float8 ("float8/<history>", layers/core/float8_quantization.h) as its files hold
  // them (Strata's quantize() makes int8 only).
  bool supports_quantization_mode(const std::string& mode) const override {
    return mode == "int8" || int4_block_of(mode).has_value() || float8_history_of(mode).has_value();
  }
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::low_precision; }
  // Keras's Dense.quantize("int8"): the kernel quantized per unit (AbsMaxQuantizer over axis
  // 0), stored as kernel (int8, not trainable) and kernel_scale (units,); the bias stays.
  void quantize(const std::string& mode) override;

  std::int64_t units;
  DenseOptions options;
  Variable kernel, bias;
  Variable kernel_scale;  // int8 mode only: Keras's per-unit scale (layers/core/int8_quantization.h)
  Float8Weights float8;  // float8 modes only: besides kernel and bias
  Int4Weights int4;       // int4 modes only: instead of kernel
};

class Dense : public Layer {
 public:
  explicit Dense(std::int64_t units, DenseOptions options = {});
};

}  // namespace strata::layers
