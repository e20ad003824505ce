// Keras's int8 quantized layers' arithmetic (QuantizedDTypePolicy "int8"; docs/precision.md),
// shared by Dense, EinsumDense and Embedding. The kernel is int8 in files and held here as
// float32 integers in [-127, 127] (exact), until the engine has int8 tensors.
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"
#include "layers/layer.h"

namespace strata::layers {

// The input's quantization and the int32 product of Keras's int8 Dense and EinsumDense
// are one op, dense_int8 (core/ops.h), with int8 kernels on each device.

// Keras's AbsMaxQuantizer as its layers' quantize("int8") applies it to a float weight (in
// NumPy, float32 throughout): over `axes`, scale = 127 / (max |w| + 1e-7), kept as 1s, and
// values = clip(round_half_even(w * scale), -127, 127). A weight that is not finite is a
// ValueError naming `where` (Keras would cast a NaN to an arbitrary int8).
struct Int8Weight {
  Tensor values;  // w's shape: integers in [-127, 127], float32 (exact)
  Tensor scale;   // w's shape with `axes` 1
};
Int8Weight quantize_weight_int8(const Tensor& w, const std::vector<int>& axes, const std::string& where);

// What Keras checks before a layer's quantize(mode): the layer is built (ValueError), not
// quantized already (ValueError), and, Strata's limit, mode is "int8" (NotImplementedError).
void check_quantizable(const LayerImpl& layer, const std::string& mode);
// Forgets a replaced weight's regularizer and constraint (Keras's int8 kernel has neither).
void drop_weight_rules(LayerImpl& layer, const Variable& weight);

// An int8 layer's result `quantized`, given the gradient Keras's int8 Dense and EinsumDense
// give their input (a custom gradient): that of `dequantized`, the layer's float product with
// the kernel divided by kernel_scale, as though the kernel were float; none through the input's
// rounding or scale. In training programs the value is quantized + (dequantized - dequantized),
// exactly `quantized` for finite values; inference programs compute `quantized` alone
// (training_select, resolved by core/inference_rewrite.h).
Output with_dequantized_gradient(Output quantized, Output dequantized);

}  // namespace strata::layers
