// Learning-rate schedules (Keras's keras.optimizers.schedules): a function of the
// optimizer step. An optimizer given a schedule as its learning_rate sets its
// learning_rate variable from it before every train step, on the host, so the compiled
// train step never changes (no recompilation) and callbacks still see the current rate.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace strata::optimizers {

class LearningRateSchedule {
 public:
  using Fn = std::function<double(std::int64_t step)>;
  LearningRateSchedule() = default;
  LearningRateSchedule(std::string name, Fn fn) : name_(std::move(name)), fn_(std::make_shared<Fn>(std::move(fn))) {}
  bool defined() const { return fn_ != nullptr; }
  double operator()(std::int64_t step) const { return (*fn_)(step); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::shared_ptr<Fn> fn_;
};

// An optimizer's learning_rate argument: a number or a schedule (as in Keras).
class LearningRate {
 public:
  LearningRate(double value) : value_(value) {}                                        // NOLINT
  LearningRate(LearningRateSchedule schedule) : value_(schedule(0)), schedule_(std::move(schedule)) {}  // NOLINT
  // The rate at step 0.
  operator double() const { return value_; }  // NOLINT
  const LearningRateSchedule& schedule() const { return schedule_; }

 private:
  double value_;
  LearningRateSchedule schedule_;
};

namespace schedules {

// initial · decay_rate^(step / decay_steps) (floored with staircase).
struct ExponentialDecayOptions {
  double initial_learning_rate = 0.01;
  std::int64_t decay_steps = 1000;
  double decay_rate = 0.96;
  bool staircase = false;
};
LearningRateSchedule ExponentialDecay(ExponentialDecayOptions options);

// values[i] while step <= boundaries[i] (values has one more entry than boundaries).
LearningRateSchedule PiecewiseConstantDecay(std::vector<std::int64_t> boundaries, std::vector<double> values);

// Keras 3's CosineDecay: with warmup_steps > 0, a linear ramp from initial_learning_rate
// to warmup_target over warmup_steps, then cosine decay over decay_steps from the
// target to alpha·target; without warmup, cosine decay from initial_learning_rate.
struct CosineDecayOptions {
  double initial_learning_rate = 0.001;
  std::int64_t decay_steps = 1000;
  double alpha = 0.0;
  std::optional<double> warmup_target;
  std::int64_t warmup_steps = 0;
};
LearningRateSchedule CosineDecay(CosineDecayOptions options);

}  // namespace schedules
}  // namespace strata::optimizers
