// Layer: a handle (value semantics over shared state) to a Keras layer, and KerasTensor,
// the symbolic result of calling layers. Calling a layer on KerasTensors builds it once
// (creating its weights from the input shapes), checks shapes at once by tracing its
// computation on a scratch graph, and records the call. A Model replays the recorded
// calls into its own graph at compile: no global graph exists, nothing grows per call.
#pragma once

#include <concepts>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/variable.h"
#include "layers/dtype_policy.h"
#include "layers/constraints.h"
#include "layers/initializers.h"
#include "layers/regularizers.h"

namespace strata {

class Layer;
struct LayerCall;

// The keyword arguments of one call that change what a layer computes, such as
// Attention's use_causal_mask and return_attention_scores. Keras saves them with the
// call (the node's "kwargs"); every such argument of Keras's layers that Strata has is a
// flag.
using CallArguments = std::map<std::string, bool>;

class KerasTensor {
 public:
  KerasTensor() = default;
  KerasTensor(std::shared_ptr<const LayerCall> call, int index) : call_(std::move(call)), index_(index) {}

  bool defined() const { return call_ != nullptr; }
  const TensorSpec& spec() const;
  const Shape& shape() const { return spec().shape; }
  DType dtype() const { return spec().dtype; }
  const std::shared_ptr<const LayerCall>& call() const { return call_; }
  int index() const { return index_; }
  // A tensor made by Input() converts to its InputLayer, so that Sequential's list can
  // start with `layers::Input(...)` as in Keras. Throws ValueError for other tensors.
  operator Layer() const;  // NOLINT: implicit by design

 private:
  std::shared_ptr<const LayerCall> call_;
  int index_ = 0;
};

// A weight's regularizer and constraint (add_weight's WeightOptions), kept by its layer: a
// compiled model adds the regularizer's penalty of every trainable weight to its loss and
// assigns constraint(weight) after every optimizer update, as Keras does.
struct WeightRule {
  Variable variable;
  Regularizer regularizer;
  Constraint constraint;
};

// add_weight's options besides the name, shape and initializer (Keras's add_weight order).
struct WeightOptions {
  bool trainable = true;
  Regularizer regularizer;
  Constraint constraint;
};

class LayerImpl {
 public:
  LayerImpl(std::string class_name, std::string name);
  virtual ~LayerImpl() = default;
  LayerImpl(const LayerImpl&) = delete;
  LayerImpl& operator=(const LayerImpl&) = delete;

  // Keras's class name ("Dense"), used in summaries and saved configs.
  const std::string& class_name() const { return class_name_; }
  // Creates the weights for these input specs. Called once, before the first call.
  virtual void build(const std::vector<TensorSpec>& inputs) {}
  // Adds this layer's computation to `graph`. Weights enter through graph.variable().
  // Training-only behaviour (dropout) is decided by the Program's mode at run time.
  virtual std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) = 0;
  // Keras masks (_keras_mask): one Output per input or output; an invalid Output means
  // no mask. Layers that consume masks (recurrent layers) override call_masked; layers
  // that make or change masks (Embedding, Masking) override compute_mask; layers that
  // change no time step set supports_masking (Keras's flag: Dense, Dropout, the
  // activations), and each input's mask passes on to the output at its position. Otherwise
  // a layer ignores its input masks and its outputs carry none.
  virtual std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                          const std::vector<Output>& /*masks*/) {
    return call(graph, inputs);
  }
  virtual std::vector<Output> compute_mask(Graph& /*graph*/, const std::vector<Output>& /*inputs*/,
                                           const std::vector<Output>& masks) {
    return supports_masking ? masks : std::vector<Output>{};
  }
  // Number of inputs the layer takes (merge layers and models may take several).
  virtual bool accepts_input_count(std::size_t n) const { return n == 1; }
  // The call arguments the layer takes (Keras's names); none by default.
  virtual std::vector<std::string> call_argument_names() const { return {}; }
  // Nested layers (a Model used as a layer), for summaries and weight collection.
  virtual std::vector<Layer> sublayers() const;
  // Whether the layer computes as Keras's quantized layers do in `mode` ("int8"), with the
  // variables Keras's quantized build makes (docs/precision.md); none do by default.
  virtual bool supports_quantization_mode(const std::string& /*mode*/) const { return false; }
  // Keras's layer.quantize(mode) on this built, float layer (Model::quantize calls it on the
  // layers supports_quantization_mode accepts): its float kernel replaced by the mode's
  // variables, quantized as Keras quantizes them, and quantization_mode set. Checks all
  // before it changes anything. Others throw Keras's NotImplementedError.
  virtual void quantize(const std::string& mode);
  // How the class computes under a bfloat16 or float16 dtype policy (layers/dtype_policy.h);
  // refused unless a class says otherwise.
  virtual LowPrecisionForm low_precision_form() const { return LowPrecisionForm::refused; }
  // Why the layer cannot train under a DataParallel of several processes ("" when it can):
  // state Keras shares between replicas that Strata's processes do not (BatchNormalization's
  // synchronized moments, a stateful recurrent layer's per-sample states). Compiling such a
  // model for several processes refuses it, naming the layer (models/data_parallel_step.h).
  virtual std::string data_parallel_refusal() const { return {}; }

  std::string name;
  bool trainable = true;
  bool built = false;
  bool supports_masking = false;  // passes input masks on (compute_mask above)
  std::vector<Variable> weights;  // in Keras's saved order
  // The weights given a regularizer or a constraint, in creation order.
  std::vector<WeightRule> weight_rules;
  // Keras's activity_regularizer, which every Keras layer takes: the penalty of each of
  // the layer's outputs, divided by the batch size, added to the model's losses wherever
  // a model calls the layer (models/model.cc). Layers whose Keras signature lists it
  // set it from their options.
  Regularizer activity_regularizer;
  // True for a layer that applies activity_regularizer itself and not to its outputs, as
  // Keras's does (MultiHeadAttention: to each projection's output only), so that the model
  // leaves its outputs alone.
  virtual bool regularizes_own_activity() const { return false; }
  // Keras's QuantizedDTypePolicy mode the layer computes in: "" (float32) or one that
  // supports_quantization_mode accepts. Set before build (loading a file sets it from the
  // config's "dtype"); build then makes the quantized variables.
  std::string quantization_mode;
  // Keras's float dtype policy ("float32", "mixed_bfloat16", ...; layers/dtype_policy.h):
  // the global one (set_dtype_policy) when the layer is made, or its file's.
  std::string dtype_policy;
  // Which recorded call of this layer is being traced or replayed (0 for the first).
  // Layers whose randomness must differ per call (Dropout) key on it; it does not
  // depend on names, so two identical programs build identical graphs.
  int current_call = 0;
  int recorded_calls = 0;
  // The arguments of the call being traced or replayed (a name absent is false).
  CallArguments current_arguments;
  bool argument(const std::string& name) const {
    auto it = current_arguments.find(name);
    return it != current_arguments.end() && it->second;
  }

 protected:
  // Creates a weight named "<layer name>/<weight name>" with values from `initializer`.
  Variable add_weight(const std::string& weight_name, const Shape& shape, const Initializer& initializer,
                      bool trainable = true);
  // The same with a regularizer and a constraint, checked against the weight's shape here
  // (an orthogonal regularizer on a weight of rank 3 is a ValueError naming the weight).
  Variable add_weight(const std::string& weight_name, const Shape& shape, const Initializer& initializer,
                      const WeightOptions& options);

 private:
  std::string class_name_;
};

class Layer {
 public:
  Layer() = default;
  explicit Layer(std::shared_ptr<LayerImpl> impl) : impl_(std::move(impl)) {}
  // A built-in layer's handle: its options' `dtype` (Keras's per-layer dtype= argument),
  // when given, becomes the layer's dtype policy (ValueError for a name Strata does not
  // compute in) and is consumed, so that wrapping the implementation again (a wrapper's
  // sublayers) changes nothing: dtype_policy holds it from then on.
  template <class Impl>
    requires std::derived_from<Impl, LayerImpl> && requires(Impl& i) {
      { i.options.dtype } -> std::same_as<DTypePolicyName&>;
    }
  explicit Layer(std::shared_ptr<Impl> impl) : impl_(impl) {
    DTypePolicyName& dtype = impl->options.dtype;
    if (dtype.empty()) return;
    set_dtype_policy(dtype.value);
    dtype = {};
  }

  bool defined() const { return impl_ != nullptr; }
  KerasTensor operator()(const KerasTensor& input) const;
  std::vector<KerasTensor> operator()(const std::vector<KerasTensor>& inputs) const;
  // A call with keyword arguments by name (those call_argument_names() lists; others are
  // a ValueError naming them). Layers that take arguments also offer a typed call:
  // Attention()({q, v}, {.use_causal_mask = true}).
  std::vector<KerasTensor> call_with(const std::vector<KerasTensor>& inputs, const CallArguments& arguments) const;

  const std::string& name() const { return impl().name; }
  const std::string& class_name() const { return impl().class_name(); }
  bool trainable() const { return impl().trainable; }
  void set_trainable(bool trainable) const;
  bool built() const { return impl().built; }
  // Keras's `layer.dtype_policy` and its setter (layers/dtype_policy.h): "float32",
  // "mixed_bfloat16", "bfloat16", "mixed_float16" or "float16" (ValueError for others), as
  // Keras's guide gives a model's output layer "float32" under a mixed global policy. Set
  // it before the layer is first called; weights it already has keep their storage.
  const std::string& dtype_policy() const { return impl().dtype_policy; }
  void set_dtype_policy(const std::string& policy) const;

  // All weights: the layer's own in creation order, then each nested layer's (Keras 3's order).
  std::vector<Variable> weights() const;
  std::vector<Variable> trainable_weights() const;
  std::vector<Variable> non_trainable_weights() const;
  // The weight rules of this layer, then of each nested layer (as weights()).
  std::vector<WeightRule> weight_rules() const;
  std::vector<Tensor> get_weights() const;
  // Throws ValueError/ShapeError naming the layer and weight when counts or shapes differ.
  void set_weights(const std::vector<Tensor>& values) const;
  std::int64_t count_params() const;

  LayerImpl& impl() const;
  const std::shared_ptr<LayerImpl>& shared_impl() const { return impl_; }
  friend bool operator==(const Layer& a, const Layer& b) { return a.impl_ == b.impl_; }

 private:
  std::shared_ptr<LayerImpl> impl_;
};

// One recorded call of a layer on symbolic inputs.
struct LayerCall {
  Layer layer;
  std::vector<KerasTensor> inputs;
  std::vector<TensorSpec> outputs;
  int call_index = 0;  // this call's position among the layer's calls
  CallArguments arguments;
};

// A fresh default name for a layer class, as Keras makes them: "dense", "dense_1", ...
// (snake_case of the class name with a per-process counter, reset by clear_session()).
std::string default_layer_name(const std::string& class_name);
// Resets the default-name counters (keras.backend.clear_session()).
void clear_session();

}  // namespace strata
