// Learning-rate schedules (Keras's keras.optimizers.schedules): a function of the
// optimizer step. An optimizer given a schedule as its learning_rate sets its
// learning_rate variable from it before every train step, on the host, so the compiled
// train step never changes (no recompilation) and callbacks still see the current rate.
// Each schedule knows its Keras class and config, so models using it save and load by
// class (io/optimizer_config.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "optimizers/config_fields.h"

namespace strata::optimizers {

class LearningRateSchedule {
 public:
  using Fn = std::function<double(std::int64_t step)>;
  // Walks a copy of the schedule's options: its Keras config.
  using Fields = std::function<void(ConfigFields&)>;
  LearningRateSchedule() = default;
  // `fields` empty: a schedule of one's own, which runs but cannot be saved in a Keras
  // file (Keras would need its class).
  LearningRateSchedule(std::string class_name, Fn fn, Fields fields = {})
      : class_name_(std::move(class_name)),
        fn_(std::make_shared<Fn>(std::move(fn))),
        fields_(fields ? std::make_shared<Fields>(std::move(fields)) : nullptr) {}
  bool defined() const { return fn_ != nullptr; }
  double operator()(std::int64_t step) const { return (*fn_)(step); }
  // Keras's class name ("ExponentialDecay").
  const std::string& class_name() const { return class_name_; }
  bool has_config() const { return fields_ != nullptr; }
  void config_fields(ConfigFields& f) const { (*fields_)(f); }

 private:
  std::string class_name_;
  std::shared_ptr<Fn> fn_;
  std::shared_ptr<Fields> fields_;
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

// Every options struct: fields in the order of Keras's signature; `fields` lists
// Keras's config keys in get_config's order.

// initial · decay_rate^(step / decay_steps) (floored with staircase).
struct ExponentialDecayOptions {
  double initial_learning_rate = 0.01;
  std::int64_t decay_steps = 1000;
  double decay_rate = 0.96;
  bool staircase = false;
  std::string name = "ExponentialDecay";
  void fields(ConfigFields& f) {
    f("initial_learning_rate", initial_learning_rate);
    f("decay_steps", decay_steps);
    f("decay_rate", decay_rate);
    f("staircase", staircase);
    f("name", name);
  }
};
LearningRateSchedule ExponentialDecay(ExponentialDecayOptions options);

// values[i] while step <= boundaries[i] (values has one more entry than boundaries).
struct PiecewiseConstantDecayOptions {
  std::vector<std::int64_t> boundaries;
  std::vector<double> values;
  std::string name = "PiecewiseConstant";
  void fields(ConfigFields& f) {
    f("boundaries", boundaries);
    f("values", values);
    f("name", name);
  }
};
LearningRateSchedule PiecewiseConstantDecay(PiecewiseConstantDecayOptions options);
LearningRateSchedule PiecewiseConstantDecay(std::vector<std::int64_t> boundaries, std::vector<double> values);

// (initial − end)·(1 − step/decay_steps)^power + end, step capped at decay_steps; with
// cycle, decay_steps grows to the first multiple of itself at or above step.
struct PolynomialDecayOptions {
  double initial_learning_rate = 0.01;
  std::int64_t decay_steps = 1000;
  double end_learning_rate = 0.0001;
  double power = 1.0;
  bool cycle = false;
  std::string name = "PolynomialDecay";
  void fields(ConfigFields& f) {
    f("initial_learning_rate", initial_learning_rate);
    f("decay_steps", decay_steps);
    f("end_learning_rate", end_learning_rate);
    f("power", power);
    f("cycle", cycle);
    f("name", name);
  }
};
LearningRateSchedule PolynomialDecay(PolynomialDecayOptions options);

// initial / (1 + decay_rate · step/decay_steps) (floored with staircase). Keras 2's
// optimizer option `decay` is this schedule with decay_steps 1.
struct InverseTimeDecayOptions {
  double initial_learning_rate = 0.01;
  std::int64_t decay_steps = 1000;
  double decay_rate = 0.5;
  bool staircase = false;
  std::string name = "InverseTimeDecay";
  void fields(ConfigFields& f) {
    f("initial_learning_rate", initial_learning_rate);
    f("decay_steps", decay_steps);
    f("decay_rate", decay_rate);
    f("staircase", staircase);
    f("name", name);
  }
};
LearningRateSchedule InverseTimeDecay(InverseTimeDecayOptions options);

// Keras 3's CosineDecay: with warmup_steps > 0, a linear ramp from initial_learning_rate
// to warmup_target over warmup_steps, then cosine decay over decay_steps from the
// target to alpha·target; without warmup, cosine decay from initial_learning_rate.
struct CosineDecayOptions {
  double initial_learning_rate = 0.001;
  std::int64_t decay_steps = 1000;
  double alpha = 0.0;
  std::string name = "CosineDecay";
  std::optional<double> warmup_target;
  std::int64_t warmup_steps = 0;
  void fields(ConfigFields& f) {
    f("initial_learning_rate", initial_learning_rate);
    f("decay_steps", decay_steps);
    f("alpha", alpha);
    f("name", name);
    f("warmup_target", warmup_target);
    f("warmup_steps", warmup_steps);
  }
};
LearningRateSchedule CosineDecay(CosineDecayOptions options);

// SGDR: cosine decay restarted every period; period i lasts first_decay_steps·t_mul^i
// steps and starts at initial·m_mul^i.
struct CosineDecayRestartsOptions {
  double initial_learning_rate = 0.001;
  std::int64_t first_decay_steps = 1000;
  double t_mul = 2.0;
  double m_mul = 1.0;
  double alpha = 0.0;
  std::string name = "SGDRDecay";
  void fields(ConfigFields& f) {
    f("initial_learning_rate", initial_learning_rate);
    f("first_decay_steps", first_decay_steps);
    f("t_mul", t_mul);
    f("m_mul", m_mul);
    f("alpha", alpha);
    f("name", name);
  }
};
LearningRateSchedule CosineDecayRestarts(CosineDecayRestartsOptions options);

}  // namespace schedules
}  // namespace strata::optimizers
