#include "optimizers/schedules.h"

#include <cmath>
#include <numbers>

#include "core/error.h"

namespace strata::optimizers::schedules {

namespace {

// A schedule of Keras class `class_name` that saves `options` as its config.
template <typename Options>
LearningRateSchedule with_config(const char* class_name, const Options& options, LearningRateSchedule::Fn fn) {
  return LearningRateSchedule(class_name, std::move(fn), [options](ConfigFields& f) {
    Options copy = options;
    copy.fields(f);
  });
}

void check_positive(const char* cls, const char* key, std::int64_t steps) {
  if (steps <= 0) throw ValueError(std::string(cls) + ": " + key + " must be positive, got " + std::to_string(steps));
}

}  // namespace

LearningRateSchedule ExponentialDecay(ExponentialDecayOptions o) {
  check_positive("ExponentialDecay", "decay_steps", o.decay_steps);
  return with_config("ExponentialDecay", o, [o](std::int64_t step) {
    double p = static_cast<double>(step) / static_cast<double>(o.decay_steps);
    if (o.staircase) p = std::floor(p);
    return o.initial_learning_rate * std::pow(o.decay_rate, p);
  });
}

LearningRateSchedule PiecewiseConstantDecay(PiecewiseConstantDecayOptions o) {
  if (o.values.size() != o.boundaries.size() + 1) {
    throw ValueError("PiecewiseConstantDecay: the length of boundaries should be 1 less than the length of values; got " +
                     std::to_string(o.boundaries.size()) + " boundaries and " + std::to_string(o.values.size()) +
                     " values");
  }
  return with_config("PiecewiseConstantDecay", o, [o](std::int64_t step) {
    for (std::size_t i = 0; i < o.boundaries.size(); ++i) {
      if (step <= o.boundaries[i]) return o.values[i];
    }
    return o.values.back();
  });
}

LearningRateSchedule PiecewiseConstantDecay(std::vector<std::int64_t> boundaries, std::vector<double> values) {
  return PiecewiseConstantDecay(PiecewiseConstantDecayOptions{.boundaries = std::move(boundaries),
                                                              .values = std::move(values)});
}

LearningRateSchedule PolynomialDecay(PolynomialDecayOptions o) {
  check_positive("PolynomialDecay", "decay_steps", o.decay_steps);
  return with_config("PolynomialDecay", o, [o](std::int64_t step_in) {
    double step = static_cast<double>(step_in);
    double decay_steps = static_cast<double>(o.decay_steps);
    if (o.cycle) {
      decay_steps *= step == 0 ? 1.0 : std::ceil(step / decay_steps);
    } else {
      step = std::min(step, decay_steps);
    }
    const double p = step / decay_steps;
    return (o.initial_learning_rate - o.end_learning_rate) * std::pow(1.0 - p, o.power) + o.end_learning_rate;
  });
}

LearningRateSchedule InverseTimeDecay(InverseTimeDecayOptions o) {
  check_positive("InverseTimeDecay", "decay_steps", o.decay_steps);
  return with_config("InverseTimeDecay", o, [o](std::int64_t step) {
    double p = static_cast<double>(step) / static_cast<double>(o.decay_steps);
    if (o.staircase) p = std::floor(p);
    return o.initial_learning_rate / (1.0 + o.decay_rate * p);
  });
}

LearningRateSchedule CosineDecay(CosineDecayOptions o) {
  check_positive("CosineDecay", "decay_steps", o.decay_steps);
  return with_config("CosineDecay", o, [o](std::int64_t step_in) {
    const double step = static_cast<double>(step_in);
    // Keras: a warmup_target switches warm-up on, even with warmup_steps 0 (the decay
    // then starts from warmup_target).
    const bool warmup = o.warmup_target.has_value();
    const double target = warmup ? *o.warmup_target : o.initial_learning_rate;
    if (warmup && step < static_cast<double>(o.warmup_steps)) {
      double completed = step / static_cast<double>(o.warmup_steps);
      return o.initial_learning_rate + completed * (target - o.initial_learning_rate);
    }
    double s = std::min(step - (warmup ? static_cast<double>(o.warmup_steps) : 0.0), static_cast<double>(o.decay_steps));
    double cosine = 0.5 * (1.0 + std::cos(std::numbers::pi * s / static_cast<double>(o.decay_steps)));
    return target * ((1.0 - o.alpha) * cosine + o.alpha);
  });
}

LearningRateSchedule CosineDecayRestarts(CosineDecayRestartsOptions o) {
  check_positive("CosineDecayRestarts", "first_decay_steps", o.first_decay_steps);
  return with_config("CosineDecayRestarts", o, [o](std::int64_t step) {
    double completed = static_cast<double>(step) / static_cast<double>(o.first_decay_steps);
    double i_restart;
    if (o.t_mul == 1.0) {
      i_restart = std::floor(completed);
      completed -= i_restart;
    } else {
      // Periods grow geometrically: restart i begins at (1 − t_mul^i)/(1 − t_mul).
      i_restart = std::floor(std::log(1.0 - completed * (1.0 - o.t_mul)) / std::log(o.t_mul));
      const double sum_r = (1.0 - std::pow(o.t_mul, i_restart)) / (1.0 - o.t_mul);
      completed = (completed - sum_r) / std::pow(o.t_mul, i_restart);
    }
    const double cosine = 0.5 * std::pow(o.m_mul, i_restart) * (1.0 + std::cos(std::numbers::pi * completed));
    return o.initial_learning_rate * ((1.0 - o.alpha) * cosine + o.alpha);
  });
}

}  // namespace strata::optimizers::schedules
