// OpLayer: one call of a Keras 3 operation (keras.ops.add, keras.ops.mean, ...) on
// symbolic tensors, which Keras saves in a functional model as a layer of its own
// (module "keras.src.ops.numpy", class "Add"; tf.keras saves "TFOpLambda"). Its call
// mixes tensors and constants (`x + 3.0`, `1.0 / x`), so the layer keeps the call's
// argument list, in order: each entry is one of its tensor inputs or a constant.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

// One entry of an indexing key (x[:, 1:3, ::2, 0], x[..., None]): an integer, a slice, a new
// axis of size 1 (None) or an ellipsis (as many ':' as the other entries leave axes).
struct IndexEntry {
  enum class Kind { integer, slice, new_axis, ellipsis };
  Kind kind = Kind::slice;
  std::int64_t index = 0;  // an integer entry (negative counts from the end)
  std::optional<std::int64_t> start, stop, step;  // a slice; none as in Python
};

struct OpArgument {
  // none: an argument given as None (BatchNorm's offset), written back as null; text: a
  // string (Rearrange's pattern).
  enum class Kind { tensor, tensor_list, number, array, index, integers, none, text };
  Kind kind = Kind::tensor;
  int first_input = 0;   // tensor: its input; tensor_list: its first input
  int count = 1;         // tensor_list: how many inputs
  double number = 0.0;   // number
  std::vector<double> values;  // array (a NumPy constant), row-major; integers (a list such as Slice's starts, a None NaN)
  std::vector<std::int64_t> shape;
  std::string dtype = "float32";  // array: NumPy's dtype as saved (Take's indices are int64), written back
  std::vector<IndexEntry> key;  // index: GetItem's key, axis by axis from the batch axis
  bool bare_key = false;        // index: written as one entry, not a list
  std::string keyword;          // array: a keyword argument of the call (RMSNorm's scale), written back as one
  std::string text;             // text

  static OpArgument tensor(int input) {
    OpArgument a;
    a.first_input = input;
    return a;
  }
  static OpArgument constant(double v) {
    OpArgument a;
    a.kind = Kind::number;
    a.number = v;
    return a;
  }
};

// The operation's own arguments (axis, keepdims, dtype, newshape, ...), as Keras's
// config holds them; absent keys are absent.
using OpAttributes = std::map<std::string, ConfigValue>;
// Attributes that are lists of integer lists (Pad's pad_width [[0, 0], [1, 2]], Tensordot's
// axes [[2], [1]]), row by row.
using OpNestedLists = std::map<std::string, std::vector<std::vector<std::int64_t>>>;

class OpLayerImpl : public LayerImpl {
 public:
  // op: Keras's class ("Add", "Mean"); module: where Keras defines it.
  OpLayerImpl(std::string op, std::string module, std::vector<OpArgument> arguments,
              OpAttributes attributes, std::string name, OpAttributes call_kwargs = {},
              OpNestedLists nested_attributes = {});
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  bool accepts_input_count(std::size_t n) const override { return n == num_inputs(); }
  // Moments with synchronized=True under a DataParallel of several processes.
  std::string data_parallel_refusal() const override;
  std::size_t num_inputs() const;

  std::string module;
  std::vector<OpArgument> arguments;
  OpAttributes attributes;
  OpAttributes call_kwargs;  // the call's own keyword arguments (Pad's constant_values), written back as kwargs
  OpNestedLists nested_attributes;  // config keys holding lists of integer lists

 private:
  std::vector<Variable> constants_;  // array arguments, read by the graph (not weights)
  // GetItem: per indexed axis, a crop (contiguous) or a selection matrix, then the axes
  // an integer removes.
  struct AxisSelection {
    std::int64_t axis = 0, begin = 0, end = 0;  // contiguous: [begin, end)
    Variable matrix;                             // otherwise: (size, picked) 0/1
  };
  std::vector<AxisSelection> selections_;
  std::vector<std::int64_t> kept_shape_;  // the result's shape, the input's batch as -1 (None's new axes 1)
  Output get_item(Graph& graph, Output x) const;
};

class OpLayer : public Layer {
 public:
  OpLayer(std::string op, std::string module, std::vector<OpArgument> arguments,
          OpAttributes attributes = {}, std::string name = "", OpAttributes call_kwargs = {},
          OpNestedLists nested_attributes = {});
};

// The operations OpLayer computes (Keras class names), sorted.
std::vector<std::string> supported_ops();
bool is_supported_op(const std::string& op);
// The keyword arguments an operation's call may be saved with (Pad: constant_values;
// RMSNorm: scale; Average: weights, these two None or a NumPy constant).
bool accepts_call_kwarg(const std::string& op, const std::string& key);
// The module Keras 3.15 defines a supported operation in ("keras.src.ops.nn" for Relu),
// for files that do not say it (Keras 3's legacy .h5 drops it).
std::string keras_module_of(const std::string& op);

}  // namespace strata::layers
