// BatchNormalization (keras-spec §2). Training (program in training mode and the layer
// trainable): normalize with the batch's mean and biased variance over every axis but
// `axis`, and move the moving statistics: moving = moving·momentum + batch·(1 − momentum).
// Inference — and always when trainable is false, even inside fit — normalize with the
// moving statistics. Weights: gamma, beta (trainable), moving_mean, moving_variance.
//
// One op, batch_normalization (core/ops/batch_norm_ops.h: three passes forward, two for
// its gradient, differentiable to any order), which reads the run's mode, so one graph
// serves predict, evaluate and fit; inference programs replace it by the composite
// normalization with the moving statistics, which folds into the product before it.
// A layer that is not trainable builds that composite alone.
//
// Masks as Keras 3.15's call(inputs, training, mask): the mask passed with the call
// (BatchNormalization()(x, {.mask = m})), else the input's Keras mask (Embedding's
// mask_zero, Masking), of one dim less than the inputs (a ValueError otherwise, as
// Keras's). In training the batch's moments are the masked ones: the mask, nonzero kept,
// gets a last axis of 1 and is broadcast to the inputs; mean = Σ kept x / (n + 1e-7) and
// variance = Σ kept (x − mean)² / (n + 1e-7) over every axis but `axis` (n: the kept count,
// 1e-7 Keras's backend epsilon), which normalize every position, hidden ones too, and move
// the moving statistics as above. Composed from elementwise ops and reductions (each with
// a CPU and a CUDA kernel) and a training_select with the inference form, the gradient
// taken through the masked moments by autodiff. Inference ignores the mask. The output
// carries the mask used (supports_masking).
#pragma once

#include <string>

#include "layers/call_tensors.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct BatchNormalizationOptions {  // Keras signature order
  int axis = -1;
  double momentum = 0.99;
  double epsilon = 1e-3;
  bool center = true;
  bool scale = true;
  Initializer beta_initializer = "zeros";
  Initializer gamma_initializer = "ones";
  Initializer moving_mean_initializer = "zeros";
  Initializer moving_variance_initializer = "ones";
  Regularizer beta_regularizer;
  Regularizer gamma_regularizer;
  Constraint beta_constraint;
  Constraint gamma_constraint;
  std::string name;

  // axis: an int, or tf.keras's one-element list ([3]). Renormalization, virtual batches and
  // `adjustment` (tf.keras) are refused.
  static constexpr auto keras_fields() {
    using O = BatchNormalizationOptions;
    return std::tuple{keras_field("axis", &O::axis, Spelling::unwrap1),
                      keras_field("momentum", &O::momentum),
                      keras_field("epsilon", &O::epsilon),
                      keras_field("center", &O::center),
                      keras_field("scale", &O::scale),
                      keras_field("beta_initializer", &O::beta_initializer),
                      keras_field("gamma_initializer", &O::gamma_initializer),
                      keras_field("moving_mean_initializer", &O::moving_mean_initializer),
                      keras_field("moving_variance_initializer", &O::moving_variance_initializer),
                      keras_field("beta_regularizer", &O::beta_regularizer),
                      keras_field("gamma_regularizer", &O::gamma_regularizer),
                      keras_field("beta_constraint", &O::beta_constraint),
                      keras_field("gamma_constraint", &O::gamma_constraint),
                      keras_unmodeled("synchronized", "false"),
                      keras_refused("renorm", "false").unwritten().because("batch renormalization"),
                      keras_unmodeled("renorm_clipping").unwritten(),  // renorm's, which is refused
                      keras_unmodeled("renorm_momentum", "0.99").unwritten(),
                      keras_refused("virtual_batch_size").unwritten(),
                      keras_refused("adjustment").unwritten()};
  }
};

// The call's arguments after the inputs (Keras's call(inputs, training=None, mask=None);
// training is the program's mode).
struct BatchNormalizationCall {
  KerasTensor mask;  // undefined: the input's own mask, if any
};

class BatchNormalizationImpl : public LayerImpl, public TakesTensorArguments {
 public:
  explicit BatchNormalizationImpl(BatchNormalizationOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::float32_rounded_inputs; }
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  std::vector<std::string> call_argument_names() const override { return {"mask"}; }
  std::vector<TensorArgument> tensor_arguments() const override { return {{"mask", "mask", -1}}; }

  BatchNormalizationOptions options;
  Variable gamma, beta, moving_mean, moving_variance;

 private:
  // y = training_select(normalized with the masked batch moments, with the moving ones),
  // and the moving statistics' training-only updates.
  Output normalize_masked(Graph& graph, Output x, Output mask, int axis, Output gamma_out, Output beta_out);
  // moving = moving·momentum + batch·(1 − momentum), in training only.
  void move_statistics(Graph& graph, Output batch_mean, Output batch_variance);
};

class BatchNormalization : public Layer {
 public:
  explicit BatchNormalization(BatchNormalizationOptions options = {});
  using Layer::operator();
  KerasTensor operator()(const KerasTensor& input, BatchNormalizationCall call) const;
};

}  // namespace strata::layers
