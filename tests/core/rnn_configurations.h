// The recurrent ops' test configurations, shared by the suites that run rnn_sequence
// and rnn_sequence_grad on two implementations and compare them (cuda_kernels_test.cc:
// the CUDA kernels against the CPU kernel; cuda_rnn_plan_test.cc: the CUDA kernels' plan
// walked on the host against the CPU kernel).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core_test_util.h"

namespace strata::testing {

// One rnn_sequence configuration: the cell, the sizes x (batch, steps, features) and
// units, the attributes, and the run's mode (dropout draws its masks in training only).
struct RnnCase {
  std::string label;
  std::string cell;
  std::int64_t batch, steps, features, units;
  std::string activation = "tanh", recurrent_activation = "sigmoid";
  bool reset_after = true, go_backwards = false, input_in_processing_order = false, reverse_output = false,
       zero_output_for_mask = false, masked = false;
  double dropout = 0, recurrent_dropout = 0;
  bool training = false;
  std::int64_t step = 0, sample_offset = 0;
};

// Every cell and activation the CPU kernel fuses, masks, each direction and output
// order, dropout in and out of training (a shard's rows numbered from its first sample),
// sizes over several blocks, no steps and no rows.
inline std::vector<RnnCase> rnn_configurations() {
  return {
      {.label = "lstm", .cell = "lstm", .batch = 4, .steps = 6, .features = 5, .units = 7},
      {.label = "lstm masked, go_backwards, zero_output_for_mask", .cell = "lstm", .batch = 5, .steps = 7,
       .features = 3, .units = 8, .go_backwards = true, .zero_output_for_mask = true, .masked = true},
      {.label = "lstm, dropout 0.3 and recurrent_dropout 0.25 in training, step 3, shard from sample 2",
       .cell = "lstm", .batch = 6, .steps = 5, .features = 4, .units = 6, .dropout = 0.3,
       .recurrent_dropout = 0.25, .training = true, .step = 3, .sample_offset = 2},
      {.label = "lstm, hard_sigmoid_keras2 gates, 33x20x40 into 64 units", .cell = "lstm", .batch = 33,
       .steps = 20, .features = 40, .units = 64, .recurrent_activation = "hard_sigmoid_keras2"},
      {.label = "lstm, no time steps", .cell = "lstm", .batch = 3, .steps = 0, .features = 4, .units = 5},
      {.label = "gru reset_after", .cell = "gru", .batch = 4, .steps = 6, .features = 5, .units = 7},
      {.label = "gru reset_after masked, go_backwards with reverse_output", .cell = "gru", .batch = 5, .steps = 7,
       .features = 3, .units = 8, .go_backwards = true, .reverse_output = true, .masked = true},
      {.label = "gru reset_after, recurrent_dropout 0.4 in training", .cell = "gru", .batch = 4, .steps = 5,
       .features = 6, .units = 5, .recurrent_dropout = 0.4, .training = true, .step = 9},
      {.label = "gru reset_after=false", .cell = "gru", .batch = 4, .steps = 6, .features = 5, .units = 7,
       .reset_after = false},
      {.label = "gru reset_after=false, go_backwards on input in processing order, masked, both dropouts",
       .cell = "gru", .batch = 5, .steps = 6, .features = 4, .units = 9, .reset_after = false, .go_backwards = true,
       .input_in_processing_order = true, .masked = true, .dropout = 0.2, .recurrent_dropout = 0.3,
       .training = true, .step = 5},
      {.label = "gru reset_after=false, relu and hard_sigmoid, 40x12x30 into 70 units", .cell = "gru", .batch = 40,
       .steps = 12, .features = 30, .units = 70, .activation = "relu", .recurrent_activation = "hard_sigmoid",
       .reset_after = false},
      {.label = "gru, no rows", .cell = "gru", .batch = 0, .steps = 4, .features = 3, .units = 5},
      {.label = "simple_rnn", .cell = "simple_rnn", .batch = 4, .steps = 6, .features = 5, .units = 7},
      {.label = "simple_rnn relu, masked, go_backwards, zero_output_for_mask", .cell = "simple_rnn", .batch = 5,
       .steps = 8, .features = 3, .units = 6, .activation = "relu", .go_backwards = true,
       .zero_output_for_mask = true, .masked = true},
      {.label = "simple_rnn linear, dropout 0.5 in training", .cell = "simple_rnn", .batch = 4, .steps = 5,
       .features = 6, .units = 5, .activation = "linear", .dropout = 0.5, .training = true, .step = 2},
      {.label = "simple_rnn sigmoid, dropout outside training: none drawn", .cell = "simple_rnn", .batch = 3,
       .steps = 4, .features = 2, .units = 3, .activation = "sigmoid", .dropout = 0.5, .recurrent_dropout = 0.5},
  };
}

inline Attrs rnn_attrs(const RnnCase& r, std::uint64_t seed) {
  return Attrs{{"cell", r.cell},
               {"activation", r.activation},
               {"recurrent_activation", r.recurrent_activation},
               {"reset_after", r.reset_after},
               {"go_backwards", r.go_backwards},
               {"input_in_processing_order", r.input_in_processing_order},
               {"reverse_output", r.reverse_output},
               {"zero_output_for_mask", r.zero_output_for_mask},
               {"dropout", r.dropout},
               {"recurrent_dropout", r.recurrent_dropout},
               {"seed", 4242 + static_cast<std::int64_t>(seed)}};
}

// A (batch, steps) mask of ones and zeros: the first row whole, the second padded after
// its first half, the others skipping steps here and there.
inline Tensor rnn_mask(std::int64_t batch, std::int64_t steps) {
  Tensor m = Tensor::filled({batch, steps}, 1.f);
  for (std::int64_t b = 1; b < batch; ++b) {
    for (std::int64_t t = 0; t < steps; ++t) {
      const bool dropped = b == 1 ? t >= steps / 2 : (b * 7 + t * 3) % 4 == 0;
      if (dropped) m.data<float>()[b * steps + t] = 0.f;
    }
  }
  return m;
}

// The op's mode for a configuration: dropout draws its masks in training only.
inline KernelContext rnn_context(const RnnCase& r, const Node& node, std::vector<const Tensor*> inputs,
                                 std::vector<Tensor*> outputs) {
  KernelContext ctx{node, std::move(inputs), std::move(outputs)};
  ctx.training = r.training;
  ctx.step = r.step;
  ctx.sample_offset = r.sample_offset;
  return ctx;
}

// rnn_sequence's inputs: x, h0, c0, kernel, recurrent_kernel, bias[, mask], from `seed`.
inline std::vector<Tensor> rnn_inputs(const RnnCase& r, std::uint64_t seed) {
  const std::int64_t gates = r.cell == "lstm" ? 4 : r.cell == "gru" ? 3 : 1, gh = gates * r.units;
  const bool two_biases = r.cell == "gru" && r.reset_after;
  std::vector<Tensor> inputs{uniform({r.batch, r.steps, r.features}, -1, 1, seed),
                             uniform({r.batch, r.units}, -0.5f, 0.5f, seed + 1),
                             uniform({r.batch, r.units}, -0.5f, 0.5f, seed + 2),
                             uniform({r.features, gh}, -0.5f, 0.5f, seed + 3),
                             uniform({r.units, gh}, -0.5f, 0.5f, seed + 4),
                             uniform(two_biases ? Shape{2, gh} : Shape{gh}, -0.5f, 0.5f, seed + 5)};
  if (r.masked) inputs.push_back(rnn_mask(r.batch, r.steps));
  return inputs;
}

// A node of `op` with the configuration's attributes and the outputs inferred from
// `inputs`.
inline Node rnn_node(const std::string& op, const RnnCase& r, std::uint64_t seed, const std::vector<Tensor>& inputs) {
  const OpDef& def = OpRegistry::global().get(op);
  Node node;
  node.id = 0;
  node.op = op;
  node.name = "rnn_test/" + op;
  node.attrs = rnn_attrs(r, seed);
  std::vector<TensorSpec> specs;
  for (const Tensor& t : inputs) specs.push_back({t.shape(), t.dtype()});
  node.outputs = def.infer(InferContext{op, specs, node.attrs});
  node.def = &def;
  return node;
}

// Outputs of `node` on the host, NaN where nothing writes them.
inline std::vector<Tensor> rnn_nan_outputs(const Node& node) {
  std::vector<Tensor> outputs;
  for (const TensorSpec& spec : node.outputs) outputs.push_back(Tensor::filled(spec.shape, std::nanf("")));
  return outputs;
}

// `node`'s outputs from its CPU kernel on `inputs`, in the configuration's mode.
inline std::vector<Tensor> rnn_run_on_cpu(const RnnCase& r, const Node& node, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> outputs = rnn_nan_outputs(node);
  std::vector<const Tensor*> in;
  for (const Tensor& t : inputs) in.push_back(&t);
  std::vector<Tensor*> out;
  for (Tensor& t : outputs) out.push_back(&t);
  KernelContext ctx = rnn_context(r, node, in, out);
  node.def->on(DeviceType::cpu)->run(ctx);
  return outputs;
}

// rnn_sequence's outputs (y, h, c, workspace) from its CPU kernel.
inline std::vector<Tensor> rnn_cpu_forward(const RnnCase& r, std::uint64_t seed, const std::vector<Tensor>& inputs) {
  return rnn_run_on_cpu(r, rnn_node("rnn_sequence", r, seed, inputs), inputs);
}

// rnn_sequence_grad's inputs: the forward inputs without the mask, the CPU forward
// pass's workspace, random gradients of y, h and c, then the mask.
inline std::vector<Tensor> rnn_grad_inputs(const RnnCase& r, std::uint64_t seed) {
  std::vector<Tensor> inputs = rnn_inputs(r, seed);
  const Tensor workspace = rnn_cpu_forward(r, seed, inputs)[3];
  std::vector<Tensor> grad(inputs.begin(), inputs.begin() + 6);
  grad.push_back(workspace);
  grad.push_back(uniform({r.batch, r.steps, r.units}, -1, 1, seed + 6));
  grad.push_back(uniform({r.batch, r.units}, -1, 1, seed + 7));
  grad.push_back(uniform({r.batch, r.units}, -1, 1, seed + 8));
  if (r.masked) grad.push_back(inputs[6]);
  return grad;
}

}  // namespace strata::testing
