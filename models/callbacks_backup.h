// BackupAndRestore (Keras's fault-tolerance callback): saves the training state (model
// weights, optimizer variables, fit position) as a checkpoint (io/checkpoint.h, which it
// reaches through models/model_files.h) in backup_dir/training_state.strata every epoch
// or every save_freq batches, and at the start of a fit restores it if present, so a fit
// interrupted by a crash continues in a fresh process at the batch after the last backup,
// with the batches (shuffling included) it would have seen. The backup is deleted when
// training ends normally (delete_checkpoint).
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "models/callbacks.h"

namespace strata::callbacks {

struct BackupAndRestoreOptions {
  std::variant<std::string, std::int64_t> save_freq = std::string("epoch");
  bool delete_checkpoint = true;
};
Callback BackupAndRestore(const std::string& backup_dir, BackupAndRestoreOptions options = {});

}  // namespace strata::callbacks
