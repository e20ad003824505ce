// EinsumDense: a dense layer whose product is an einsum of the input with the kernel, as
// keras.layers.EinsumDense: "abc,cde->abde" projects (batch, T, dim) to (batch, T, heads,
// key_dim) with a kernel (dim, heads, key_dim); MultiHeadAttention's projections are such
// layers. output_shape gives the output's dims after the batch (None: taken from the
// input); bias_axes names the output letters the bias spans; then the activation.
// Equations: "input,kernel->output" in letters, the input's first letter the batch; or, as
// Keras allows, with an ellipsis leading the input and the output ("...b,bc->...c": the
// batch and the axes before b) or trailing them ("ab...,bc->ac...": the axes after b),
// spelled out in unused letters when the layer is built for its input's rank.
// A kernel letter is summed over (in the input), kept (in the output), or both, a batched
// kernel (one matrix per index of that letter, as "abc,bcd->abd"); an input letter in
// neither the kernel nor the output is summed over alone; a letter repeated in the input
// or the kernel takes that operand's diagonal along its axes (tf.einsum's reading, which
// Keras's call is). Those three forms compute in float32 (a low-precision policy or a
// quantization refuses them by name).
// In int8 mode (a file's QuantizedDTypePolicy), as Keras's int8 EinsumDense: the input
// quantized over its summed axes, an integer product with the int8 kernel, divided by the
// input's scale times kernel_scale (equations with more summed letters than the output
// has letters from either side are refused: Keras squeezes those scales); the input's
// gradient is the float product's with the kernel divided by kernel_scale (Keras's).
#pragma once

#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/core/float8_quantization.h"
#include "layers/core/int4_quantization.h"

namespace strata::layers {

struct EinsumDenseOptions {  // Keras signature order (after equation, output_shape)
  std::string activation;    // "" = linear
  std::optional<std::string> bias_axes;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  Regularizer kernel_regularizer;  // a float kernel's (a quantized one has none, as in Keras)
  Regularizer bias_regularizer;
  Regularizer activity_regularizer;
  Constraint kernel_constraint;
  Constraint bias_constraint;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  // A quantization_config is refused.
  static constexpr auto keras_fields() {
    using O = EinsumDenseOptions;
    return std::tuple{keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("bias_axes", &O::bias_axes),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_field("kernel_regularizer", &O::kernel_regularizer),
                      keras_field("bias_regularizer", &O::bias_regularizer),
                      keras_field("activity_regularizer", &O::activity_regularizer),
                      keras_field("kernel_constraint", &O::kernel_constraint),
                      keras_field("bias_constraint", &O::bias_constraint),
                      keras_refused("quantization_config").because("quantized kernels"),
                      keras_refused("lora_rank").because("LoRA").unwritten()};
  }
};

// The letters of an equation and what each is to the product.
struct EinsumEquation {
  std::string input, kernel, output;  // the input's and kernel's after their diagonals
  std::string raw_input, raw_kernel;  // as written (a repeated letter: a diagonal)
  std::string summed;       // in the input and the kernel, not the output (input order)
  std::string input_kept;   // in the input and the output, not the kernel (input order)
  std::string kernel_kept;  // in the kernel and the output, not the input (kernel order)
  std::string batched;      // in the input, the kernel and the output (input order)
  std::string alone;        // in the input only: summed over before the product (input order)

  static EinsumEquation parse(const std::string& equation);
  // The input's letters once those summed alone are: the product's left operand.
  std::string product_input() const;
  // Whether the equation needs more than one matrix product of the input and the kernel.
  bool beyond_matrix_product() const {
    return !batched.empty() || !alone.empty() || raw_input != input || raw_kernel != kernel;
  }
};

class EinsumDenseImpl : public LayerImpl {
 public:
  EinsumDenseImpl(std::string equation, Shape output_shape, EinsumDenseOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // int8, and Keras's sub-channel int4 ("int4/<block>", layers/core/int4_quantization.h)
  // and float8 ("float8/<history>", layers/core/float8_quantization.h) as its files hold
  // them (Strata's quantize() makes int8 only).
  bool supports_quantization_mode(const std::string& mode) const override {
    return mode == "int8" || int4_block_of(mode).has_value() || float8_history_of(mode).has_value();
  }
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::low_precision; }
  // Keras's EinsumDense.quantize("int8"): the kernel quantized over its summed axes (one
  // scale per kept kernel position, laid out as kernel_scale), the bias kept.
  void quantize(const std::string& mode) override;
  // Refuses (NotImplementedError) equations whose int8 kernel_scale Keras lays out
  // otherwise (squeezed): Model::quantize checks every layer before it changes one.
  void check_int8_equation() const;

  std::string equation;  // as written (and saved)
  Shape output_shape;    // as written: the dims after the batch not the ellipsis's; unknown dims come from the input
  EinsumDenseOptions options;
  EinsumEquation letters;  // of the equation spelled out (when built; before, for the least rank)
  Variable kernel, bias;
  // int8 mode only: Keras's kernel scale, one per kept kernel position, laid out as the
  // output (1 on the axes the kernel lacks).
  Variable kernel_scale;
  Float8Weights float8;  // float8 modes only: besides kernel and bias
  Int4Weights int4;  // int4 modes only: instead of kernel
  std::vector<std::int64_t> int4_kernel_dims;  // the kernel's shape the int4 one stands for
  Shape full_output_shape;  // with the batch dim, as built

 private:
  // kernel_scale's shape: the output's, 1 on the axes the kernel lacks.
  Shape int8_scale_shape() const;
};

class EinsumDense : public Layer {
 public:
  EinsumDense(std::string equation, Shape output_shape, EinsumDenseOptions options = {});
};

}  // namespace strata::layers
