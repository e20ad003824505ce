#include "core/graph.h"

#include <unordered_set>

#include "core/op_registry.h"
#include "core/variable_override.h"

namespace strata {

const TensorSpec& Output::spec() const {
  if (!valid()) throw ValueError("use of an undefined symbolic tensor");
  const Node& n = graph->node(node);
  if (index < 0 || index >= static_cast<int>(n.outputs.size())) {
    throw ValueError("node '" + n.name + "' (" + n.op + ") has " + std::to_string(n.outputs.size()) +
                     " outputs; output " + std::to_string(index) + " does not exist" +
                     (n.outputs.empty() ? " (an update node: pass it as a Program target)" : ""));
  }
  return n.outputs[static_cast<std::size_t>(index)];
}

std::string Output::name() const {
  if (!valid()) return "<undefined>";
  const Node& n = graph->node(node);
  return index == 0 ? n.name : n.name + ":" + std::to_string(index);
}

std::string Graph::unique_name(const std::string& hint) {
  std::string base;
  for (const auto& s : scopes_) base += s + "/";
  base += hint;
  // "x", "x_1", "x_2", ... skipping names already taken (a hint may itself be "x_1").
  int& count = name_counts_[base];
  std::string name = count == 0 ? base : base + "_" + std::to_string(count);
  while (names_.count(name)) name = base + "_" + std::to_string(++count);
  ++count;
  names_.insert(name);
  return name;
}

Node& Graph::append(Node node) {
  if (finalized_) {
    throw Error("graph is finalized: cannot add node '" + node.op +
                "' after compile (ops must be created at definition time, not in a loop)");
  }
  node.id = num_nodes();
  node.precision = precision_;
  if (run_if_.valid() && node.def && node.def->stateful) node.run_if = run_if_;
  nodes_.push_back(std::move(node));
  return nodes_.back();
}

void Graph::set_run_if(Output condition) {
  if (condition.valid()) {
    if (condition.graph != this) throw ValueError("RunIfScope: the condition belongs to another graph");
    const Node& producer = node(condition.node);
    if (producer.def && producer.def->stateful) {
      throw ValueError("RunIfScope: the condition '" + producer.name + "' is computed by a stateful node");
    }
    if (condition.shape().rank() != 0 && condition.shape().is_fully_defined() && condition.shape().num_elements() != 1) {
      throw ValueError("RunIfScope: the condition '" + producer.name + "' is not a scalar (shape " +
                       condition.shape().to_string() + ")");
    }
  }
  run_if_ = condition;
}

Output Graph::placeholder(const TensorSpec& spec, const std::string& name) {
  Node n;
  n.op = "placeholder";
  n.def = &OpRegistry::global().get("placeholder");
  n.name = unique_name(name);
  n.outputs = {spec};
  return {this, append(std::move(n)).id, 0};
}

Output Graph::variable(const Variable& variable) {
  if (Output o = variable_override(*this, variable); o.valid()) return o;  // core/variable_override.h
  auto it = variable_nodes_.find(variable.id());
  if (it != variable_nodes_.end()) return {this, it->second, 0};
  Node n;
  n.op = "variable";
  n.def = &OpRegistry::global().get("variable");
  n.name = unique_name(variable.path());
  n.outputs = {{variable.shape(), variable.dtype()}};
  n.variable = variable;
  int id = append(std::move(n)).id;
  variable_nodes_[variable.id()] = id;
  return {this, id, 0};
}

const char* rounding_op(ComputePrecision precision) {
  switch (precision) {
    case ComputePrecision::bfloat16:
      return "round_to_bfloat16";
    case ComputePrecision::float16:
      return "round_to_float16";
    case ComputePrecision::float32:
      break;
  }
  return "";
}

namespace {

// Ops whose float outputs hold only values of their float inputs (a maximum, a selection,
// a rearrangement): given inputs that are a precision's values, so are theirs.
bool keeps_input_values(const std::string& op) {
  static const std::unordered_set<std::string> ops{
      "max_pool2d", "reshape", "reshape_like", "transpose", "expand_dims", "concat",  "concat_last", "crop",
      "broadcast_like", "merge_axes", "split_axis", "upsample_nearest2d", "relu", "maximum", "minimum", "identity"};
  return ops.count(op) > 0;
}

// A max pooling's gradient (or the one fused with a relu's) whose windows do not overlap:
// each element of its output is one element of the gradient it routes, or 0 (overlapping
// windows add theirs).
bool routes_without_sums(const Node& node) {
  if (node.op != "max_pool2d_grad" && node.op != "max_pool2d_relu_grad") return false;
  const auto& pool = node.attrs.get<std::vector<std::int64_t>>("pool_size");
  const auto& strides = node.attrs.get<std::vector<std::int64_t>>("strides");
  if (pool.size() != strides.size()) return false;
  for (std::size_t i = 0; i < pool.size(); ++i) {
    if (strides[i] < pool[i]) return false;
  }
  return true;
}

bool holds_values(const Graph& graph, const Output& x, const char* rounding, int depth) {
  const Node& producer = graph.node(x.node);
  if (producer.op == rounding) return true;
  if (x.index == 0 && std::string_view(rounding_op(output_rounding_of(producer))) == rounding) return true;
  if (depth == 0) return false;
  if (producer.op == "relu_grad") return holds_values(graph, producer.inputs.at(0), rounding, depth - 1);  // dy or 0
  // The routed gradient (its second input) or 0; the relu-fused one's bias gradient
  // (its second output) is a sum.
  if (x.index == 0 && routes_without_sums(producer)) {
    return holds_values(graph, producer.inputs.at(1), rounding, depth - 1);
  }
  if (!keeps_input_values(producer.op)) return false;
  bool any = false;
  for (const Output& in : producer.inputs) {
    if (in.dtype() != DType::float32) continue;  // an index or a shape
    if (!holds_values(graph, in, rounding, depth - 1)) return false;
    any = true;
  }
  return any;
}

}  // namespace

bool Graph::holds_values_of(const Output& x, ComputePrecision precision) const {
  if (precision == ComputePrecision::float32) return x.dtype() == DType::float32;
  if (!x.valid() || x.graph != this || x.dtype() != DType::float32) return false;
  return holds_values(*this, x, rounding_op(precision), 6);
}

namespace {

void set_rounding_attr(Attrs& attrs, const char* attr, ComputePrecision precision) {
  if (precision == ComputePrecision::float32) return;
  attrs.set(attr, std::string(precision == ComputePrecision::bfloat16 ? "bfloat16" : "float16"));
}

ComputePrecision rounding_attr_of(const Node& node, const char* attr) {
  const std::string* name = node.attrs.find<std::string>(attr);
  if (!name) return ComputePrecision::float32;
  return *name == "bfloat16" ? ComputePrecision::bfloat16 : ComputePrecision::float16;
}

}  // namespace

void set_gradient_rounding(Attrs& attrs, ComputePrecision precision) {
  set_rounding_attr(attrs, "gradient_rounding", precision);
}

ComputePrecision gradient_rounding_of(const Node& node) { return rounding_attr_of(node, "gradient_rounding"); }

void set_output_rounding(Attrs& attrs, ComputePrecision precision) {
  set_rounding_attr(attrs, "output_rounding", precision);
}

ComputePrecision output_rounding_of(const Node& node) { return rounding_attr_of(node, "output_rounding"); }

Output Graph::rounded(Output x, ComputePrecision precision) {
  if (precision == ComputePrecision::float32 || !x.valid() || x.graph != this || x.dtype() != DType::float32) {
    return x;
  }
  if (holds_values_of(x, precision)) return x;
  const char* op = rounding_op(precision);
  return add_node_as_is(op, {x}, {}, op)[0];
}

std::vector<Output> Graph::add_node(const std::string& op, const std::vector<Output>& inputs,
                                    Attrs attrs, const std::string& name) {
  const ComputePrecision precision = precision_;
  if (precision == ComputePrecision::float32 || op == rounding_op(precision) ||
      OpRegistry::global().get(op).stateful) {
    return add_node_as_is(op, inputs, std::move(attrs), name);
  }
  std::vector<Output> rounded_inputs;
  rounded_inputs.reserve(inputs.size());
  for (const Output& in : inputs) rounded_inputs.push_back(rounded(in, precision));
  // An op whose kernels round their own output (OpDef::rounds_own_output: conv2d, dense,
  // matmul) gets the attr instead of a rounding op that would read the whole output back.
  if (OpRegistry::global().get(op).rounds_own_output) set_output_rounding(attrs, precision);
  std::vector<Output> outs = add_node_as_is(op, rounded_inputs, std::move(attrs), name);
  for (Output& out : outs) out = rounded(out, precision);  // nothing for an op that rounds its own
  return outs;
}

std::vector<Output> Graph::add_node_as_is(const std::string& op, const std::vector<Output>& inputs,
                                          Attrs attrs, const std::string& name) {
  const OpDef& def = OpRegistry::global().get(op);
  std::vector<TensorSpec> in_specs;
  in_specs.reserve(inputs.size());
  for (const auto& in : inputs) {
    if (!in.valid()) throw ValueError("op '" + op + "' was given an undefined input");
    if (in.graph != this) throw ValueError("op '" + op + "' mixes tensors from two graphs");
    in_specs.push_back(in.spec());
    if (in_specs.back().dtype == DType::string && !def.takes_strings) {
      throw ValueError("op '" + op + "' does not take string inputs (input " +
                       std::to_string(in_specs.size() - 1) + " is a string tensor of shape " +
                       in_specs.back().shape.to_string() +
                       "); map strings to numbers first (StringLookup, Hashing)");
    }
  }
  std::vector<TensorSpec> out_specs = def.infer(InferContext{op, in_specs, attrs});
  Node n;
  n.op = op;
  n.def = &def;
  n.name = unique_name(name.empty() ? op : name);
  n.inputs = inputs;
  n.attrs = std::move(attrs);
  n.outputs = std::move(out_specs);
  Node& added = append(std::move(n));
  std::vector<Output> outs;
  for (int i = 0; i < static_cast<int>(added.outputs.size()); ++i) outs.push_back({this, added.id, i});
  return outs;
}

void Graph::add_update(Output update, UpdateMode mode) {
  if (update.graph != this) throw ValueError("add_update: the update belongs to another graph");
  if (!node(update.node).def->stateful) {
    throw ValueError("add_update: node '" + node(update.node).name + "' is not a stateful update");
  }
  updates_.emplace_back(update, mode);
}

std::vector<Output> Graph::updates(bool training) const {
  std::vector<Output> out;
  for (const auto& [update, mode] : updates_) {
    if (training || mode == UpdateMode::always) out.push_back(update);
  }
  return out;
}

void Graph::add_loss(Output loss) {
  if (loss.graph != this) throw ValueError("add_loss: the loss belongs to another graph");
  if (loss.shape().rank() != 0) throw ShapeError("add_loss: a loss must be a scalar, got " + loss.shape().to_string());
  losses_.push_back(loss);
}

Output Graph::add(const std::string& op, const std::vector<Output>& inputs, Attrs attrs,
                  const std::string& name) {
  auto outs = add_node(op, inputs, std::move(attrs), name);
  if (outs.size() != 1) throw ValueError("op '" + op + "' has " + std::to_string(outs.size()) + " outputs");
  return outs[0];
}

}  // namespace strata
