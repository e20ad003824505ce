#include "layers/recurrent/rnn_cells.h"

#include "core/error.h"
#include "core/ops/rnn_ops.h"
#include "core/rng.h"
#include "layers/activations.h"
#include "layers/weight_budget.h"

namespace strata::layers {

namespace {

int gates(const std::string& kind) { return kind == "lstm" ? 4 : kind == "gru" ? 3 : 1; }

}  // namespace

RNNCellImpl::RNNCellImpl(const std::string& class_name, CellConfig config_, const std::string& cell_name)
    : LayerImpl(class_name, cell_name), config(std::move(config_)) {
  if (config.units <= 0) throw ValueError(class_name + ": units must be positive, got " + std::to_string(config.units));
  activations::validate(config.activation);
  activations::validate(config.recurrent_activation);
  for (double rate : {config.dropout, config.recurrent_dropout}) {
    if (rate < 0.0 || rate >= 1.0) throw ValueError(class_name + ": dropout rates must be in [0, 1)");
  }
}

std::vector<Output> RNNCellImpl::call(Graph&, const std::vector<Output>&) {
  throw ValueError(class_name() + " '" + name + "' is a cell: wrap it in a layer, e.g. layers::RNN(cell)");
}

void RNNCellImpl::attach(const LayerImpl* layer) {
  if (owner_ && owner_ != layer) {
    throw ValueError(class_name() + " '" + name + "' already belongs to layer '" + owner_->name +
                     "'; every recurrent layer needs its own cell: create a new " + class_name() +
                     " instance instead of reusing this one");
  }
  owner_ = layer;
}

void RNNCellImpl::build_cell(std::int64_t input_dim, const std::string& prefix) {
  const std::int64_t H = config.units, G = gates(config.kind);
  const std::string base = prefix + "/" + name + "/";
  charge_weight(base + "kernel", Shape{input_dim, G * H});
  charge_weight(base + "recurrent_kernel", Shape{H, G * H});
  const Shape bias_shape = config.kind == "gru" && config.reset_after ? Shape{2, G * H} : Shape{G * H};
  // The penalties and constraints of the weights, as add_weight keeps them (checked first).
  const auto rule = [&](const char* weight, const Shape& shape, const Regularizer& r, const Constraint& c) {
    try {
      r.check(shape);
      c.check(shape);
    } catch (const ValueError& e) {
      throw ValueError("weight '" + std::string(weight) + "' of cell '" + name + "': " + e.what());
    }
  };
  rule("kernel", Shape{input_dim, G * H}, config.kernel_regularizer, config.kernel_constraint);
  rule("recurrent_kernel", Shape{H, G * H}, config.recurrent_regularizer, config.recurrent_constraint);
  if (config.use_bias) rule("bias", bias_shape, config.bias_regularizer, config.bias_constraint);
  kernel = Variable(base + "kernel", config.kernel_initializer(Shape{input_dim, G * H}));
  recurrent_kernel = Variable(base + "recurrent_kernel", config.recurrent_initializer(Shape{H, G * H}));
  weight_rules.clear();
  const auto keep_rule = [&](const Variable& v, const Regularizer& r, const Constraint& c) {
    if (r.defined() || c.defined()) weight_rules.push_back({v, r, c});
  };
  keep_rule(kernel, config.kernel_regularizer, config.kernel_constraint);
  keep_rule(recurrent_kernel, config.recurrent_regularizer, config.recurrent_constraint);
  if (!config.use_bias) {
    // Keras keeps no bias (none in its files either); the fused op still adds one, so it
    // reads zeros held aside: not a weight, not trained, not saved.
    bias = Variable(base + "zero_bias", Tensor::filled(bias_shape, 0.0f), /*trainable=*/false);
    weights = {kernel, recurrent_kernel};
    built = true;
    return;
  }
  Tensor b = config.bias_initializer(bias_shape);
  if (config.kind == "lstm" && config.unit_forget_bias) {
    float* p = b.data<float>();
    for (std::int64_t j = H; j < 2 * H; ++j) p[j] = 1.f;
  }
  bias = Variable(base + "bias", b);
  keep_rule(bias, config.bias_regularizer, config.bias_constraint);
  weights = {kernel, recurrent_kernel, bias};
  built = true;
}

CellSequence RNNCellImpl::run(Graph& graph, Output x, const std::vector<Output>& states, Output mask,
                              bool go_backwards, bool input_in_processing_order, bool zero_output_for_mask,
                              bool reverse_output, std::uint64_t call) const {
  Attrs attrs{{"cell", config.kind},
              {"activation", config.activation.empty() ? std::string("linear") : config.activation},
              {"recurrent_activation", config.recurrent_activation},
              {"reset_after", config.reset_after},
              {"go_backwards", go_backwards},
              {"input_in_processing_order", input_in_processing_order},
              {"zero_output_for_mask", zero_output_for_mask},
              {"reverse_output", reverse_output},
              {"dropout", config.dropout},
              {"recurrent_dropout", config.recurrent_dropout},
              {"seed", static_cast<std::int64_t>(call == 0 ? config.seed : mix_seed(config.seed, call))}};
  Output h0 = states.at(0);
  Output c0 = num_states() == 2 ? states.at(1) : h0;
  auto outs = ops::rnn_sequence(x, h0, c0, graph.variable(kernel), graph.variable(recurrent_kernel),
                                graph.variable(bias), mask, attrs);
  CellSequence r{outs[0], {outs[1]}};
  if (num_states() == 2) r.states.push_back(outs[2]);
  return r;
}

std::shared_ptr<RNNCellImpl> RNNCellImpl::fresh_copy() const {
  CellConfig c = config;
  c.seed = mix_seed(config.seed, 1);  // the copy's dropout masks differ from the original's
  return std::make_shared<RNNCellImpl>(class_name(), c, name);
}

namespace {

// Calls fn with the fields of `kind`.
template <typename Fn>
decltype(auto) with_cell_fields(const std::string& kind, Fn&& fn) {
  if (kind == "lstm") return fn(cell_keras_fields<true, true, false>());
  if (kind == "gru") return fn(cell_keras_fields<true, false, true>());
  return fn(cell_keras_fields<false, false, false>());
}

}  // namespace

void append_cell_keras_specs(KerasClass& k, const std::string& kind) {
  with_cell_fields(kind, [&](const auto& fields) { append_keras_specs(k, fields); });
}

void append_cell_keras_values(std::vector<ConfigValue>& out, const CellConfig& c) {
  with_cell_fields(c.kind, [&](const auto& fields) { append_keras_values(out, c, fields); });
}

CellConfig read_cell_config(const ConfigSource& src, const std::string& kind) {
  CellConfig c;
  c.kind = kind;
  c.unit_forget_bias = kind == "lstm";
  // Keras 2.0-2.3 GRUs had no reset_after key and computed reset_after=False.
  c.reset_after = src.keras_major() >= 3;
  with_cell_fields(kind, [&](const auto& fields) { read_keras_fields(src, fields, c); });
  if (c.units == 0) throw ValueError(src.where() + ": config has no 'units'");
  if (c.recurrent_activation.empty()) c.recurrent_activation = "linear";
  FieldSpec seed = spec_of("seed", ValueKind::integer);
  seed.nullable = true;
  std::optional<ConfigValue> given = src.get(seed);
  c.seed = given && std::holds_alternative<std::int64_t>(*given)
               ? static_cast<std::uint64_t>(std::get<std::int64_t>(*given))
               : next_seed();
  return c;
}

KerasClass describe_cell(const char* class_name, const char* kind) {
  KerasClass k;
  k.class_name = class_name;
  append_cell_keras_specs(k, kind);
  k.values = [](const LayerImpl& impl) {
    std::vector<ConfigValue> out;
    append_cell_keras_values(out, static_cast<const RNNCellImpl&>(impl).config);
    return out;
  };
  k.make = [class_name, kind](const ConfigSource& src) -> Layer {
    return Layer(std::make_shared<RNNCellImpl>(class_name, read_cell_config(src, kind), src.name()));
  };
  return k;
}

}  // namespace strata::layers
