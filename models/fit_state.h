// FitState: where a fit stands, enough to resume it exactly (with the model's and the
// optimizer's variables): the epoch and the step in it, the batch stream's position
// (pass and batches taken from it; a pass is one epoch_order of the arrays or one
// iteration of a Dataset), the arrays' shuffle seed, and the train-step counter that
// keys dropout masks. fit keeps ModelImpl::fit_state current after every batch; a
// callback that sets ModelImpl::resume_from in on_train_begin makes fit continue there
// (callbacks::BackupAndRestore does both).
#pragma once

#include <cstdint>

namespace strata {

struct FitState {
  int epoch = 0;                   // the epoch in progress
  std::int64_t step = 0;           // batches of it already trained
  std::uint64_t pass = 0;          // the batch stream's pass
  std::int64_t pass_batch = 0;     // batches taken from that pass
  std::uint64_t shuffle_seed = 0;  // array inputs' shuffle seed
  std::int64_t train_steps = 0;    // train steps run by the compiled model (dropout's step)
};

}  // namespace strata
