#include "layers/recurrent/rnn.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/rnn_ops.h"
#include "core/ops/scan_ops.h"
#include "layers/recurrent/initial_state.h"

namespace strata::layers {

namespace {

std::shared_ptr<RNNCellImpl> as_cell(const Layer& layer) {
  auto cell = std::dynamic_pointer_cast<RNNCellImpl>(layer.shared_impl());
  if (!cell) throw ValueError("RNN expects a cell (SimpleRNNCell, LSTMCell, GRUCell), got " + layer.class_name());
  return cell;
}

std::vector<std::shared_ptr<RNNCellImpl>> as_cells(const std::vector<Layer>& layers) {
  if (layers.empty()) throw ValueError("RNN needs at least one cell");
  std::vector<std::shared_ptr<RNNCellImpl>> out;
  for (const auto& l : layers) out.push_back(as_cell(l));
  return out;
}

}  // namespace

RNNImpl::RNNImpl(const std::string& class_name, std::vector<std::shared_ptr<RNNCellImpl>> cells_, RNNOptions options_)
    : LayerImpl(class_name, options_.name), cells(std::move(cells_)), options(std::move(options_)) {
  activity_regularizer = options.activity_regularizer;
  for (const auto& c : cells) {
    if (c->activity_regularizer.defined()) {
      throw NotImplementedError(class_name + ": cell '" + c->name + "' has an activity_regularizer (" +
                                c->activity_regularizer.class_name() + "), which Strata does not apply to cells");
    }
    c->attach(this);
  }
}

std::size_t RNNImpl::num_states() const {
  std::size_t n = 0;
  for (const auto& c : cells) n += static_cast<std::size_t>(c->num_states());
  return n;
}

std::string RNNImpl::data_parallel_refusal() const {
  if (!options.stateful) return {};
  return "stateful=True is not supported: the states carried between batches belong to samples that the "
         "processes' shares split";
}

std::vector<Layer> RNNImpl::sublayers() const {
  std::vector<Layer> out;
  for (const auto& c : cells) out.emplace_back(c);
  return out;
}

void RNNImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  if (s.rank() != 3) {
    throw ShapeError("expects input of rank 3 (batch, timesteps, features), got " + s.to_string());
  }
  if (s[2] == kUnknownDim) throw ShapeError("the feature dimension of the input must be known, got " + s.to_string());
  std::string prefix = weight_prefix.empty() ? name : weight_prefix;
  if (cells.size() > 1) prefix += "/stacked_rnn_cells";  // Keras wraps several cells in StackedRNNCells
  std::int64_t dim = s[2];
  for (const auto& c : cells) {
    c->build_cell(dim, prefix);
    dim = c->config.units;
  }
  if (options.stateful) {
    if (s[0] == kUnknownDim) {
      throw ValueError("a stateful RNN needs a fixed batch size: give the Input a batch_size "
                       "(layers::Input({timesteps, features}, {.batch_size = 32})), got input shape " +
                       s.to_string());
    }
    for (const auto& c : cells) {
      for (int k = 0; k < c->num_states(); ++k) {
        state_vars.emplace_back(name + "/state_" + std::to_string(state_vars.size()),
                                Tensor(Shape{s[0], c->config.units}), false);
      }
    }
  }
}

void RNNImpl::reset_states() {
  for (auto& v : state_vars) v.assign(Tensor(v.shape()));
}

std::vector<Output> RNNImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

std::vector<Output> RNNImpl::call_masked(Graph& graph, const std::vector<Output>& all,
                                         const std::vector<Output>& masks) {
  const RecurrentCall call = recurrent_call(*this, all, masks, num_states());
  return run(graph, call.inputs, call.mask);
}

std::vector<std::string> RNNImpl::call_argument_names() const { return recurrent_call_argument_names(num_states()); }
std::vector<TensorArgument> RNNImpl::tensor_arguments() const { return recurrent_tensor_arguments(num_states()); }

std::vector<Output> RNNImpl::compute_mask(Graph&, const std::vector<Output>& all,
                                          const std::vector<Output>& masks) {
  std::vector<Output> out(options.return_state ? 1 + num_states() : 1);
  if (options.return_sequences) out[0] = mask_argument_or_input_mask(split_call_inputs(*this, current_arguments, all), masks);
  return out;
}

namespace {

// The output of the last processed step under a (batch, time) mask, as Keras's TensorFlow
// backend gives it (outputs[-1]): a masked step repeats the previous output, which starts
// at zeros, so it is the carried h once any step was kept and zeros for a row with none
// (not the initial or carried-over state); with zero_output_for_mask, the carried h where
// the last processed step (the first in input order with go_backwards) is kept, else zeros.
Output masked_last_output(Output last_h, Output mask, bool go_backwards, bool zero_output_for_mask) {
  if (mask.dtype() != DType::float32) mask = ops::cast(mask, DType::float32);
  const Output kept = ops::cast(ops::not_equal(mask, ops::constant(*mask.graph, 0.f)), DType::float32);
  if (!zero_output_for_mask) return ops::mul(last_h, ops::reduce_max(kept, {1}, true));
  const Output position = ops::cumsum(ops::ones_like(kept), 1);  // 1 ... T
  const Output last = go_backwards ? ops::constant(*mask.graph, 1.f) : ops::reduce_max(position, {1}, true);
  const Output at_last = ops::cast(ops::equal(position, last), DType::float32);
  return ops::mul(last_h, ops::reduce_sum(ops::mul(kept, at_last), {1}, true));
}

}  // namespace

std::vector<Output> RNNImpl::run(Graph& graph, const std::vector<Output>& inputs, Output mask) {
  Output x = inputs[0];
  const Shape& s = x.shape();
  if (s.rank() != 3) throw ShapeError("expects input of rank 3 (batch, timesteps, features), got " + s.to_string());
  if (options.unroll && s[1] == kUnknownDim) throw ValueError(unroll_needs_time_steps(s));
  if (s[2] != cells[0]->kernel.shape()[0]) {
    throw ShapeError("expects input with last dimension " + std::to_string(cells[0]->kernel.shape()[0]) + ", got " +
                     s.to_string());
  }
  // Initial states: given as inputs, carried in variables (stateful), or zeros.
  std::vector<Output> states;
  if (inputs.size() > 1) {
    std::size_t k = 1;
    for (const auto& c : cells) {
      for (int j = 0; j < c->num_states(); ++j, ++k) {
        const Shape& st = inputs[k].shape();
        Shape want{s[0], c->config.units};
        if (st.rank() != 2 || !st.is_compatible_with(want)) {
          throw ShapeError("initial_state " + std::to_string(k - 1) + " has shape " + st.to_string() + ", expected " +
                           want.to_string() + " for cell '" + c->name + "'");
        }
        states.push_back(inputs[k]);
      }
    }
  } else if (options.stateful) {
    for (const auto& v : state_vars) states.push_back(graph.variable(v));
  } else {
    for (const auto& c : cells) {
      for (int j = 0; j < c->num_states(); ++j) states.push_back(ops::rnn_zero_state(x, c->config.units));
    }
  }
  std::vector<Output> last_states;
  Output seq = x;
  std::size_t k = 0;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const auto& c = cells[i];
    std::vector<Output> st(states.begin() + static_cast<std::ptrdiff_t>(k),
                           states.begin() + static_cast<std::ptrdiff_t>(k + static_cast<std::size_t>(c->num_states())));
    k += static_cast<std::size_t>(c->num_states());
    CellSequence r = c->run(graph, seq, st, mask, options.go_backwards, i > 0, options.zero_output_for_mask,
                            reverse_output && i + 1 == cells.size(), static_cast<std::uint64_t>(current_call));
    seq = r.sequence;
    last_states.insert(last_states.end(), r.states.begin(), r.states.end());
  }
  if (options.stateful) {
    for (std::size_t j = 0; j < state_vars.size(); ++j) {
      graph.add_update(ops::assign(graph.variable(state_vars[j]), last_states[j]), Graph::UpdateMode::always);
    }
  }
  // The last cell's h is the layer's last output; under a mask, the last processed step's
  // output, as Keras's TensorFlow backend takes it (masked_last_output).
  Output last_h = last_states[last_states.size() - static_cast<std::size_t>(cells.back()->num_states())];
  Output last_output = last_h;
  if (mask.valid() && !options.return_sequences) {
    last_output = masked_last_output(last_h, mask, options.go_backwards, options.zero_output_for_mask);
  }
  std::vector<Output> out{options.return_sequences ? seq : last_output};
  if (options.return_state) out.insert(out.end(), last_states.begin(), last_states.end());
  return out;
}

std::shared_ptr<RNNImpl> RNNImpl::fresh_copy(bool flip, const std::string& new_name) const {
  std::vector<std::shared_ptr<RNNCellImpl>> fresh;
  for (const auto& c : cells) fresh.push_back(c->fresh_copy());
  RNNOptions o = options;
  o.name = new_name;
  if (flip) o.go_backwards = !o.go_backwards;
  auto copy = std::make_shared<RNNImpl>(class_name(), std::move(fresh), o);
  copy->dtype_policy = dtype_policy;  // a Bidirectional's directions compute as the layer given
  return copy;
}

RNN::RNN(const Layer& cell, RNNOptions options) : RNN(std::vector<Layer>{cell}, std::move(options)) {}
RNN::RNN(const std::vector<Layer>& cells, RNNOptions options)
    : Layer(std::make_shared<RNNImpl>("RNN", as_cells(cells), std::move(options))) {}

void RNN::reset_states() const { static_cast<RNNImpl&>(impl()).reset_states(); }

KerasClass describe_recurrent_layer(const char* class_name, const char* cell_class, const char* kind,
                                    const char* cell_name) {
  KerasClass k;
  k.class_name = class_name;
  append_keras_specs(k, RNNOptions::keras_fields());
  append_cell_keras_specs(k, kind);
  // Keras 2's `implementation` (1 or 2: how the gates' products are grouped) chose a speed,
  // not the math: accepted with any value, not written.
  k.fixed({keras_unmodeled("implementation").unwritten()});
  k.values = [](const LayerImpl& impl) {
    const auto& r = static_cast<const RNNImpl&>(impl);
    std::vector<ConfigValue> out;
    append_keras_values(out, r.options, RNNOptions::keras_fields());
    append_cell_keras_values(out, r.cells.at(0)->config);
    return out;
  };
  k.make = [=](const ConfigSource& src) -> Layer {
    CellConfig cell = read_cell_config(src, kind);
    RNNOptions o{.name = src.name()};
    read_keras_fields(src, RNNOptions::keras_fields(), o);
    return Layer(std::make_shared<RNNImpl>(
        class_name, std::vector{std::make_shared<RNNCellImpl>(cell_class, cell, cell_name)}, o));
  };
  k.keras3_vars = [](const LayerImpl& impl) {
    return std::vector<KerasClass::VarGroup>{
        {"cell/", {}, Layer(static_cast<const RNNImpl&>(impl).cells.at(0))}};
  };
  return k;
}

}  // namespace strata::layers
