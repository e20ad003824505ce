#include "losses/ctc_loss.h"

#include <memory>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/ctc_ops.h"

namespace strata::losses {

Output ctc(Output y_true, Output y_pred) {
  if (y_true.shape().rank() != 2)
    throw ValueError("ctc: y_true must be the label sequences (batch_size, max_length), got " +
                     y_true.shape().to_string());
  if (y_pred.shape().rank() != 3)
    throw ValueError("ctc: y_pred must be the logits (batch_size, max_length, num_classes), got " +
                     y_pred.shape().to_string());
  // Keras: label_length = sum(y_true != 0), and every sample's logits whole.
  const Output label_length = ops::reduce_sum(ops::not_equal(y_true, ops::zeros_like(y_true)), {-1});
  const Output logit_length = ops::reduce_sum(ops::ones_like(ops::reduce_max(y_pred, {-1})), {-1});
  return ops::ctc_loss(y_true, y_pred, label_length, logit_length, /*blank=*/0);
}

namespace {

class CTCLossImpl : public LossImpl {
 public:
  explicit CTCLossImpl(CTCOptions o) : options(std::move(o)) { reduction = parse_reduction(options.reduction); }
  Output per_sample(Output y_true, Output y_pred) const override { return ctc(y_true, y_pred); }
  std::string name() const override { return options.name; }
  TensorSpec target_spec(const TensorSpec& prediction) const override {
    return {Shape({prediction.shape.rank() > 0 ? prediction.shape.dims()[0] : kUnknownDim, kUnknownDim}),
            DType::float32};
  }
  CTCOptions options;
};

}  // namespace

CTC::CTC(CTCOptions options) : Loss(std::make_shared<CTCLossImpl>(std::move(options))) {}

}  // namespace strata::losses
