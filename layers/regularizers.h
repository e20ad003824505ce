// Regularizers with Keras 3's names, defaults and math (keras.regularizers): a penalty on
// a weight (kernel_regularizer, ...) or on a layer's output (activity_regularizer) that
// a compiled model adds to its loss in training and evaluation, as Keras's model.losses.
//
//   L1(l1):    l1 · Σ|x|                      (default l1 = 0.01)
//   L2(l2):    l2 · Σx²   (no ½)              (default l2 = 0.01)
//   L1L2:      l1 · Σ|x| + l2 · Σx²           (defaults 0 and 0)
//   OrthogonalRegularizer(factor, mode): factor · ½ · Σ|N·Nᵀ off its diagonal| / (n(n−1)/2)
//       over the L2-normalized rows of a rank-2 x (mode "rows"), or Nᵀ·N of its columns
//       ("columns"); default factor 0.01.
//
// Dense(64, {.kernel_regularizer = regularizers::L2(1e-4)}) or {.kernel_regularizer = "l2"}.
#pragma once

#include <string>

#include "core/graph.h"

namespace strata {

class Regularizer {
 public:
  enum class Kind { none, l1, l2, l1l2, orthogonal };

  Regularizer() = default;  // none: no penalty
  // Keras 3.15's identifiers: "l1", "L1", "l2", "L2", "l1l2", "L1L2",
  // "orthogonal_regularizer", "OrthogonalRegularizer"; throws ValueError for others.
  Regularizer(const char* identifier);         // NOLINT: implicit, like Keras's strings
  Regularizer(const std::string& identifier);  // NOLINT

  bool defined() const { return kind_ != Kind::none; }
  Kind kind() const { return kind_; }
  // Keras's class: "L1", "L2", "L1L2", "OrthogonalRegularizer"; "" when none.
  std::string class_name() const;
  double l1() const { return l1_; }
  double l2() const { return l2_; }
  double factor() const { return factor_; }
  const std::string& mode() const { return mode_; }

  // Throws ValueError when the penalty cannot apply to a value of this shape (the
  // orthogonal regularizer takes rank 2 only, as Keras).
  void check(const Shape& shape) const;
  // The penalty of x: a float32 scalar. Throws ValueError when undefined.
  Output operator()(Output x) const;
  // The penalty of a layer's output as Keras's activity_regularizer adds it: divided by
  // the batch size (the first axis; 0 gives 0, as Keras's divide_no_nan), a scalar as is.
  Output activity_penalty(Output y) const;
  // The same for an output whose batch axis was merged with others (MultiHeadAttention's
  // projections of inputs of rank above 3): the batch size is `batch_of`'s first axis.
  Output activity_penalty(Output y, Output batch_of) const;

  friend bool operator==(const Regularizer&, const Regularizer&) = default;

  // The factories below (regularizers::L1, ...) check their arguments and make these.
  static Regularizer make(Kind kind, double l1, double l2, double factor, std::string mode);

 private:
  Kind kind_ = Kind::none;
  double l1_ = 0.0;
  double l2_ = 0.0;
  double factor_ = 0.0;
  std::string mode_;
};

namespace regularizers {

struct L1L2Options {  // Keras signature order
  double l1 = 0.0;
  double l2 = 0.0;
};
struct OrthogonalRegularizerOptions {  // Keras signature order
  double factor = 0.01;
  std::string mode = "rows";  // "rows" or "columns"
};

// Factors must be finite and >= 0 (Keras's validate_float_arg): ValueError otherwise.
Regularizer L1(double l1 = 0.01);
Regularizer L2(double l2 = 0.01);
Regularizer L1L2(L1L2Options options = {});
Regularizer OrthogonalRegularizer(OrthogonalRegularizerOptions options = {});

// Resolves Keras's string identifiers (Regularizer's constructor); throws ValueError
// naming the identifier and the known ones. "l1_l2", which Keras's docstring names,
// Keras 3.15.1 itself cannot interpret, and neither does this.
Regularizer get(const std::string& identifier);

}  // namespace regularizers
}  // namespace strata
