#include "optimizers/schedules.h"

#include <cmath>
#include <numbers>

#include "core/error.h"

namespace strata::optimizers::schedules {

LearningRateSchedule ExponentialDecay(ExponentialDecayOptions o) {
  if (o.decay_steps <= 0) throw ValueError("ExponentialDecay: decay_steps must be positive");
  return LearningRateSchedule("ExponentialDecay", [o](std::int64_t step) {
    double p = static_cast<double>(step) / static_cast<double>(o.decay_steps);
    if (o.staircase) p = std::floor(p);
    return o.initial_learning_rate * std::pow(o.decay_rate, p);
  });
}

LearningRateSchedule PiecewiseConstantDecay(std::vector<std::int64_t> boundaries, std::vector<double> values) {
  if (values.size() != boundaries.size() + 1) {
    throw ValueError("PiecewiseConstantDecay: the length of boundaries should be 1 less than the length of values; got " +
                     std::to_string(boundaries.size()) + " boundaries and " + std::to_string(values.size()) +
                     " values");
  }
  return LearningRateSchedule("PiecewiseConstantDecay", [boundaries, values](std::int64_t step) {
    for (std::size_t i = 0; i < boundaries.size(); ++i) {
      if (step <= boundaries[i]) return values[i];
    }
    return values.back();
  });
}

LearningRateSchedule CosineDecay(CosineDecayOptions o) {
  if (o.decay_steps <= 0) throw ValueError("CosineDecay: decay_steps must be positive");
  return LearningRateSchedule("CosineDecay", [o](std::int64_t step_in) {
    const double step = static_cast<double>(step_in);
    const bool warmup = o.warmup_target.has_value() && o.warmup_steps > 0;
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

}  // namespace strata::optimizers::schedules
