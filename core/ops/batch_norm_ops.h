// BatchNormalization as one op, and its gradient as one more. Composed from reductions and
// elementwise ops, a training step made about 22 passes over each normalized activation
// (the batch's mean and variance, the normalization and scale, and their adjoints), and
// those passes were the largest share of a CNN's training step after its convolutions
// (issue #37: ResNet-20). The op makes three passes forward and its gradient two.
//
//   batch_normalization(x, gamma, beta, moving_mean, moving_variance) -> (y, mean, variance)
//
// over every axis of x but `axis`: in training (the run's mode) with the batch's mean and
// biased variance, which it outputs (the moving statistics' update reads them); otherwise
// with the moving statistics, which the outputs then repeat. y = (x − mean)·(γ / √(variance
// + ε)) + β, every operand but x of shape (C,). Differentiable to any order: its gradient
// is batch_normalization_grad, whose own gradient is built from the composite form.
// Inference programs never run it: core/inference_rewrite.h replaces it by
// batch_normalization_inference, which folds into the product before it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

struct BatchNormOutputs {
  Output y, mean, variance;
};

BatchNormOutputs batch_normalization(Output x, Output gamma, Output beta, Output moving_mean, Output moving_variance,
                                     int axis, float epsilon);

// The normalization with given statistics, composed from elementwise ops (mean,
// variance, gamma and beta of shape (C,); beta may be an invalid Output for none):
// what the op computes outside training, in the form the inference rewrite folds into a
// convolution's or Dense layer's kernel and bias.
Output batch_normalization_inference(Output x, Output gamma, Output beta, Output mean, Output variance, int axis,
                                     float epsilon);

// Keras's moments (keras.ops.moments, BatchNormalization's batch statistics) as its
// TensorFlow backend computes them over `axes`, kept as axes of size 1 when `keepdims`:
// tf.nn.moments' mean and mean squared deviation from it (the mean held constant), or with
// `synchronized` one replica's all-reduced form, mean = Σx / n and
// variance = max(Σx² / n − mean², 0).
struct Moments {
  Output mean, variance;
};
Moments moments(Output x, const std::vector<std::int64_t>& axes, bool keepdims, bool synchronized);

}  // namespace strata::ops
