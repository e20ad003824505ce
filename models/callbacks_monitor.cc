#include "models/callbacks_monitor.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>

#include "core/error.h"
#include "models/model.h"

namespace strata::callbacks {

namespace {

// Keras's get_monitor_value: the value, or a warning listing what is there.
std::optional<float> monitor_value(const Logs& logs, const std::string& monitor, const std::string& callback) {
  auto it = logs.find(monitor);
  if (it != logs.end()) return it->second;
  std::string available;
  for (const auto& [k, v] : logs) available += (available.empty() ? "" : ",") + k;
  std::cerr << "Warning: " << callback << " conditioned on metric `" << monitor
            << "` which is not available. Available metrics are: " << available << "\n";
  return std::nullopt;
}

// Compares as Keras's monitor_op, with min_delta folded in (sign flipped for min).
struct Monitor {
  bool maximize = false;
  double min_delta = 0.0;
  bool improved(double current, double reference) const {
    return maximize ? current - min_delta > reference : current + min_delta < reference;
  }
  double worst() const {
    return maximize ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
};

Monitor make_monitor(const std::string& mode, const std::string& monitor, double min_delta, const char* callback) {
  Monitor m;
  m.maximize = resolve_monitor_mode(mode, monitor, callback) == "max";
  m.min_delta = std::fabs(min_delta);
  return m;
}

class EarlyStoppingImpl : public CallbackImpl {
 public:
  explicit EarlyStoppingImpl(EarlyStoppingOptions o)
      : o_(std::move(o)), monitor_(make_monitor(o_.mode, o_.monitor, o_.min_delta, "EarlyStopping")) {}

  void on_train_begin(Logs&) override {
    wait_ = 0;
    stopped_epoch_ = 0;
    best_ = monitor_.worst();
    best_weights_.clear();
    best_epoch_ = 0;
  }

  void on_epoch_end(int epoch, Logs& logs) override {
    auto current = monitor_value(logs, o_.monitor, "Early stopping");
    if (!current || epoch < o_.start_from_epoch) return;
    if (o_.restore_best_weights && best_weights_.empty()) best_weights_ = model().get_weights();
    ++wait_;
    if (monitor_.improved(*current, best_)) {
      best_ = *current;
      best_epoch_ = epoch;
      if (o_.restore_best_weights) best_weights_ = model().get_weights();
      if (!o_.baseline || monitor_.improved(*current, *o_.baseline)) wait_ = 0;
      return;
    }
    if (wait_ >= o_.patience && epoch > 0) {
      stopped_epoch_ = epoch;
      model().set_stop_training(true);
    }
  }

  void on_train_end(Logs&) override {
    if (stopped_epoch_ > 0 && o_.verbose > 0) std::cout << "Epoch " << stopped_epoch_ + 1 << ": early stopping\n";
    if (o_.restore_best_weights && !best_weights_.empty()) {
      if (o_.verbose > 0) {
        std::cout << "Restoring model weights from the end of the best epoch: " << best_epoch_ + 1 << ".\n";
      }
      model().set_weights(best_weights_);
    }
  }

 private:
  EarlyStoppingOptions o_;
  Monitor monitor_;
  int wait_ = 0, stopped_epoch_ = 0, best_epoch_ = 0;
  double best_ = 0;
  std::vector<Tensor> best_weights_;
};

class ReduceLROnPlateauImpl : public CallbackImpl {
 public:
  explicit ReduceLROnPlateauImpl(ReduceLROnPlateauOptions o)
      : o_(std::move(o)), monitor_(make_monitor(o_.mode, o_.monitor, o_.min_delta, "ReduceLROnPlateau")) {
    if (o_.factor >= 1.0) throw ValueError("ReduceLROnPlateau does not support a factor >= 1.0, got " +
                                           std::to_string(o_.factor));
  }
  void on_train_begin(Logs&) override {
    best_ = monitor_.worst();
    wait_ = 0;
    cooldown_counter_ = 0;
  }
  void on_epoch_end(int epoch, Logs& logs) override {
    auto opt = model().optimizer();
    logs["learning_rate"] = opt.learning_rate();
    auto current = monitor_value(logs, o_.monitor, "Learning rate reduction");
    if (!current) return;
    if (cooldown_counter_ > 0) {
      --cooldown_counter_;
      wait_ = 0;
    }
    if (monitor_.improved(*current, best_)) {
      best_ = *current;
      wait_ = 0;
    } else if (cooldown_counter_ <= 0) {
      ++wait_;
      if (wait_ >= o_.patience) {
        double old_lr = opt.learning_rate();
        if (old_lr > o_.min_lr) {
          double new_lr = std::max(old_lr * o_.factor, o_.min_lr);
          opt.set_learning_rate(static_cast<float>(new_lr));
          if (o_.verbose > 0) {
            std::cout << "\nEpoch " << epoch + 1 << ": ReduceLROnPlateau reducing learning rate to " << new_lr
                      << ".\n";
          }
          cooldown_counter_ = o_.cooldown;
          wait_ = 0;
        }
      }
    }
  }

 private:
  ReduceLROnPlateauOptions o_;
  Monitor monitor_;
  double best_ = 0;
  int wait_ = 0, cooldown_counter_ = 0;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class ModelCheckpointImpl : public CallbackImpl {
 public:
  ModelCheckpointImpl(std::string filepath, ModelCheckpointOptions o)
      : filepath_(std::move(filepath)), o_(std::move(o)),
        monitor_(make_monitor(o_.mode, o_.monitor, 0.0, "ModelCheckpoint")) {
    if (o_.save_freq != "epoch") {
      throw NotImplementedError("ModelCheckpoint: save_freq '" + o_.save_freq + "' is not supported (only \"epoch\")");
    }
    if (o_.save_weights_only) {
      if (!ends_with(filepath_, ".weights.h5") && !ends_with(filepath_, ".h5")) {
        throw ValueError("When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in "
                         "`.weights.h5` (Keras 3 format) or `.h5`. Received: filepath=" + filepath_);
      }
    } else if (!ends_with(filepath_, ".keras") && !ends_with(filepath_, ".h5")) {
      throw ValueError("The filepath provided must end in `.keras` (Keras model format) or `.h5` (tf.keras HDF5). "
                       "Received: filepath=" + filepath_);
    }
    best_ = o_.initial_value_threshold ? *o_.initial_value_threshold : monitor_.worst();
  }

  bool chief_only() const override { return true; }

  void on_epoch_end(int epoch, Logs& logs) override {
    std::string path = format_checkpoint_path(filepath_, epoch + 1, logs);
    if (o_.save_best_only) {
      auto current = monitor_value(logs, o_.monitor, "Can save best model only with " + o_.monitor + " available,");
      if (!current) return;
      if (!monitor_.improved(*current, best_)) {
        if (o_.verbose > 0) {
          std::cout << "\nEpoch " << epoch + 1 << ": " << o_.monitor << " did not improve from " << best_ << "\n";
        }
        return;
      }
      if (o_.verbose > 0) {
        std::cout << "\nEpoch " << epoch + 1 << ": " << o_.monitor << " improved from " << best_ << " to " << *current
                  << ", saving model to " << path << "\n";
      }
      best_ = *current;
    } else if (o_.verbose > 0) {
      std::cout << "\nEpoch " << epoch + 1 << ": saving model to " << path << "\n";
    }
    if (o_.save_weights_only) {
      model().save_weights(path);
    } else {
      model().save(path);  // config + weights (+ optimizer state in .keras), atomically
    }
  }

 private:
  std::string filepath_;
  ModelCheckpointOptions o_;
  Monitor monitor_;
  double best_ = 0;
};

}  // namespace

std::string format_checkpoint_path(const std::string& pattern, int epoch, const Logs& logs) {
  std::string out;
  for (std::size_t i = 0; i < pattern.size(); ++i) {
    char c = pattern[i];
    if (c == '{' && i + 1 < pattern.size() && pattern[i + 1] == '{') {
      out += '{';
      ++i;
      continue;
    }
    if (c == '}' && i + 1 < pattern.size() && pattern[i + 1] == '}') {
      out += '}';
      ++i;
      continue;
    }
    if (c != '{') {
      out += c;
      continue;
    }
    std::size_t close = pattern.find('}', i);
    if (close == std::string::npos) throw ValueError("checkpoint path '" + pattern + "': unmatched '{'");
    std::string field = pattern.substr(i + 1, close - i - 1);
    std::string key = field, spec;
    if (auto colon = field.find(':'); colon != std::string::npos) {
      key = field.substr(0, colon);
      spec = field.substr(colon + 1);
    }
    double value;
    bool integer = false;
    if (key == "epoch") {
      value = epoch;
      integer = true;
    } else if (auto it = logs.find(key); it != logs.end()) {
      value = it->second;
    } else {
      std::string available = "epoch";
      for (const auto& [k, v] : logs) available += ", " + k;
      throw ValueError("Failed to format this callback filepath: \"" + pattern + "\". Reason: no key '" + key +
                       "' in the logs; available: " + available);
    }
    char buf[128];
    if (spec.empty()) {
      if (integer) {
        std::snprintf(buf, sizeof buf, "%d", static_cast<int>(value));
      } else {
        std::snprintf(buf, sizeof buf, "%.17g", value);
      }
    } else {
      char type = spec.back();
      std::string fmt = "%" + spec;
      if (type == 'd') {
        std::snprintf(buf, sizeof buf, (fmt.substr(0, fmt.size() - 1) + "lld").c_str(),
                      static_cast<long long>(std::llround(value)));
      } else if (type == 'f' || type == 'e' || type == 'g' || type == 'E' || type == 'G') {
        std::snprintf(buf, sizeof buf, fmt.c_str(), value);
      } else {
        throw ValueError("checkpoint path '" + pattern + "': unsupported format spec ':" + spec + "'");
      }
    }
    out += buf;
    i = close;
  }
  return out;
}

Callback EarlyStopping(EarlyStoppingOptions options) {
  return Callback(std::make_shared<EarlyStoppingImpl>(std::move(options)));
}

Callback ReduceLROnPlateau(ReduceLROnPlateauOptions options) {
  return Callback(std::make_shared<ReduceLROnPlateauImpl>(std::move(options)));
}

Callback ModelCheckpoint(const std::string& filepath, ModelCheckpointOptions options) {
  return Callback(std::make_shared<ModelCheckpointImpl>(filepath, std::move(options)));
}

}  // namespace strata::callbacks
