#include "layers/layer.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <mutex>

#include "core/error.h"
#include "layers/call_tensors.h"
#include "layers/weight_budget.h"

namespace strata {

namespace {

std::mutex g_names_mutex;
std::map<std::string, int> g_name_counts;

// Keras's naming.to_snake_case: drop non-word characters, then
// re.sub("(.)([A-Z][a-z]+)", r"\1_\2") and re.sub("([a-z])([A-Z])", r"\1_\2"), lowercased:
// "Conv2D" -> "conv2d", "MaxPooling2D" -> "max_pooling2d", "GRUCell" -> "gru_cell".
std::string snake_case(const std::string& raw) {
  auto upper = [](char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; };
  auto lower = [](char c) { return std::islower(static_cast<unsigned char>(c)) != 0; };
  std::string name;
  for (char c : raw) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') name += c;
  }
  std::string step;
  for (std::size_t p = 0; p < name.size();) {
    if (p + 2 < name.size() && upper(name[p + 1]) && lower(name[p + 2])) {
      std::size_t end = p + 3;
      while (end < name.size() && lower(name[end])) ++end;
      step += name[p];
      step += '_';
      step += name.substr(p + 1, end - p - 1);
      p = end;
    } else {
      step += name[p++];
    }
  }
  std::string out;
  for (std::size_t p = 0; p < step.size();) {
    if (p + 1 < step.size() && lower(step[p]) && upper(step[p + 1])) {
      out += step[p];
      out += '_';
      out += step[p + 1];
      p += 2;
    } else {
      out += step[p++];
    }
  }
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string shapes_of(const std::vector<TensorSpec>& specs) {
  std::string s;
  for (std::size_t i = 0; i < specs.size(); ++i) s += (i ? ", " : "") + specs[i].shape.to_string();
  return s;
}

}  // namespace

std::string default_layer_name(const std::string& class_name) {
  std::lock_guard<std::mutex> lock(g_names_mutex);
  std::string base = snake_case(class_name);
  int& count = g_name_counts[base];
  std::string name = count == 0 ? base : base + "_" + std::to_string(count);
  ++count;
  return name;
}

void clear_session() {
  std::lock_guard<std::mutex> lock(g_names_mutex);
  g_name_counts.clear();
}

// --- KerasTensor ---------------------------------------------------------------------

const TensorSpec& KerasTensor::spec() const {
  if (!call_) throw ValueError("use of an undefined KerasTensor");
  return call_->outputs.at(static_cast<std::size_t>(index_));
}

KerasTensor::operator Layer() const {
  if (!call_ || call_->layer.class_name() != "InputLayer") {
    throw ValueError("only a tensor made by Input() can stand for a layer (in a Sequential list)");
  }
  return call_->layer;
}

// --- LayerImpl -----------------------------------------------------------------------

LayerImpl::LayerImpl(std::string class_name, std::string layer_name)
    : name(layer_name.empty() ? default_layer_name(class_name) : std::move(layer_name)),
      dtype_policy(global_dtype_policy()),
      class_name_(std::move(class_name)) {}

std::vector<Layer> LayerImpl::sublayers() const { return {}; }

Variable LayerImpl::add_weight(const std::string& weight_name, const Shape& shape, const Initializer& initializer,
                               bool weight_trainable) {
  layers::charge_weight(name + "/" + weight_name, shape);
  Variable v(name + "/" + weight_name, initializer(shape), weight_trainable);
  weights.push_back(v);
  store_in_policy_dtype(v, dtype_policy);
  return v;
}

Variable LayerImpl::add_weight(const std::string& weight_name, const Shape& shape, const Initializer& initializer,
                               const WeightOptions& options) {
  try {
    options.regularizer.check(shape);
    options.constraint.check(shape);
  } catch (const ValueError& e) {
    throw ValueError("weight '" + weight_name + "': " + e.what());
  }
  Variable v = add_weight(weight_name, shape, initializer, options.trainable);
  if (options.regularizer.defined() || options.constraint.defined()) {
    weight_rules.push_back({v, options.regularizer, options.constraint});
  }
  return v;
}

void LayerImpl::quantize(const std::string& /*mode*/) {
  throw NotImplementedError("Layer " + class_name() + " does not have a `quantize` method implemented.");
}

// --- Layer ---------------------------------------------------------------------------

LayerImpl& Layer::impl() const {
  if (!impl_) throw ValueError("use of an undefined Layer");
  return *impl_;
}

KerasTensor Layer::operator()(const KerasTensor& input) const { return (*this)(std::vector<KerasTensor>{input})[0]; }

std::vector<KerasTensor> Layer::operator()(const std::vector<KerasTensor>& inputs) const {
  return call_with(inputs, CallArguments{});
}

std::vector<KerasTensor> Layer::call_with(const std::vector<KerasTensor>& inputs,
                                          const CallArguments& arguments) const {
  LayerImpl& layer = impl();
  const std::string where = layer.class_name() + " '" + layer.name + "'";
  // Tensors passed as call arguments (masks) are the call's last inputs (call_tensors.h).
  const std::size_t tensor_arguments = tensor_argument_count(layer, arguments);
  if (tensor_arguments > inputs.size() || !layer.accepts_input_count(inputs.size() - tensor_arguments)) {
    throw ValueError(where + " cannot take " + std::to_string(inputs.size() - std::min(tensor_arguments, inputs.size())) +
                     " inputs" +
                     (tensor_arguments ? " (and " + std::to_string(tensor_arguments) + " tensor call arguments)" : ""));
  }
  const std::vector<std::string> accepted = layer.call_argument_names();
  for (const auto& [name, value] : arguments) {
    if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) {
      std::string known;
      for (const auto& a : accepted) known += (known.empty() ? "" : ", ") + a;
      throw ValueError(where + " takes no call argument '" + name + "'" +
                       (known.empty() ? "" : " (it takes " + known + ")"));
    }
  }
  std::vector<TensorSpec> specs;
  for (const auto& in : inputs) {
    if (!in.defined()) throw ValueError(where + " was called on an undefined tensor");
    specs.push_back(in.spec());
  }
  std::vector<TensorSpec> out_specs;
  const std::size_t weights_before = layer.weights.size();
  try {
    // build() may read the arguments too (which inputs are masks).
    layer.current_call = layer.recorded_calls;
    layer.current_arguments = arguments;
    if (!layer.built) {
      try {
        layer.build(specs);
      } catch (...) {
        layer.weights.resize(weights_before);  // a failed build leaves no partial weights
        throw;
      }
      layer.built = true;
    }
    // Trace on a scratch graph, in the layer's dtype policy: shape errors surface now, at
    // definition, and a policy the class (or this use of it) does not compute in.
    Graph scratch;
    std::vector<Output> placeholders;
    for (const auto& s : specs) placeholders.push_back(scratch.placeholder(s));
    for (const auto& out : call_in_dtype_policy(layer, scratch, placeholders, {})) out_specs.push_back(out.spec());
  } catch (const ShapeError& e) {
    throw ShapeError(where + " cannot be called on input of shape " + shapes_of(specs) + ": " + e.what());
  } catch (const ValueError& e) {
    throw ValueError(where + ": " + e.what());
  } catch (const NotImplementedError& e) {
    throw NotImplementedError(where + ": " + e.what());
  }
  auto call = std::make_shared<LayerCall>(LayerCall{*this, inputs, out_specs, layer.recorded_calls++, arguments});
  std::vector<KerasTensor> outs;
  for (int i = 0; i < static_cast<int>(out_specs.size()); ++i) outs.emplace_back(call, i);
  return outs;
}

void Layer::set_dtype_policy(const std::string& policy) const {
  if (!is_float_dtype_policy(policy)) {
    throw ValueError("layer '" + name() + "': dtype policy '" + policy +
                     "' is not one Strata computes in (float32, mixed_bfloat16, bfloat16, mixed_float16, float16)");
  }
  impl().dtype_policy = policy;
}

void Layer::set_trainable(bool trainable) const {
  impl().trainable = trainable;
  for (const auto& sub : impl().sublayers()) sub.set_trainable(trainable);
}

std::vector<Variable> Layer::weights() const {
  // Keras 3 order: this layer's own weights, then each nested layer's, recursively.
  std::vector<Variable> all = impl().weights;
  for (const auto& sub : impl().sublayers()) {
    for (const auto& v : sub.weights()) all.push_back(v);
  }
  return all;
}

std::vector<Variable> Layer::trainable_weights() const {
  std::vector<Variable> out;
  if (!impl().trainable) return out;
  for (const auto& v : impl().weights) {
    if (v.trainable()) out.push_back(v);
  }
  for (const auto& sub : impl().sublayers()) {
    for (const auto& v : sub.trainable_weights()) out.push_back(v);
  }
  return out;
}

std::vector<Variable> Layer::non_trainable_weights() const {
  std::vector<Variable> out;
  for (const auto& v : impl().weights) {
    if (!impl().trainable || !v.trainable()) out.push_back(v);
  }
  for (const auto& sub : impl().sublayers()) {
    for (const auto& v : sub.non_trainable_weights()) out.push_back(v);
  }
  return out;
}

std::vector<WeightRule> Layer::weight_rules() const {
  std::vector<WeightRule> all = impl().weight_rules;
  for (const auto& sub : impl().sublayers()) {
    for (const auto& r : sub.weight_rules()) all.push_back(r);
  }
  return all;
}

std::vector<Tensor> Layer::get_weights() const {
  std::vector<Tensor> out;
  // Copies on the host, whichever device the variables live on (Keras returns NumPy arrays).
  for (const auto& v : weights()) out.push_back(v.value().on_cpu() ? v.value().clone() : v.value().to(Device{}));
  return out;
}

void Layer::set_weights(const std::vector<Tensor>& values) const {
  auto vars = weights();
  if (values.size() != vars.size()) {
    throw ValueError(class_name() + " '" + name() + "' expects " + std::to_string(vars.size()) +
                     " weight arrays, got " + std::to_string(values.size()));
  }
  for (std::size_t i = 0; i < vars.size(); ++i) {
    if (values[i].dtype() != vars[i].dtype()) {
      throw ValueError(class_name() + " '" + name() + "': weight '" + vars[i].path() + "' has dtype " +
                       to_string(vars[i].dtype()) + ", got " + to_string(values[i].dtype()));
    }
    if (values[i].shape() != vars[i].shape()) {
      throw ShapeError(class_name() + " '" + name() + "': weight '" + vars[i].path() + "' has shape " +
                       vars[i].shape().to_string() + ", got " + values[i].shape().to_string());
    }
  }
  for (std::size_t i = 0; i < vars.size(); ++i) vars[i].assign(values[i]);
}

std::int64_t Layer::count_params() const {
  std::int64_t n = 0;
  for (const auto& v : weights()) n += v.value().size();
  return n;
}

}  // namespace strata
