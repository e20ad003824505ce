#include "models/callbacks.h"

#include <chrono>
#include <cmath>
#include <iostream>

#include "core/error.h"
#include "distribution/data_parallel.h"
#include "models/model.h"

namespace strata {

Model& CallbackImpl::model() const {
  if (!model_) throw Error("callback: model() is only available while fit / evaluate / predict runs");
  return *model_;
}

CallbackImpl& Callback::impl() const {
  if (!impl_) throw ValueError("use of an undefined Callback (default-constructed handle)");
  return *impl_;
}

CallbackList::CallbackList(const std::vector<Callback>& callbacks, Model& model, const CallbackParams& params)
    : callbacks_(callbacks) {
  if (!distribution::is_chief()) {
    std::erase_if(callbacks_, [](const Callback& c) { return c.impl().chief_only(); });
  }
  for (auto& c : callbacks_) {
    c.impl().set_model(&model);
    c.impl().params = params;
  }
}

CallbackList::~CallbackList() {
  for (auto& c : callbacks_) c.impl().set_model(nullptr);
}

#define STRATA_FORWARD(hook, ...)                         \
  for (auto& c : callbacks_) c.impl().hook(__VA_ARGS__);

void CallbackList::on_train_begin(Logs& logs) { STRATA_FORWARD(on_train_begin, logs) }
void CallbackList::on_train_end(Logs& logs) { STRATA_FORWARD(on_train_end, logs) }
void CallbackList::on_epoch_begin(int epoch, Logs& logs) { STRATA_FORWARD(on_epoch_begin, epoch, logs) }
void CallbackList::on_epoch_end(int epoch, Logs& logs) { STRATA_FORWARD(on_epoch_end, epoch, logs) }
void CallbackList::on_train_batch_begin(std::int64_t b, Logs& logs) { STRATA_FORWARD(on_train_batch_begin, b, logs) }
void CallbackList::on_train_batch_end(std::int64_t b, Logs& logs) { STRATA_FORWARD(on_train_batch_end, b, logs) }
void CallbackList::on_test_begin(Logs& logs) { STRATA_FORWARD(on_test_begin, logs) }
void CallbackList::on_test_end(Logs& logs) { STRATA_FORWARD(on_test_end, logs) }
void CallbackList::on_test_batch_begin(std::int64_t b, Logs& logs) { STRATA_FORWARD(on_test_batch_begin, b, logs) }
void CallbackList::on_test_batch_end(std::int64_t b, Logs& logs) { STRATA_FORWARD(on_test_batch_end, b, logs) }
void CallbackList::on_predict_begin(Logs& logs) { STRATA_FORWARD(on_predict_begin, logs) }
void CallbackList::on_predict_end(Logs& logs) { STRATA_FORWARD(on_predict_end, logs) }
void CallbackList::on_predict_batch_begin(std::int64_t b, Logs& logs) {
  STRATA_FORWARD(on_predict_batch_begin, b, logs)
}
void CallbackList::on_predict_batch_end(std::int64_t b, Logs& logs) { STRATA_FORWARD(on_predict_batch_end, b, logs) }

#undef STRATA_FORWARD

std::string resolve_monitor_mode(const std::string& mode, const std::string& monitor, const std::string& callback) {
  if (mode == "min" || mode == "max") return mode;
  if (mode != "auto") {
    std::cerr << "Warning: " << callback << " mode '" << mode << "' is unknown, fallback to auto mode.\n";
  }
  std::string name = monitor.rfind("val_", 0) == 0 ? monitor.substr(4) : monitor;
  for (const char* up : {"acc", "auc", "precision", "recall", "f1", "r2", "fmeasure"}) {
    if (name.find(up) != std::string::npos) return "max";
  }
  return "min";
}

namespace callbacks {

namespace {

class LambdaImpl : public CallbackImpl {
 public:
  explicit LambdaImpl(LambdaCallbackOptions o) : o_(std::move(o)) {}
  void on_epoch_begin(int e, Logs& logs) override {
    if (o_.on_epoch_begin) o_.on_epoch_begin(e, logs);
  }
  void on_epoch_end(int e, Logs& logs) override {
    if (o_.on_epoch_end) o_.on_epoch_end(e, logs);
  }
  void on_train_batch_begin(std::int64_t b, Logs& logs) override {
    if (o_.on_train_batch_begin) o_.on_train_batch_begin(b, logs);
  }
  void on_train_batch_end(std::int64_t b, Logs& logs) override {
    if (o_.on_train_batch_end) o_.on_train_batch_end(b, logs);
  }
  void on_train_begin(Logs& logs) override {
    if (o_.on_train_begin) o_.on_train_begin(logs);
  }
  void on_train_end(Logs& logs) override {
    if (o_.on_train_end) o_.on_train_end(logs);
  }

 private:
  LambdaCallbackOptions o_;
};

class TerminateOnNaNImpl : public CallbackImpl {
 public:
  explicit TerminateOnNaNImpl(TerminateOnNaNOptions o) : o_(o) {}
  void on_train_batch_end(std::int64_t batch, Logs& logs) override {
    auto it = logs.find("loss");
    if (it == logs.end() || std::isfinite(it->second)) return;
    if (o_.raise_error) {
      throw ValueError("Loss is NaN or infinite at batch " + std::to_string(batch) + "; training stopped");
    }
    std::cout << "Batch " << batch << ": Invalid loss, terminating training\n";
    model().set_stop_training(true);
  }

 private:
  TerminateOnNaNOptions o_;
};

class LearningRateSchedulerImpl : public CallbackImpl {
 public:
  LearningRateSchedulerImpl(std::function<double(int, double)> schedule, LearningRateSchedulerOptions o)
      : schedule_(std::move(schedule)), o_(o) {}
  void on_epoch_begin(int epoch, Logs& logs) override {
    auto opt = model().optimizer();
    double lr = schedule_(epoch, opt.learning_rate());
    if (!std::isfinite(lr)) throw ValueError("LearningRateScheduler: the schedule returned a non-finite rate");
    opt.set_learning_rate(static_cast<float>(lr));
    if (o_.verbose > 0) {
      std::cout << "\nEpoch " << epoch + 1 << ": LearningRateScheduler setting learning rate to " << lr << ".\n";
    }
  }
  void on_epoch_end(int epoch, Logs& logs) override { logs["learning_rate"] = model().optimizer().learning_rate(); }

 private:
  std::function<double(int, double)> schedule_;
  LearningRateSchedulerOptions o_;
};

class TimeLimitImpl : public CallbackImpl {
 public:
  TimeLimitImpl(double seconds, TimeLimitOptions o) : seconds_(seconds), o_(o) {}
  void on_train_begin(Logs&) override { start_ = std::chrono::steady_clock::now(); }
  void on_train_batch_end(std::int64_t, Logs&) override {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (elapsed >= seconds_ && !model().stop_training()) {
      model().set_stop_training(true);
      if (o_.verbose > 0) std::cout << "Timed stopping: " << seconds_ << " seconds have passed.\n";
    }
  }

 private:
  double seconds_;
  TimeLimitOptions o_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

Callback LambdaCallback(LambdaCallbackOptions options) {
  return Callback(std::make_shared<LambdaImpl>(std::move(options)));
}

Callback TerminateOnNaN(TerminateOnNaNOptions options) {
  return Callback(std::make_shared<TerminateOnNaNImpl>(options));
}

Callback LearningRateScheduler(std::function<double(int, double)> schedule, LearningRateSchedulerOptions options) {
  if (!schedule) throw ValueError("LearningRateScheduler: the schedule function is empty");
  return Callback(std::make_shared<LearningRateSchedulerImpl>(std::move(schedule), options));
}

Callback TimeLimit(double seconds, TimeLimitOptions options) {
  if (!(seconds > 0)) throw ValueError("TimeLimit: seconds must be positive, got " + std::to_string(seconds));
  return Callback(std::make_shared<TimeLimitImpl>(seconds, options));
}

}  // namespace callbacks
}  // namespace strata
