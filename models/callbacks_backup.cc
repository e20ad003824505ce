#include "models/callbacks_backup.h"

#include <filesystem>

#include "core/error.h"
#include "distribution/data_parallel.h"
#include "models/model.h"
#include "models/model_files.h"

namespace strata::callbacks {

namespace {

class BackupAndRestoreImpl : public CallbackImpl {
 public:
  BackupAndRestoreImpl(std::string dir, BackupAndRestoreOptions o) : dir_(std::move(dir)), o_(std::move(o)) {
    if (auto* s = std::get_if<std::string>(&o_.save_freq)) {
      if (*s != "epoch") throw ValueError("BackupAndRestore: save_freq must be 'epoch' or a number of batches");
    } else if (std::get<std::int64_t>(o_.save_freq) <= 0) {
      throw ValueError("BackupAndRestore: save_freq must be positive");
    }
  }

  void on_train_begin(Logs&) override {
    batches_ = 0;
    if (std::filesystem::exists(file())) model().model().resume_from = model_files().load_checkpoint(model(), file());
  }
  void on_train_batch_end(std::int64_t, Logs&) override {
    if (auto* n = std::get_if<std::int64_t>(&o_.save_freq); n && ++batches_ % *n == 0) save();
  }
  void on_epoch_end(int, Logs&) override {
    if (std::holds_alternative<std::string>(o_.save_freq)) save();
  }
  void on_train_end(Logs&) override {
    if (o_.delete_checkpoint && distribution::is_chief()) std::filesystem::remove(file());
  }

 private:
  std::string file() const { return dir_ + "/training_state.strata"; }
  // Under data-parallel training every process restores from the backup (they hold the
  // same state) and only process 0 writes it.
  void save() {
    if (!distribution::is_chief()) return;
    std::filesystem::create_directories(dir_);
    model_files().save_checkpoint(model(), file(), model().model().fit_state);
  }
  std::string dir_;
  BackupAndRestoreOptions o_;
  std::int64_t batches_ = 0;
};

}  // namespace

Callback BackupAndRestore(const std::string& backup_dir, BackupAndRestoreOptions options) {
  return Callback(std::make_shared<BackupAndRestoreImpl>(backup_dir, std::move(options)));
}

}  // namespace strata::callbacks
