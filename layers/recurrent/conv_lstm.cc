#include "layers/recurrent/conv_lstm.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_lstm_ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/rnn_config.h"
#include "core/ops/sequence_ops.h"
#include "core/rng.h"
#include "layers/activations.h"
#include "layers/recurrent/initial_state.h"

// How the time loop runs. It is unrolled into the graph over the time steps the input's
// shape gives at definition time, each step made of the convolution and elementwise ops
// every layer uses. Autodiff then differentiates it exactly like any other graph (no
// hand-written gradient to get wrong), and the convolutions run on each device's tuned
// convolution kernels (CPU and CUDA alike, no new op to port). The fused rnn_sequence op
// (core/ops/rnn_ops.cc) multiplies by matrices and cannot take convolutions; a fused
// ConvLSTM op would need its own forward and backward kernels on every device. To keep
// the unrolled graph cheap, the input convolution of all steps runs once, as one
// convolution of batch·time images; only the recurrent convolution and the gate
// arithmetic are repeated per step. Unrolling needs the number of time steps when the
// layer is called. Over None time steps (Keras's next-frame models take any length) the
// loop is one op instead, conv_lstm_recurrence (core/ops/conv_lstm_ops.h), whose kernel
// runs as many steps as the run feeds and backpropagates through them itself: the same
// input convolution before it, the same math, CPU only and the fused recurrent ops'
// activations (tests/layers/conv_lstm_test.cc runs Keras's goldens through both).

namespace strata::layers {

namespace {

std::string conv_lstm_class_name(int rank) { return "ConvLSTM" + std::to_string(rank) + "D"; }

// Gate g (0: i, 1: f, 2: c, 3: o) of a tensor whose last axis holds the four gates of
// `filters` each (a kernel, the bias or the pre-activations).
Output gate(Output x, int g, std::int64_t filters) {
  const auto rank = static_cast<std::size_t>(x.shape().rank());
  std::vector<std::int64_t> before(rank, 0), after(rank, 0);
  before.back() = g * filters;
  after.back() = (3 - g) * filters;
  return ops::crop(x, before, after);
}

// Step t of a sequence (batch, T, rest...) as (batch, rest...).
Output step(Output seq, std::int64_t t) {
  const Shape& s = seq.shape();
  const auto rank = static_cast<std::size_t>(s.rank());
  std::vector<std::int64_t> before(rank, 0), after(rank, 0);
  before[1] = t;
  after[1] = s[1] - 1 - t;
  std::vector<std::int64_t> dims{-1};
  dims.insert(dims.end(), s.dims().begin() + 2, s.dims().end());
  return ops::reshape(ops::crop(seq, before, after), dims);
}

// The permutation moving axis `from` of a rank-`rank` tensor to position `to`.
std::vector<std::int64_t> moving(int rank, int from, int to) {
  std::vector<std::int64_t> perm;
  for (int a = 0; a < rank; ++a) {
    if (a != from) perm.push_back(a);
  }
  perm.insert(perm.begin() + to, from);
  return perm;
}

// Channels between the leading axes (`lead`: batch, and time for sequences) and the
// spatial axes -> channels last, and back.
Output channels_last(Output x, int lead) {
  const int rank = x.shape().rank();
  return ops::transpose(x, moving(rank, lead, rank - 1));
}
Output channels_first(Output x, int lead) {
  const int rank = x.shape().rank();
  return ops::transpose(x, moving(rank, rank - 1, lead));
}

}  // namespace

template <int Rank>
ConvLSTMImpl<Rank>::ConvLSTMImpl(std::int64_t filters_, Window<Rank> kernel_size_, ConvLSTMOptions<Rank> options_)
    : LayerImpl(conv_lstm_class_name(Rank), options_.name), filters(filters_), kernel_size(kernel_size_),
      options(std::move(options_)), seed(options.seed ? *options.seed : next_seed()) {
  activity_regularizer = options.activity_regularizer;
  const std::string cls = conv_lstm_class_name(Rank);
  if (filters <= 0) throw ValueError(cls + ": filters must be positive, got " + std::to_string(filters));
  check_positive(cls, "kernel_size", window_vec(kernel_size));
  check_positive(cls, "strides", window_vec(options.strides));
  check_positive(cls, "dilation_rate", window_vec(options.dilation_rate));
  const auto strides = window_vec(options.strides), dilation = window_vec(options.dilation_rate);
  const auto above_one = [](const std::vector<std::int64_t>& w) {
    for (std::int64_t v : w) {
      if (v > 1) return true;
    }
    return false;
  };
  if (above_one(strides) && above_one(dilation)) {  // as Keras refuses them
    throw ValueError(cls + ": strides > 1 cannot be combined with dilation_rate > 1 (give strides=1 or "
                           "dilation_rate=1)");
  }
  check_padding(options.padding, {"valid", "same"});
  is_channels_first(options.data_format);
  activations::validate(options.activation);
  activations::validate(options.recurrent_activation);
  // Keras clips rates to [0, 1] and drops nothing at 1; Strata refuses what is outside [0, 1).
  if (options.dropout < 0.0 || options.dropout >= 1.0) {
    throw ValueError(cls + ": dropout must be in [0, 1), got " + std::to_string(options.dropout));
  }
  if (options.recurrent_dropout < 0.0 || options.recurrent_dropout >= 1.0) {
    throw ValueError(cls + ": recurrent_dropout must be in [0, 1), got " + std::to_string(options.recurrent_dropout));
  }
}

template <int Rank>
std::vector<std::int64_t> ConvLSTMImpl<Rank>::state_sizes(const std::vector<std::int64_t>& input_sizes) const {
  const auto window = window_vec(kernel_size), strides = window_vec(options.strides),
             dilation = window_vec(options.dilation_rate);
  const auto pads = padding_amounts(options.padding, input_sizes, window, strides, dilation);
  std::vector<std::int64_t> out;
  for (std::size_t a = 0; a < input_sizes.size(); ++a) {
    out.push_back(ops::conv_output_length(input_sizes[a], window[a], strides[a], dilation[a], pads[2 * a],
                                          pads[2 * a + 1]));
  }
  return out;
}

template <int Rank>
void ConvLSTMImpl<Rank>::build(const std::vector<TensorSpec>& inputs) {
  const Shape& s = inputs[0].shape;
  const bool cf = is_channels_first(options.data_format);
  const std::string layout = cf ? "(batch, time, channels, spatial...)" : "(batch, time, spatial..., channels)";
  if (s.rank() != Rank + 3) {
    throw ShapeError("expects input of rank " + std::to_string(Rank + 3) + " " + layout + ", got " + s.to_string());
  }
  for (int a = 2; a < Rank + 3; ++a) {
    if (s[a] == kUnknownDim) {
      throw ShapeError("expects known spatial and channel dimensions " + layout + ", got " + s.to_string());
    }
  }
  const std::int64_t channels = cf ? s[2] : s[Rank + 2];
  std::vector<std::int64_t> sizes;
  for (int a = 0; a < Rank; ++a) sizes.push_back(s[(cf ? 3 : 2) + a]);
  for (std::int64_t n : state_sizes(sizes)) {
    if (n <= 0) {
      throw ShapeError("the input's spatial size is too small for kernel_size and dilation_rate with padding '" +
                       options.padding + "': no output position (input " + s.to_string() + ")");
    }
  }
  std::vector<std::int64_t> window = window_vec(kernel_size);
  std::vector<std::int64_t> kdims = window, rdims = window;
  kdims.insert(kdims.end(), {channels, 4 * filters});
  rdims.insert(rdims.end(), {filters, 4 * filters});
  kernel = add_weight("conv_lstm_cell/kernel", Shape(kdims), options.kernel_initializer,
                      {.regularizer = options.kernel_regularizer, .constraint = options.kernel_constraint});
  recurrent_kernel =
      add_weight("conv_lstm_cell/recurrent_kernel", Shape(rdims), options.recurrent_initializer,
                 {.regularizer = options.recurrent_regularizer, .constraint = options.recurrent_constraint});
  if (options.use_bias) {
    bias = add_weight("conv_lstm_cell/bias", Shape{4 * filters}, options.bias_initializer,
                      {.regularizer = options.bias_regularizer, .constraint = options.bias_constraint});
    if (options.unit_forget_bias) {  // the forget gate's bias starts at one
      float* b = bias.value().data<float>();
      for (std::int64_t j = filters; j < 2 * filters; ++j) b[j] = 1.f;
    }
  }
  if (options.stateful) {
    if (s[0] == kUnknownDim) {
      throw ValueError("a stateful " + class_name() + " needs a fixed batch size: give the Input a batch_size, got "
                       "input shape " + s.to_string());
    }
    std::vector<std::int64_t> dims{s[0]};
    for (std::int64_t n : state_sizes(sizes)) dims.push_back(n);
    dims.push_back(filters);
    for (int k = 0; k < 2; ++k) {
      state_vars.emplace_back(name + "/state_" + std::to_string(k), Tensor(Shape(dims)), false);
    }
  }
}

template <int Rank>
std::string ConvLSTMImpl<Rank>::data_parallel_refusal() const {
  if (!options.stateful) return {};
  return "stateful=True is not supported: the states carried between batches belong to samples that the "
         "processes' shares split";
}

template <int Rank>
void ConvLSTMImpl<Rank>::reset_states() {
  for (auto& v : state_vars) v.assign(Tensor(v.shape()));
}

template <int Rank>
std::vector<Output> ConvLSTMImpl<Rank>::call_masked(Graph& graph, const std::vector<Output>& all,
                                                    const std::vector<Output>& masks) {
  const RecurrentCall call = recurrent_call(*this, all, masks, 2);
  return run(graph, call.inputs, call.mask);
}

template <int Rank>
std::vector<std::string> ConvLSTMImpl<Rank>::call_argument_names() const {
  return recurrent_call_argument_names(2);
}

template <int Rank>
std::vector<TensorArgument> ConvLSTMImpl<Rank>::tensor_arguments() const {
  return recurrent_tensor_arguments(2);
}

template <int Rank>
std::vector<Output> ConvLSTMImpl<Rank>::compute_mask(Graph&, const std::vector<Output>& all,
                                                     const std::vector<Output>& masks) {
  std::vector<Output> out(options.return_state ? 3 : 1);
  if (options.return_sequences)
    out[0] = mask_argument_or_input_mask(split_call_inputs(*this, current_arguments, all), masks);
  return out;
}

template <int Rank>
std::vector<Output> ConvLSTMImpl<Rank>::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

template <int Rank>
std::vector<Output> ConvLSTMImpl<Rank>::run(Graph& graph, const std::vector<Output>& inputs, Output mask) {
  const bool cf = is_channels_first(options.data_format);
  const std::string layout = cf ? "(batch, time, channels, spatial...)" : "(batch, time, spatial..., channels)";
  const Shape& in_shape = inputs[0].shape();
  if (in_shape.rank() != Rank + 3) {
    throw ShapeError("expects input of rank " + std::to_string(Rank + 3) + " " + layout + ", got " +
                     in_shape.to_string());
  }
  const std::int64_t T = in_shape[1];
  const bool fused = T == kUnknownDim;  // the loop as one op over the run's steps (top of the file)
  if (fused && options.unroll) throw ValueError(unroll_needs_time_steps(in_shape));
  if (fused) {
    for (const std::string* a : {&options.activation, &options.recurrent_activation}) {
      try {
        ops::act_of(*a);
      } catch (const ValueError&) {
        throw ValueError(class_name() + " '" + name + "' over None time steps computes its loop as one op, which "
                         "takes the activations tanh, sigmoid, relu, linear and hard_sigmoid, not '" + *a +
                         "': give the Input a fixed number of time steps (input " + in_shape.to_string() + ")");
      }
    }
  }
  Output x = cf ? channels_last(inputs[0], 2) : inputs[0];
  const Shape& s = x.shape();
  const std::int64_t channels = kernel.shape()[Rank];
  std::vector<std::int64_t> sizes;
  for (int a = 0; a < Rank; ++a) sizes.push_back(s[2 + a]);
  for (int a = 2; a < Rank + 3; ++a) {
    if (s[a] == kUnknownDim) {
      throw ShapeError("expects known spatial and channel dimensions " + layout + ", got " + in_shape.to_string());
    }
  }
  if (s[Rank + 2] != channels) {
    throw ShapeError("expects input with " + std::to_string(channels) + " channels (kernel " +
                     kernel.shape().to_string() + "), got " + in_shape.to_string());
  }
  const auto window = window_vec(kernel_size), strides = window_vec(options.strides),
             dilation = window_vec(options.dilation_rate);
  const auto pads = padding_amounts(options.padding, sizes, window, strides, dilation);
  const std::vector<std::int64_t> out_sizes = state_sizes(sizes);
  const std::vector<std::int64_t> ones(Rank, 1);
  const auto recurrent_pads = padding_amounts("same", out_sizes, window, ones, ones);
  // Each step's mask shaped to broadcast over the states (batch, out spatial..., filters).
  std::vector<std::int64_t> step_mask_dims{-1};
  if (mask.valid()) {
    const Shape& m = mask.shape();
    const bool whole_steps = m.rank() == 2;
    bool fits = m.rank() >= 2 && (m[1] == kUnknownDim || m[1] == T);
    if (!whole_steps) {
      fits = fits && !cf && m.rank() == Rank + 2;
      for (int a = 0; fits && a < Rank; ++a) fits = m[2 + a] == out_sizes[static_cast<std::size_t>(a)];
    }
    if (!fits) {
      throw ShapeError(class_name() + " '" + name + "' got mask " + m.to_string() + " for input " +
                       in_shape.to_string() + ": a mask is (batch, time) or, channels last with the states' " +
                       "spatial sizes, (batch, time, spatial...) (Keras's loop fails on others)");
    }
    for (int a = 0; a < Rank; ++a) step_mask_dims.push_back(whole_steps ? 1 : out_sizes[static_cast<std::size_t>(a)]);
    step_mask_dims.push_back(1);
    if (mask.dtype() != DType::float32) mask = ops::cast(mask, DType::float32);
  }
  const Output K = graph.variable(kernel), RK = graph.variable(recurrent_kernel);
  const Output B = options.use_bias ? graph.variable(bias) : Output{};
  const auto call_stream = static_cast<std::uint64_t>(current_call) * 8;

  // The input convolution of every step at once: (batch·T, spatial..., channels) images.
  // With dropout, each gate sees the input through its own mask (one per gate, the same at
  // every step, as Keras draws them), so each gate's quarter of the kernel runs apart.
  auto input_conv = [&](Output seq, Output k, Output b) {
    Output y = convolve(ops::merge_axes(seq, 0, 2), k, strides, dilation, pads);
    if (b.valid()) y = ops::add(y, b);
    return ops::unfold_time(y, seq);
  };
  Output xz;
  if (options.dropout > 0.0) {
    // Ones shaped as one step (batch, spatial..., channels); over None steps, a reduction
    // of the time axis has that shape.
    const Output step_ones = ops::fill_like(fused ? ops::reduce_max(x, {1}) : step(x, 0), 1.0f);
    std::vector<Output> gates;
    for (int g = 0; g < 4; ++g) {
      const Output m = ops::dropout(step_ones, static_cast<float>(options.dropout), seed, call_stream + g);
      gates.push_back(input_conv(ops::mul(x, ops::expand_dims(m, 1)), gate(K, g, filters),
                                 B.valid() ? gate(B, g, filters) : Output{}));
    }
    xz = ops::concat(gates, -1);
  } else {
    xz = input_conv(x, K, B);
  }

  // Initial states: given as inputs, carried in variables (stateful), or zeros.
  std::vector<std::int64_t> state_dims{in_shape[0]};
  state_dims.insert(state_dims.end(), out_sizes.begin(), out_sizes.end());
  state_dims.push_back(filters);
  Output h, c;
  if (inputs.size() == 3) {
    // Keras's initial_state: h and c in the input's data_format.
    std::vector<std::int64_t> want_dims = state_dims;
    if (cf) {
      want_dims.pop_back();
      want_dims.insert(want_dims.begin() + 1, filters);
    }
    const Shape want(want_dims);
    std::vector<Output> given;
    for (std::size_t k = 1; k < 3; ++k) {
      const Shape& st = inputs[k].shape();
      if (st.rank() != want.rank() || !st.is_compatible_with(want)) {
        throw ShapeError("initial_state " + std::to_string(k - 1) + " has shape " + st.to_string() + ", expected " +
                         want.to_string() + (cf ? " (batch, filters, output spatial...)" :
                                                  " (batch, output spatial..., filters)"));
      }
      given.push_back(cf ? channels_last(inputs[k], 1) : inputs[k]);
    }
    h = given[0];
    c = given[1];
  } else if (options.stateful) {
    h = graph.variable(state_vars[0]);
    c = graph.variable(state_vars[1]);
  } else if (!fused) {
    h = c = ops::zeros_like(gate(step(xz, 0), 0, filters));
  }  // the fused op starts from zeros itself

  std::vector<Output> recurrent_masks;
  if (options.recurrent_dropout > 0.0) {
    const Output state_ones = ops::fill_like(h.valid() ? h : gate(ops::reduce_max(xz, {1}), 0, filters), 1.0f);
    for (int g = 0; g < 4; ++g) {
      recurrent_masks.push_back(
          ops::dropout(state_ones, static_cast<float>(options.recurrent_dropout), seed, call_stream + 4 + g));
    }
  }
  auto recurrent_conv = [&](Output state) {
    if (recurrent_masks.empty()) return convolve(state, RK, ones, ones, recurrent_pads);
    std::vector<Output> gates;
    for (int g = 0; g < 4; ++g) {
      gates.push_back(convolve(ops::mul(state, recurrent_masks[static_cast<std::size_t>(g)]), gate(RK, g, filters),
                               ones, ones, recurrent_pads));
    }
    return ops::concat(gates, -1);
  };

  std::vector<Output> sequence;
  Output output;  // the last step's output: h, or with a mask what the masked steps kept
  if (fused) {
    std::vector<Output> gate_masks;
    for (const Output& m : recurrent_masks) gate_masks.push_back(ops::expand_dims(m, 0));
    const auto loop = ops::conv_lstm_recurrence(
        xz, RK, h, c, gate_masks.empty() ? Output{} : ops::concat(gate_masks, 0), mask,
        {.activation = options.activation,
         .recurrent_activation = options.recurrent_activation,
         .go_backwards = options.go_backwards,
         .zero_output_for_mask = options.zero_output_for_mask});
    if (options.return_sequences) sequence.push_back(loop[0]);
    output = loop[1];
    h = loop[2];
    c = loop[3];
  }
  for (std::int64_t k = 0; !fused && k < T; ++k) {
    const std::int64_t t = options.go_backwards ? T - 1 - k : k;
    const Output z = ops::add(step(xz, t), recurrent_conv(h));
    const Output i = activations::apply(options.recurrent_activation, gate(z, 0, filters));
    const Output f = activations::apply(options.recurrent_activation, gate(z, 1, filters));
    const Output candidate = activations::apply(options.activation, gate(z, 2, filters));
    const Output o = activations::apply(options.recurrent_activation, gate(z, 3, filters));
    Output next_c = ops::add(ops::mul(f, c), ops::mul(i, candidate));
    Output next_h = ops::mul(o, activations::apply(options.activation, next_c));
    if (mask.valid()) {  // the mask runs backwards with the steps, as Keras's
      const Output kept = ops::reshape(step(mask, t), step_mask_dims);
      const Output before = options.zero_output_for_mask || !output.valid() ? ops::zeros_like(next_h) : output;
      output = ops::where(kept, next_h, before);
      next_h = ops::where(kept, next_h, h);
      next_c = ops::where(kept, next_c, c);
    } else {
      output = next_h;
    }
    h = next_h;
    c = next_c;
    if (options.return_sequences) sequence.push_back(ops::expand_dims(output, 1));  // in processing order, as Keras
  }
  if (options.stateful) {  // the last states carry over, initial states given or not (as Keras)
    graph.add_update(ops::assign(graph.variable(state_vars[0]), h), Graph::UpdateMode::always);
    graph.add_update(ops::assign(graph.variable(state_vars[1]), c), Graph::UpdateMode::always);
  }
  Output y = options.return_sequences ? (sequence.size() == 1 ? sequence[0] : ops::concat(sequence, 1)) : output;
  if (cf) y = channels_first(y, options.return_sequences ? 2 : 1);
  std::vector<Output> out{y};
  if (options.return_state) {
    out.push_back(cf ? channels_first(h, 1) : h);
    out.push_back(cf ? channels_first(c, 1) : c);
  }
  return out;
}

template <int Rank>
ConvLSTM<Rank>::ConvLSTM(std::int64_t filters, Window<Rank> kernel_size, ConvLSTMOptions<Rank> options)
    : Layer(std::make_shared<ConvLSTMImpl<Rank>>(filters, kernel_size, std::move(options))) {}

template <int Rank>
void ConvLSTM<Rank>::reset_states() const {
  static_cast<ConvLSTMImpl<Rank>&>(impl()).reset_states();
}

template class ConvLSTMImpl<1>;
template class ConvLSTMImpl<2>;
template class ConvLSTMImpl<3>;
template class ConvLSTM<1>;
template class ConvLSTM<2>;
template class ConvLSTM<3>;

namespace {

// Keras 3 files keep the variables on the layer's cell: layers/<key>/cell/vars.
template <int Rank>
KerasClass describe_conv_lstm() {
  return describe_layer<ConvLSTM<Rank>>(conv_lstm_class_name(Rank), &ConvLSTMImpl<Rank>::options,
                                        keras_field("filters", &ConvLSTMImpl<Rank>::filters).at_least(1),
                                        keras_field("kernel_size", &ConvLSTMImpl<Rank>::kernel_size,
                                                    window_spelling(Rank))
                                            .at_least(1))
      .vars([](const LayerImpl& impl) {
        return std::vector<KerasClass::VarGroup>{{"cell/vars", impl.weights, {}}};
      });
}

const bool conv_lstm_registered = [] {
  register_keras_class(describe_conv_lstm<1>());
  register_keras_class(describe_conv_lstm<2>());
  register_keras_class(describe_conv_lstm<3>());
  return true;
}();

}  // namespace

}  // namespace strata::layers
