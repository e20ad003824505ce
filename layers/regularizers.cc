#include "layers/regularizers.h"

#include <cmath>
#include <map>

#include "core/error.h"
#include "core/ops.h"

namespace strata {

namespace {

// Keras's validate_float_arg: a finite number >= 0.
double non_negative(const char* regularizer, const char* name, double value) {
  if (!std::isfinite(value) || value < 0.0) {
    throw ValueError(std::string(regularizer) + ": invalid value for argument " + name +
                     ": expected a non-negative float, got " + std::to_string(value));
  }
  return value;
}

// Keras's ops.normalize(x, axis) with order 2: x · min(rsqrt(Σx² along axis), 1/ε), ε = 1e-7.
Output l2_normalize(Output x, std::int64_t axis) {
  Output inv_norm = ops::div(1.f, ops::sqrt(ops::reduce_sum(ops::square(x), {axis}, true)));
  return ops::mul(x, ops::minimum(inv_norm, 1e7f));
}

}  // namespace

Regularizer Regularizer::make(Kind kind, double l1, double l2, double factor, std::string mode) {
  Regularizer r;
  r.kind_ = kind;
  r.l1_ = l1;
  r.l2_ = l2;
  r.factor_ = factor;
  r.mode_ = std::move(mode);
  return r;
}

Regularizer::Regularizer(const char* identifier) : Regularizer(regularizers::get(identifier)) {}
Regularizer::Regularizer(const std::string& identifier) : Regularizer(regularizers::get(identifier)) {}

std::string Regularizer::class_name() const {
  switch (kind_) {
    case Kind::none: return "";
    case Kind::l1: return "L1";
    case Kind::l2: return "L2";
    case Kind::l1l2: return "L1L2";
    case Kind::orthogonal: return "OrthogonalRegularizer";
  }
  return "";
}

void Regularizer::check(const Shape& shape) const {
  if (kind_ == Kind::orthogonal && shape.rank() != 2) {
    throw ValueError("OrthogonalRegularizer takes values of rank 2, got shape " + shape.to_string());
  }
}

Output Regularizer::operator()(Output x) const {
  if (kind_ == Kind::none) throw ValueError("use of an undefined regularizer");
  check(x.shape());
  if (x.dtype() != DType::float32) x = ops::cast(x, DType::float32);
  if (kind_ == Kind::orthogonal) {
    const bool rows = mode_ == "rows";
    Output n = l2_normalize(x, rows ? 1 : 0);
    Output product = rows ? ops::matmul(n, n, false, true) : ops::matmul(n, n, true, false);
    const double size = static_cast<double>(x.shape()[rows ? 0 : 1]);
    // Keras masks the diagonal with (1 − eye); the diagonal holds each normalized vector's
    // own Σn², never negative, so the off-diagonal sum of |product| is the whole sum less it.
    Output diagonal = ops::reduce_sum(ops::square(n));
    Output off_diagonal = ops::sub(ops::reduce_sum(ops::abs(product)), diagonal);
    const double pairs = size * (size - 1.0) / 2.0;
    return ops::div(ops::mul(off_diagonal, static_cast<float>(factor_ * 0.5)), static_cast<float>(pairs));
  }
  Output penalty;
  const double l1 = kind_ == Kind::l2 ? 0.0 : l1_;
  const double l2 = kind_ == Kind::l1 ? 0.0 : l2_;
  if (l1 != 0.0) penalty = ops::mul(ops::reduce_sum(ops::abs(x)), static_cast<float>(l1));
  if (l2 != 0.0) {
    Output p = ops::mul(ops::reduce_sum(ops::square(x)), static_cast<float>(l2));
    penalty = penalty.valid() ? ops::add(penalty, p) : p;
  }
  // L1L2() with both factors 0 (Keras's "l1l2") is a penalty of 0.
  return penalty.valid() ? penalty : ops::constant(*x.graph, 0.f);
}

Output Regularizer::activity_penalty(Output y) const { return activity_penalty(y, y); }

Output Regularizer::activity_penalty(Output y, Output batch_of) const {
  Output penalty = (*this)(y);
  if (y.shape().rank() == 0 || batch_of.shape().rank() == 0) return penalty;
  // The batch size at run time: a count of ones along the first axis.
  Output first = ops::stop_gradient(batch_of);
  if (batch_of.shape().rank() > 1) {
    std::vector<std::int64_t> rest;
    for (std::int64_t a = 1; a < batch_of.shape().rank(); ++a) rest.push_back(a);
    first = ops::reduce_sum(first, rest);
  }
  Output batch = ops::reduce_sum(ops::fill_like(first, 1.f));
  return ops::div(penalty, ops::maximum(batch, 1.f));
}

namespace regularizers {

Regularizer L1(double l1) {
  return Regularizer::make(Regularizer::Kind::l1, non_negative("L1", "l1", l1), 0.0, 0.0, "");
}

Regularizer L2(double l2) {
  return Regularizer::make(Regularizer::Kind::l2, 0.0, non_negative("L2", "l2", l2), 0.0, "");
}

Regularizer L1L2(L1L2Options o) {
  return Regularizer::make(Regularizer::Kind::l1l2, non_negative("L1L2", "l1", o.l1),
                           non_negative("L1L2", "l2", o.l2), 0.0, "");
}

Regularizer OrthogonalRegularizer(OrthogonalRegularizerOptions o) {
  non_negative("OrthogonalRegularizer", "factor", o.factor);
  if (o.mode != "rows" && o.mode != "columns") {
    throw ValueError("OrthogonalRegularizer: invalid value for argument mode: expected one of {\"rows\", "
                     "\"columns\"}, got \"" + o.mode + "\"");
  }
  return Regularizer::make(Regularizer::Kind::orthogonal, 0.0, 0.0, o.factor, o.mode);
}

Regularizer get(const std::string& id) {
  // Keras 3.15's ALL_OBJECTS_DICT: each class by its name and its snake_case name (L1L2's
  // is "l1l2"), made with its defaults.
  static const std::map<std::string, Regularizer (*)()> known = {
      {"L1", [] { return L1(); }},
      {"l1", [] { return L1(); }},
      {"L2", [] { return L2(); }},
      {"l2", [] { return L2(); }},
      {"L1L2", [] { return L1L2(); }},
      {"l1l2", [] { return L1L2(); }},
      {"OrthogonalRegularizer", [] { return OrthogonalRegularizer(); }},
      {"orthogonal_regularizer", [] { return OrthogonalRegularizer(); }},
  };
  auto it = known.find(id);
  if (it == known.end()) {
    std::string names;
    for (const auto& entry : known) names += (names.empty() ? "" : ", ") + entry.first;
    throw ValueError("could not interpret regularizer identifier '" + id + "' (known: " + names + ")");
  }
  return it->second();
}

}  // namespace regularizers
}  // namespace strata
