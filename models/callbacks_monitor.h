// Callbacks that watch a monitored log value (keras-spec §1.8): EarlyStopping,
// ReduceLROnPlateau and ModelCheckpoint. A monitor key missing from the logs prints
// Keras's warning (listing the available keys) and the epoch is skipped, never a crash.
// mode "auto" minimizes losses and errors and maximizes accuracy, AUC, precision,
// recall, F1 and R2 (resolve_monitor_mode).
#pragma once

#include <optional>
#include <string>

#include "models/callbacks.h"

namespace strata::callbacks {

// Fields in the order of Keras's signature.
struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  double min_delta = 0.0;
  int patience = 0;
  int verbose = 0;
  std::string mode = "auto";
  std::optional<double> baseline;
  bool restore_best_weights = false;
  int start_from_epoch = 0;
};
// Keras 3's rule: each epoch (from start_from_epoch) wait += 1; if the value improves on
// the best by more than min_delta the best is kept and, when it also beats the baseline
// (if any), wait = 0; otherwise training stops once wait >= patience and epoch > 0.
// restore_best_weights: the weights of the best epoch are restored when it stops (or, if
// training ran out of epochs, at train end) when a best epoch was seen.
Callback EarlyStopping(EarlyStoppingOptions options = {});

struct ReduceLROnPlateauOptions {
  std::string monitor = "val_loss";
  double factor = 0.1;
  int patience = 10;
  int verbose = 0;
  std::string mode = "auto";
  double min_delta = 1e-4;
  int cooldown = 0;
  double min_lr = 0.0;
};
// new lr = max(lr·factor, min_lr) after `patience` epochs without improvement, then
// `cooldown` epochs without counting. Writes "learning_rate" into the epoch's logs.
Callback ReduceLROnPlateau(ReduceLROnPlateauOptions options = {});

struct ModelCheckpointOptions {
  std::string monitor = "val_loss";
  int verbose = 0;
  bool save_best_only = false;
  bool save_weights_only = false;
  std::string mode = "auto";
  std::string save_freq = "epoch";  // only "epoch" is supported
  std::optional<double> initial_value_threshold;
};
// Saves after every epoch (or only improvements with save_best_only) to `filepath`
// formatted with epoch = epoch + 1 and the log values: "ckpt-{epoch:02d}-{val_loss:.2f}
// .weights.h5". Only weights are saved (Model::save_weights; Keras 3 requires the
// suffix ".weights.h5" for that); full-model saving (.keras/.h5 with the config) is not
// available yet, so save_weights_only = false with a ".keras" path throws
// NotImplementedError at construction.
Callback ModelCheckpoint(const std::string& filepath, ModelCheckpointOptions options = {});

// Python str.format for the fields Keras's checkpoints use: {name}, {name:02d},
// {name:.2f}, {name:.4e}; `epoch` is an integer. Throws ValueError naming a key that is
// not in the logs (listing those that are).
std::string format_checkpoint_path(const std::string& pattern, int epoch, const Logs& logs);

}  // namespace strata::callbacks
