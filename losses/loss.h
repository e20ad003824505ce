// Loss: a handle to a Keras loss. Calling it on symbolic (y_true, y_pred[, sample_weight])
// adds graph nodes computing the reduced loss, so training never calls back to the host.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/graph.h"

namespace strata::losses {

// Keras 3's reduction names: "sum_over_batch_size" (default; "mean" is the same),
// "sum", "none", and "mean_with_sample_weight" (divides by the sum of the weights).
enum class Reduction { sum_over_batch_size, sum, none, mean_with_sample_weight };
// Throws ValueError listing the valid names.
Reduction parse_reduction(const std::string& name);
std::string to_string(Reduction reduction);

class LossImpl {
 public:
  virtual ~LossImpl() = default;
  // Per-sample losses (Keras's loss function: e.g. mean over the last axis for MSE).
  virtual Output per_sample(Output y_true, Output y_pred) const = 0;
  // Keras's config "name", e.g. "mean_squared_error".
  virtual std::string name() const = 0;
  // True when targets are class indices shaped like the predictions without their last
  // axis (sparse categorical crossentropy); false when they are shaped like predictions.
  virtual bool sparse_targets() const { return false; }
  // The targets a compiled model feeds this loss for `prediction`: class indices (int64)
  // shaped like the prediction without its last axis for a sparse loss, else float32 shaped
  // like the prediction; a loss whose targets have a shape of their own (CTC's label
  // sequences) says so here.
  virtual TensorSpec target_spec(const TensorSpec& prediction) const;
  Reduction reduction = Reduction::sum_over_batch_size;
};

class Loss {
 public:
  Loss() = default;
  explicit Loss(std::shared_ptr<const LossImpl> impl) : impl_(std::move(impl)) {}
  bool defined() const { return impl_ != nullptr; }
  // Reduced loss: sum(w * per_sample) / number_of_elements for sum_over_batch_size.
  Output operator()(Output y_true, Output y_pred, Output sample_weight = {}) const;
  Output per_sample(Output y_true, Output y_pred) const { return impl().per_sample(y_true, y_pred); }
  std::string name() const { return impl().name(); }
  bool sparse_targets() const { return impl().sparse_targets(); }
  TensorSpec target_spec(const TensorSpec& prediction) const { return impl().target_spec(prediction); }
  const LossImpl& impl() const;

 private:
  std::shared_ptr<const LossImpl> impl_;
};

// A loss from a function of symbolic tensors (Keras's LossFunctionWrapper): `fn` returns
// per-sample values (e.g. a mean over the last axis) built from ops, so the loss is
// graph nodes like any built-in one, never a host callback:
//   losses::Loss custom = losses::from_function("my_loss", [](Output t, Output p) {
//     return ops::reduce_mean(ops::abs(ops::sub(t, p)), {-1});
//   });
Loss from_function(const std::string& name, std::function<Output(Output y_true, Output y_pred)> fn,
                   const std::string& reduction = "sum_over_batch_size");

// Resolves Keras's string identifiers ("mse", "mean_squared_error",
// "sparse_categorical_crossentropy", ...); throws ValueError listing the known names.
Loss get(const std::string& identifier);

}  // namespace strata::losses
