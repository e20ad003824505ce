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
// Batch renormalization (renorm=true, Keras 3.15's): in training the batch's moments
// normalize as above, then the result is corrected towards the running statistics:
// (x̂·r + d)·γ + β, r = σ_B / σ_R and d = (μ_B − μ_R) / σ_R (σ = sqrt(variance + ε); μ_R,
// σ_R the renorm_mean and renorm_stddev weights, σ_R at least sqrt(ε)), r and d clipped by
// renorm_clipping's rmin/rmax/dmax and held constant for the gradient. The step then moves
// renorm_mean/renorm_stddev by renorm_momentum and moving_mean/moving_stddev by momentum,
// and moving_variance becomes max(moving_stddev² − ε, 0), which inference uses. Three more
// non-trainable weights, after the four: moving_stddev, renorm_mean, renorm_stddev.
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

#include <optional>
#include <string>
#include <utility>

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
  bool renorm = false;
  // Keys rmax, rmin, dmax (each optional): r clipped to [rmin, rmax], d to [−dmax, dmax].
  // With renorm, an unset clipping is the empty one, as Keras writes it.
  std::optional<NumberMap> renorm_clipping;
  double renorm_momentum = 0.99;
  // Keras's moments all-reduced over tf.distribute's replicas: in one process the batch's
  // own, in Keras's form (E[x²] − E[x]², ops::moments); under a DataParallel
  // of several processes refused (each would use its own share's).
  bool synchronized = false;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  // axis: an int, or tf.keras's one-element list ([3]). tf.keras's virtual batches and
  // `adjustment` are refused.
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
                      keras_field("synchronized", &O::synchronized),
                      keras_field("renorm", &O::renorm),
                      keras_field("renorm_clipping", &O::renorm_clipping),
                      keras_field("renorm_momentum", &O::renorm_momentum),
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
  std::string data_parallel_refusal() const override;

  BatchNormalizationOptions options;
  Variable gamma, beta, moving_mean, moving_variance;
  Variable moving_stddev, renorm_mean, renorm_stddev;  // with renorm only

 private:
  // y = training_select(normalized with the batch moments (masked, or synchronized's form),
  // with the moving ones), and the moving statistics' training-only updates.
  Output normalize_composed(Graph& graph, Output x, Output mask, int axis, Output gamma_out, Output beta_out);
  // Training with renorm: the batch's moments (masked when a mask is given) corrected by r
  // and d; training_select with the inference form; the five statistics' updates.
  Output renormalize(Graph& graph, Output x, Output mask, int axis, Output gamma_out, Output beta_out);
  // The batch's mean and biased variance over every axis but `axis`, shaped (C,); Keras's
  // masked moments when `mask` is valid, else with synchronized its all-reduced form.
  std::pair<Output, Output> batch_moments(Graph& graph, Output x, Output mask, int axis) const;
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
