// Softmax layer: softmax along `axis` (one axis or several), Keras's keras.layers.Softmax.
// Masks as Keras 3.15's call(inputs, mask): the mask passed with the call
// (Softmax()(x, {.mask = m}), saved in the node's kwargs as Keras saves it), else the
// input's own Keras mask (Embedding(mask_zero), Masking, ...). It broadcasts against the
// inputs from the right, NumPy's rule, so each of its dims must be 1 or the input's;
// positions it hides (false, or a value not above 0.5: Keras's cast of a float mask) get
// -1e9 before the softmax and 0 after, so a row hidden entirely is all zeros, and get no
// gradient. A (batch, steps) mask in front of (batch, steps, features) inputs does not
// fit (a ValueError at compile, as Keras's at its call) unless steps == features; the
// attention-style (batch, 1, S) or (batch, T, S) masks of (batch, T, S) scores do.
// The output carries the mask used (supports_masking): the one passed, as it is, else the
// input's.
#pragma once

#include <string>

#include "layers/call_tensors.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct SoftmaxOptions {  // Keras signature order
  Axes axis = -1;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("axis", &SoftmaxOptions::axis, Spelling::bare_single)};
  }
};

// The call's arguments after the inputs (Keras's call(inputs, mask=None)).
struct SoftmaxCall {
  KerasTensor mask;  // undefined: the input's own mask, if any
};

class SoftmaxImpl : public LayerImpl, public TakesTensorArguments {
 public:
  explicit SoftmaxImpl(SoftmaxOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  std::vector<std::string> call_argument_names() const override { return {"mask"}; }
  std::vector<TensorArgument> tensor_arguments() const override { return {{"mask", "mask", -1}}; }
  SoftmaxOptions options;
};

class Softmax : public Layer {
 public:
  explicit Softmax(SoftmaxOptions options = {});
  using Layer::operator();
  KerasTensor operator()(const KerasTensor& input, SoftmaxCall call) const;
};

}  // namespace strata::layers
