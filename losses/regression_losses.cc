#include "losses/regression_losses.h"

#include <functional>

#include "core/ops.h"
#include "losses/loss_utils.h"

namespace strata::losses {

namespace {

using LossFn = std::function<Output(Output, Output)>;

// Keras's LossFunctionWrapper around a per-sample function.
class FunctionLoss : public LossImpl {
 public:
  FunctionLoss(LossFn fn, std::string name, const std::string& reduction) : fn_(std::move(fn)), name_(std::move(name)) {
    this->reduction = parse_reduction(reduction);
  }
  Output per_sample(Output y_true, Output y_pred) const override { return fn_(y_true, y_pred); }
  std::string name() const override { return name_; }

 private:
  LossFn fn_;
  std::string name_;
};

}  // namespace

Output mean_squared_error(Output y_true, Output y_pred) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  return ops::reduce_mean(ops::square(ops::sub(t, p)), {-1});
}

Output mean_absolute_error(Output y_true, Output y_pred) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  return ops::reduce_mean(ops::abs(ops::sub(t, p)), {-1});
}

MeanSquaredError::MeanSquaredError(MeanSquaredErrorOptions options)
    : Loss(std::make_shared<FunctionLoss>(mean_squared_error, options.name, options.reduction)) {}

MeanAbsoluteError::MeanAbsoluteError(MeanAbsoluteErrorOptions options)
    : Loss(std::make_shared<FunctionLoss>(mean_absolute_error, options.name, options.reduction)) {}

}  // namespace strata::losses
