// Graph: an append-only list of nodes. Each node is an op applied to outputs of earlier
// nodes, so node order is always a valid topological order. Shapes and dtypes are
// inferred when a node is added: a mismatch throws there, not when data flows.
// A graph is finalized when a Program is compiled from it; adding a node then throws.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/attrs.h"
#include "core/shape.h"
#include "core/variable.h"

namespace strata {

class Graph;
struct OpDef;

struct TensorSpec {
  Shape shape;
  DType dtype = DType::float32;
  friend bool operator==(const TensorSpec&, const TensorSpec&) = default;
};

// A symbolic value: output `index` of node `node` in `graph`.
struct Output {
  Graph* graph = nullptr;
  int node = -1;
  int index = 0;

  bool valid() const { return graph != nullptr && node >= 0; }
  const TensorSpec& spec() const;
  const Shape& shape() const { return spec().shape; }
  DType dtype() const { return spec().dtype; }
  std::string name() const;  // "node_name" or "node_name:1"
  friend bool operator==(const Output&, const Output&) = default;
  friend auto operator<=>(const Output& a, const Output& b) {
    return std::tie(a.node, a.index) <=> std::tie(b.node, b.index);
  }
};

// Keras's bfloat16 and float16 compute dtypes, emulated on float32 tensors
// (docs/precision.md, "Mixed precision"): while a PrecisionScope is open on a graph, each
// op added has its float32 inputs rounded to the precision (those not already rounded:
// the layer's inputs, its variables) and its float32 outputs rounded, as each of
// TensorFlow's ops computes in the low dtype (layers Keras computes in float32 and casts
// back are called outside a scope, their outputs rounded: models/model.cc). Stateful ops
// (variable updates) are left as they are: Keras keeps variables in float32.
enum class ComputePrecision { float32, bfloat16, float16 };
// "round_to_bfloat16" / "round_to_float16"; "" for float32.
const char* rounding_op(ComputePrecision precision);

struct Node;
// The "gradient_rounding" attr of a node whose gradient rounds to an emulated layer's
// precision (ops::round_gradient, ops::dense, ops::conv2d_bias_activation): set for
// bfloat16 / float16 (nothing for float32), read back as the precision (float32 when
// absent).
void set_gradient_rounding(Attrs& attrs, ComputePrecision precision);
ComputePrecision gradient_rounding_of(const Node& node);
// The "output_rounding" attr of a node that rounds its own output to an emulated layer's
// precision as its kernel writes it (the fused forms of ops::conv2d_bias_activation and
// ops::dense; conv2d, dense and matmul added under a PrecisionScope): the rounding op
// after it, which read the whole output back, is then not needed
// (Graph::holds_values_of). Same values and names as gradient_rounding.
void set_output_rounding(Attrs& attrs, ComputePrecision precision);
ComputePrecision output_rounding_of(const Node& node);

struct Node {
  int id = -1;
  std::string op;
  std::string name;
  std::vector<Output> inputs;
  Attrs attrs;
  std::vector<TensorSpec> outputs;
  Variable variable;        // set for "variable" nodes only
  const OpDef* def = nullptr;
  // The precision the node was added in (PrecisionScope): its gradient is built in it
  // too, each gradient op rounded, as TensorFlow computes a bfloat16 op's gradient in
  // bfloat16 (core/autodiff.cc).
  ComputePrecision precision = ComputePrecision::float32;
  // Set on a stateful node added under a RunIfScope: a run of the step executes it only
  // where this scalar is nonzero (Keras's ops.cond around an optimizer's apply, as the
  // LossScaleOptimizer skips a step whose gradients are not finite).
  Output run_if;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // A fed input. Unknown dims (kUnknownDim) are fixed by each run's data.
  Output placeholder(const TensorSpec& spec, const std::string& name = "input");
  // The node reading `variable`; one node per variable however often it is asked for.
  Output variable(const Variable& variable);
  // Adds a node for a registered op and infers its outputs. `name` is a hint: the node
  // gets a unique name derived from it.
  std::vector<Output> add_node(const std::string& op, const std::vector<Output>& inputs,
                               Attrs attrs = {}, const std::string& name = "");
  Output add(const std::string& op, const std::vector<Output>& inputs, Attrs attrs = {},
             const std::string& name = "");

  const Node& node(int id) const { return nodes_.at(static_cast<std::size_t>(id)); }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const std::deque<Node>& nodes() const { return nodes_; }

  // State updates that layers add during their forward computation, for the model's
  // programs to run as targets: BatchNormalization's moving statistics (training only),
  // a stateful RNN's carried states (every mode).
  enum class UpdateMode { training_only, always };
  void add_update(Output update, UpdateMode mode);
  // The updates a program of the given mode must run.
  std::vector<Output> updates(bool training) const;

  // Scalar losses that layers add during their forward computation (ActivityRegularization's
  // activity penalty), as Keras's layer.add_loss: a compiled model adds them to its total
  // loss in training and evaluation.
  void add_loss(Output loss);
  const std::vector<Output>& losses() const { return losses_; }

  void finalize() { finalized_ = true; }
  bool finalized() const { return finalized_; }

  // The precision ops added now compute in (PrecisionScope below).
  ComputePrecision precision() const { return precision_; }
  void set_precision(ComputePrecision precision) { precision_ = precision; }
  // x rounded to `precision` unless it is float32's or x holds that precision's values
  // already (holds_values_of), or is not a float32 tensor.
  Output rounded(Output x, ComputePrecision precision);
  // Whether x holds only `precision`'s values: a rounding op's output, or (a few ops deep)
  // the output of an op that only selects, rearranges or takes the maximum of such values
  // (max pooling, a reshape, relu, ...; relu's gradient of such a gradient), which
  // TensorFlow's low-precision op would not change either.
  bool holds_values_of(const Output& x, ComputePrecision precision) const;

  // The condition stateful nodes added now run under (RunIfScope below); invalid when
  // none. It must be a scalar of this graph computed by a stateless node.
  Output run_if() const { return run_if_; }
  void set_run_if(Output condition);

  // Name scopes make node names readable ("dense_1/matmul"); RAII guard below.
  void push_scope(const std::string& scope) { scopes_.push_back(scope); }
  void pop_scope() { scopes_.pop_back(); }

 private:
  std::string unique_name(const std::string& hint);
  Node& append(Node node);
  std::vector<Output> add_node_as_is(const std::string& op, const std::vector<Output>& inputs, Attrs attrs,
                                     const std::string& name);

  std::deque<Node> nodes_;  // deque: references stay valid while nodes are appended
  std::unordered_map<std::string, int> name_counts_;
  std::unordered_set<std::string> names_;  // every name given out
  std::map<const void*, int> variable_nodes_;
  std::vector<std::string> scopes_;
  std::vector<std::pair<Output, UpdateMode>> updates_;
  std::vector<Output> losses_;
  ComputePrecision precision_ = ComputePrecision::float32;
  Output run_if_;
  bool finalized_ = false;
};

class PrecisionScope {
 public:
  PrecisionScope(Graph& graph, ComputePrecision precision) : graph_(graph), saved_(graph.precision()) {
    graph_.set_precision(precision);
  }
  ~PrecisionScope() { graph_.set_precision(saved_); }
  PrecisionScope(const PrecisionScope&) = delete;
  PrecisionScope& operator=(const PrecisionScope&) = delete;

 private:
  Graph& graph_;
  ComputePrecision saved_;
};

// While open, every stateful node added to the graph (a variable update) runs only in the
// steps where `condition` (a scalar) is nonzero; the nodes computing the new values run
// either way. Nested scopes replace the condition (they do not combine).
class RunIfScope {
 public:
  RunIfScope(Graph& graph, Output condition) : graph_(graph), saved_(graph.run_if()) {
    graph_.set_run_if(condition);
  }
  ~RunIfScope() { graph_.set_run_if(saved_); }
  RunIfScope(const RunIfScope&) = delete;
  RunIfScope& operator=(const RunIfScope&) = delete;

 private:
  Graph& graph_;
  Output saved_;
};

class NameScope {
 public:
  NameScope(Graph& graph, const std::string& scope) : graph_(graph) { graph_.push_scope(scope); }
  ~NameScope() { graph_.pop_scope(); }
  NameScope(const NameScope&) = delete;
  NameScope& operator=(const NameScope&) = delete;

 private:
  Graph& graph_;
};

}  // namespace strata
