// Elementwise merge layers: Add, Subtract (exactly two inputs), Multiply, Average,
// Maximum, Minimum. Inputs broadcast as in Keras: batch axis against batch axis, a
// lower-rank input widened by size-1 axes right after its batch axis, then NumPy's rule
// for size-1 dims. Masks as Keras's _Merge.compute_mask: the output carries the logical
// or of the inputs' masks (broadcast from the right) when every input has one, else none.
#pragma once

#include <string>

#include "layers/layer.h"

namespace strata::layers {

struct MergeOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class ElementwiseMergeImpl : public LayerImpl {
 public:
  enum class Kind { add, subtract, multiply, average, maximum, minimum };
  ElementwiseMergeImpl(std::string class_name, Kind kind, MergeOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::low_precision; }
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  bool accepts_input_count(std::size_t n) const override { return kind == Kind::subtract ? n == 2 : n >= 2; }
  Kind kind;
  MergeOptions options;
};

class Add : public Layer {
 public:
  explicit Add(MergeOptions options = {});
};
class Subtract : public Layer {
 public:
  explicit Subtract(MergeOptions options = {});
};
class Multiply : public Layer {
 public:
  explicit Multiply(MergeOptions options = {});
};
class Average : public Layer {
 public:
  explicit Average(MergeOptions options = {});
};
class Maximum : public Layer {
 public:
  explicit Maximum(MergeOptions options = {});
};
class Minimum : public Layer {
 public:
  explicit Minimum(MergeOptions options = {});
};

}  // namespace strata::layers
