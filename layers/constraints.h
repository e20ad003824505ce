// Weight constraints with Keras 3's names, defaults and math (keras.constraints): after
// every optimizer update of a train step the constrained weight is assigned
// constraint(weight), as Keras's optimizer.apply does. Norms are taken over `axis`
// (Keras's default 0: each output unit's incoming weights in a Dense kernel), ε = 1e-7.
//
//   MaxNorm(max_value, axis):  w · clip(‖w‖, 0, max_value) / (ε + ‖w‖)   (defaults 2, 0)
//   MinMaxNorm(min_value, max_value, rate, axis):
//       w · (rate · clip(‖w‖, min, max) + (1 − rate) · ‖w‖) / (ε + ‖w‖)  (0, 1, 1, 0)
//   NonNeg():                  max(w, 0)
//   UnitNorm(axis):            w / (ε + ‖w‖)                              (axis 0)
//
// Dense(64, {.kernel_constraint = constraints::MaxNorm({.max_value = 3})}) or "max_norm".
#pragma once

#include <string>

#include "core/graph.h"
#include "layers/axes.h"

namespace strata {

class Constraint {
 public:
  enum class Kind { none, max_norm, min_max_norm, non_neg, unit_norm };

  Constraint() = default;  // none: the weight is left as the optimizer writes it
  // Keras 3.15's identifiers: "max_norm", "MaxNorm", "min_max_norm", "MinMaxNorm",
  // "non_neg", "NonNeg", "unit_norm", "UnitNorm"; throws ValueError for others.
  Constraint(const char* identifier);         // NOLINT: implicit, like Keras's strings
  Constraint(const std::string& identifier);  // NOLINT

  bool defined() const { return kind_ != Kind::none; }
  Kind kind() const { return kind_; }
  // Keras's class: "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm"; "" when none.
  std::string class_name() const;
  double min_value() const { return min_value_; }
  double max_value() const { return max_value_; }
  double rate() const { return rate_; }
  const layers::Axes& axis() const { return axis_; }

  // Throws ValueError when an axis is out of range for a weight of this shape.
  void check(const Shape& shape) const;
  // The constrained value of w (what the weight is assigned). Throws ValueError when undefined.
  Output operator()(Output w) const;

  friend bool operator==(const Constraint&, const Constraint&) = default;

  // The factories below (constraints::MaxNorm, ...) make these.
  static Constraint make(Kind kind, double min_value, double max_value, double rate, layers::Axes axis);

 private:
  Kind kind_ = Kind::none;
  double min_value_ = 0.0;
  double max_value_ = 0.0;
  double rate_ = 1.0;
  layers::Axes axis_ = 0;
};

namespace constraints {

struct MaxNormOptions {  // Keras signature order
  double max_value = 2.0;
  layers::Axes axis = 0;
};
struct MinMaxNormOptions {  // Keras signature order
  double min_value = 0.0;
  double max_value = 1.0;
  double rate = 1.0;
  layers::Axes axis = 0;
};
struct UnitNormOptions {
  layers::Axes axis = 0;
};

Constraint MaxNorm(MaxNormOptions options = {});
Constraint MinMaxNorm(MinMaxNormOptions options = {});
Constraint NonNeg();
Constraint UnitNorm(UnitNormOptions options = {});

// Resolves Keras's string identifiers (Constraint's constructor); throws ValueError
// naming the identifier and the known ones.
Constraint get(const std::string& identifier);

}  // namespace constraints
}  // namespace strata
