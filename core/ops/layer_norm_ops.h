// LayerNormalization over the last axis as one op, for inference programs on the CPU.
// The layer composes it from ops (layers/normalization/layer_normalization.cc: reductions
// for the mean and variance, then elementwise ops), about ten passes over the activation,
// which ConvNeXt repeats in every block and a Transformer twice a block; the inference
// rewrite (core/inference_rewrite.h) replaces that composite by
//
//   layer_normalization_inference(x[, gamma][, beta]) -> y
//
// y = (x − mean)·((1/√(variance + ε))·γ) + β over each row of x's last axis (mean and
// biased variance of the row), γ and β of shape (C,), present as the attributes scale and
// center say: the composite's order of operations (its sums in vector lanes: within a
// rounding, not bit for bit), two passes over each row. No gradient (training programs
// run the composite) and no CUDA kernel (GPU programs keep the composite).
#pragma once

#include "core/graph.h"

namespace strata::ops {

// gamma and beta (C,) each, or an invalid Output for none.
Output layer_normalization_inference(Output x, Output gamma, Output beta, float epsilon);

}  // namespace strata::ops
