#include "layers/constraints.h"

#include <map>

#include "core/error.h"
#include "core/ops.h"

namespace strata {

namespace {

constexpr float kEpsilon = 1e-7f;  // Keras's backend.epsilon()

}  // namespace

Constraint Constraint::make(Kind kind, double min_value, double max_value, double rate, layers::Axes axis) {
  Constraint c;
  c.kind_ = kind;
  c.min_value_ = min_value;
  c.max_value_ = max_value;
  c.rate_ = rate;
  c.axis_ = std::move(axis);
  return c;
}

Constraint::Constraint(const char* identifier) : Constraint(constraints::get(identifier)) {}
Constraint::Constraint(const std::string& identifier) : Constraint(constraints::get(identifier)) {}

std::string Constraint::class_name() const {
  switch (kind_) {
    case Kind::none: return "";
    case Kind::max_norm: return "MaxNorm";
    case Kind::min_max_norm: return "MinMaxNorm";
    case Kind::non_neg: return "NonNeg";
    case Kind::unit_norm: return "UnitNorm";
  }
  return "";
}

void Constraint::check(const Shape& shape) const {
  if (kind_ == Kind::none || kind_ == Kind::non_neg) return;
  for (std::int64_t a : axis_.values) {
    if (a < -shape.rank() || a >= shape.rank()) {
      throw ValueError(class_name() + ": axis " + std::to_string(a) + " is out of range for a weight of shape " +
                       shape.to_string());
    }
  }
}

Output Constraint::operator()(Output w) const {
  if (kind_ == Kind::none) throw ValueError("use of an undefined constraint");
  check(w.shape());
  if (kind_ == Kind::non_neg) return ops::maximum(w, 0.f);
  Output norms = ops::sqrt(ops::reduce_sum(ops::square(w), axis_.values, true));
  Output denominator = ops::add(norms, kEpsilon);
  if (kind_ == Kind::unit_norm) return ops::div(w, denominator);
  Output desired;
  if (kind_ == Kind::max_norm) {
    desired = ops::clip(norms, 0.f, static_cast<float>(max_value_));
  } else {
    desired = ops::clip(norms, static_cast<float>(min_value_), static_cast<float>(max_value_));
    // rate · clip(‖w‖) + (1 − rate) · ‖w‖, which is the clip itself at Keras's default rate 1.
    if (rate_ != 1.0) {
      desired = ops::add(ops::mul(desired, static_cast<float>(rate_)),
                         ops::mul(norms, static_cast<float>(1.0 - rate_)));
    }
  }
  return ops::mul(w, ops::div(desired, denominator));
}

namespace constraints {

Constraint MaxNorm(MaxNormOptions o) {
  return Constraint::make(Constraint::Kind::max_norm, 0.0, o.max_value, 1.0, std::move(o.axis));
}

Constraint MinMaxNorm(MinMaxNormOptions o) {
  return Constraint::make(Constraint::Kind::min_max_norm, o.min_value, o.max_value, o.rate, std::move(o.axis));
}

Constraint NonNeg() { return Constraint::make(Constraint::Kind::non_neg, 0.0, 0.0, 1.0, 0); }

Constraint UnitNorm(UnitNormOptions o) {
  return Constraint::make(Constraint::Kind::unit_norm, 0.0, 0.0, 1.0, std::move(o.axis));
}

Constraint get(const std::string& id) {
  // Keras 3.15's ALL_OBJECTS_DICT: each class by its name and its snake_case name.
  static const std::map<std::string, Constraint (*)()> known = {
      {"MaxNorm", [] { return MaxNorm(); }},       {"max_norm", [] { return MaxNorm(); }},
      {"MinMaxNorm", [] { return MinMaxNorm(); }}, {"min_max_norm", [] { return MinMaxNorm(); }},
      {"NonNeg", [] { return NonNeg(); }},         {"non_neg", [] { return NonNeg(); }},
      {"UnitNorm", [] { return UnitNorm(); }},     {"unit_norm", [] { return UnitNorm(); }},
  };
  auto it = known.find(id);
  if (it == known.end()) {
    std::string names;
    for (const auto& entry : known) names += (names.empty() ? "" : ", ") + entry.first;
    throw ValueError("could not interpret constraint identifier '" + id + "' (known: " + names + ")");
  }
  return it->second();
}

}  // namespace constraints
}  // namespace strata
