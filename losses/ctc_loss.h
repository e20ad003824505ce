// Keras's CTC loss (keras.losses.CTC, "ctc"): y_true the label sequences (batch, max_length),
// padded with 0, the blank, which no label may be; y_pred the logits (batch, steps, classes),
// not normalized. Per sample, ctc_loss (core/ops/ctc_ops.h) of its labels (as many as are
// not 0) given every step, as Keras computes it. Its targets have a length of their own, so
// a compiled model feeds them as (batch, None).
#pragma once

#include <string>

#include "losses/loss.h"

namespace strata::losses {

// Per-sample CTC losses, (batch,).
Output ctc(Output y_true, Output y_pred);

struct CTCOptions {
  std::string reduction = "sum_over_batch_size";
  std::string name = "ctc";
};
class CTC : public Loss {
 public:
  explicit CTC(CTCOptions options = {});
};

}  // namespace strata::losses
