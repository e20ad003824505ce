// Callbacks: Keras's hooks into fit / evaluate / predict. A callback is a handle to a
// CallbackImpl; subclass CallbackImpl and override the hooks you need, or use
// LambdaCallback for ad-hoc functions. The model calls the hooks in Keras 3's order:
//
//   on_train_begin
//     on_epoch_begin(e)
//       on_train_batch_begin(b) / on_train_batch_end(b, running logs)   (each step)
//       [validation: on_test_begin, on_test_batch_begin/end, on_test_end]
//     on_epoch_end(e, logs incl. val_*)
//   on_train_end(last epoch's logs)
//
// Setting model.set_stop_training(true) ends fit after the current batch's hooks (the
// epoch still ends with on_epoch_end). Logs are mutable: a callback may add keys (as
// ReduceLROnPlateau adds "learning_rate") and later callbacks and History see them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace strata {

class Model;
using Logs = std::map<std::string, float>;

// What fit tells callbacks about the run (Keras's callback.params).
struct CallbackParams {
  int verbose = 1;
  int epochs = 1;
  std::int64_t steps = 0;
};

class CallbackImpl {
 public:
  virtual ~CallbackImpl() = default;
  // The model being trained; valid from on_*_begin to on_*_end.
  Model& model() const;
  void set_model(Model* model) { model_ = model; }
  CallbackParams params;

  virtual void on_train_begin(Logs& logs) {}
  virtual void on_train_end(Logs& logs) {}
  virtual void on_epoch_begin(int epoch, Logs& logs) {}
  virtual void on_epoch_end(int epoch, Logs& logs) {}
  // Keras's on_batch_begin / on_batch_end: what on_train_batch_begin / _end call unless
  // they are overridden.
  virtual void on_batch_begin(std::int64_t batch, Logs& logs) {}
  virtual void on_batch_end(std::int64_t batch, Logs& logs) {}
  virtual void on_train_batch_begin(std::int64_t batch, Logs& logs) { on_batch_begin(batch, logs); }
  virtual void on_train_batch_end(std::int64_t batch, Logs& logs) { on_batch_end(batch, logs); }
  virtual void on_test_begin(Logs& logs) {}
  virtual void on_test_end(Logs& logs) {}
  virtual void on_test_batch_begin(std::int64_t batch, Logs& logs) {}
  virtual void on_test_batch_end(std::int64_t batch, Logs& logs) {}
  virtual void on_predict_begin(Logs& logs) {}
  virtual void on_predict_end(Logs& logs) {}
  virtual void on_predict_batch_begin(std::int64_t batch, Logs& logs) {}
  virtual void on_predict_batch_end(std::int64_t batch, Logs& logs) {}

  // A callback that only writes files (logs, checkpoints) returns true: under
  // data-parallel training only process 0 runs it (distribution/data_parallel.h).
  virtual bool chief_only() const { return false; }

 private:
  Model* model_ = nullptr;
};

class Callback {
 public:
  Callback() = default;
  explicit Callback(std::shared_ptr<CallbackImpl> impl) : impl_(std::move(impl)) {}
  bool defined() const { return impl_ != nullptr; }
  CallbackImpl& impl() const;

 private:
  std::shared_ptr<CallbackImpl> impl_;
};

// Calls every callback's hook in list order (Keras's CallbackList).
class CallbackList {
 public:
  CallbackList(const std::vector<Callback>& callbacks, Model& model, const CallbackParams& params);
  ~CallbackList();
  void on_train_begin(Logs& logs);
  void on_train_end(Logs& logs);
  void on_epoch_begin(int epoch, Logs& logs);
  void on_epoch_end(int epoch, Logs& logs);
  void on_train_batch_begin(std::int64_t batch, Logs& logs);
  void on_train_batch_end(std::int64_t batch, Logs& logs);
  void on_test_begin(Logs& logs);
  void on_test_end(Logs& logs);
  void on_test_batch_begin(std::int64_t batch, Logs& logs);
  void on_test_batch_end(std::int64_t batch, Logs& logs);
  void on_predict_begin(Logs& logs);
  void on_predict_end(Logs& logs);
  void on_predict_batch_begin(std::int64_t batch, Logs& logs);
  void on_predict_batch_end(std::int64_t batch, Logs& logs);
  bool empty() const { return callbacks_.empty(); }

 private:
  std::vector<Callback> callbacks_;
};

namespace callbacks {

// Ad-hoc hooks (Keras's LambdaCallback); unset functions do nothing.
struct LambdaCallbackOptions {
  std::function<void(int, Logs&)> on_epoch_begin;
  std::function<void(int, Logs&)> on_epoch_end;
  std::function<void(std::int64_t, Logs&)> on_train_batch_begin;
  std::function<void(std::int64_t, Logs&)> on_train_batch_end;
  std::function<void(Logs&)> on_train_begin;
  std::function<void(Logs&)> on_train_end;
};
Callback LambdaCallback(LambdaCallbackOptions options);

// Stops training when the batch's "loss" is NaN or infinite (Keras's TerminateOnNaN);
// raise_error: throw ValueError instead.
struct TerminateOnNaNOptions {
  bool raise_error = false;
};
Callback TerminateOnNaN(TerminateOnNaNOptions options = {});

// Sets the optimizer's learning rate at the start of every epoch (0-based) to
// schedule(epoch, current_rate) (Keras's LearningRateScheduler). The rate is the
// optimizer's learning_rate variable: no recompilation. Adds "learning_rate" to the
// epoch's logs, as Keras 3 does.
struct LearningRateSchedulerOptions {
  int verbose = 0;
};
Callback LearningRateScheduler(std::function<double(int epoch, double lr)> schedule,
                               LearningRateSchedulerOptions options = {});

// Stops training once `seconds` of wall-clock time have passed since on_train_begin
// (checked after every batch, like Keras's keras_cv/tfa TimeStopping but per batch);
// the interrupted epoch still ends with on_epoch_end.
struct TimeLimitOptions {
  int verbose = 0;
};
Callback TimeLimit(double seconds, TimeLimitOptions options = {});

}  // namespace callbacks

// "min" or "max" for a monitored key under mode "auto" (Keras 3: losses and errors are
// minimized; accuracy, AUC, precision, recall, F1, R2 maximized; otherwise min).
std::string resolve_monitor_mode(const std::string& mode, const std::string& monitor, const std::string& callback);

}  // namespace strata
