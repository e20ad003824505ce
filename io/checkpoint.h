// Training checkpoints: one HDF5 file holding the model's weights, the optimizer's
// variables (iterations, learning rate, slots: optimizers::Optimizer::variables()), the
// epoch, the step and the RNG state, written atomically (a temporary file beside the
// target, fsynced, renamed over it): a save interrupted at any point, even by SIGKILL,
// leaves the previous checkpoint intact.
//
// Layout: /weights/<i> and /optimizer/<i> datasets in order, each group with a string
// list attribute `names` (variable paths); /state/{epoch, step, seed, shuffle_seed,
// stream, pass, pass_batch, train_steps} int64 scalars; root attrs `format` =
// "strata-checkpoint" and `version` = "1". pass, pass_batch and train_steps were added
// later: a file without them loads with pass = epoch, pass_batch = step, train_steps = 0.
// Loading matches variables by position (names are recorded for people: auto names differ
// between processes) and checks every count and shape before assigning anything.
//
// callbacks::BackupAndRestore's backups are checkpoints: checkpoint_state(fit) and
// fit_state(state) convert a fit's position (models/fit_state.h).
#pragma once

#include <cstdint>
#include <string>

#include "models/fit_state.h"
#include "models/model.h"
#include "optimizers/optimizer.h"

namespace strata::io {

struct CheckpointState {
  std::int64_t epoch = 0;  // epochs completed
  std::int64_t step = 0;   // steps completed within the epoch (resume mid-epoch)
  // RNG: the global seed (set_random_seed), the shuffle seed of the run and a counter
  // for the caller's own stream; restoring the global seed is the caller's choice.
  std::uint64_t seed = 0;
  std::uint64_t shuffle_seed = 0;
  std::uint64_t stream = 0;
  // The batch stream's position (a pass is one epoch_order of arrays or one iteration of
  // a Dataset; pass_batch batches were taken from it) and the compiled model's train-step
  // counter (it keys dropout masks).
  std::uint64_t pass = 0;
  std::int64_t pass_batch = 0;
  std::int64_t train_steps = 0;
};

CheckpointState checkpoint_state(const FitState& fit);
FitState fit_state(const CheckpointState& state);

// `optimizer` may be undefined (weights only). Throws ValueError for duplicate names,
// IOError when writing fails (the previous file is then untouched).
void save_checkpoint(const std::string& path, const Model& model,
                     const optimizers::Optimizer& optimizer, const CheckpointState& state);
// Restores weights (and the optimizer's variables when `optimizer` is defined; it must
// be built, e.g. by compile) and returns the saved state. Throws IOError for a missing or
// corrupt file, and ValueError naming the first mismatching variable (index, both paths
// and shapes) before assigning anything.
CheckpointState load_checkpoint(const std::string& path, const Model& model,
                                const optimizers::Optimizer& optimizer);

// The same with the optimizer the compiled model trains with (weights only when the model
// is not compiled).
void save_checkpoint(const std::string& path, const Model& model, const CheckpointState& state);
CheckpointState load_checkpoint(const std::string& path, const Model& model);

}  // namespace strata::io
