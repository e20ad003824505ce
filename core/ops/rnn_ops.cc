// Fused recurrent ops: the whole time loop of a SimpleRNN, LSTM or GRU cell is one node.
//
//   rnn_sequence(x (B,T,F), h0 (B,H), c0 (B,H), kernel (F,G·H), recurrent_kernel (H,G·H),
//                bias (G·H) or (2,G·H) [, mask (B,T)])
//     -> y (B,T,H) in processing order (input order with reverse_output), last h (B,H), last c (B,H; zeros unless LSTM),
//        workspace (B,T,K): the activations backpropagation through time reads.
//   rnn_sequence_grad(x, h0, c0, kernel, recurrent_kernel, bias, workspace, dy, dh, dc
//                     [, mask]) -> dx, dh0, dc0, dkernel, drecurrent_kernel, dbias.
//   rnn_zero_state(x (B,T,F)) -> zeros (B,units): the default initial state.
//
// Masked steps carry h and c over and output the previous output, as Keras's TensorFlow
// backend rnn: the carried h once an earlier step was kept, zeros before that (its previous
// output starts at zeros, not at h0) and with zero_output_for_mask
// (RnnLayout::masked_step_repeats_h). Keras's JAX backend outputs the carried h instead.
// Dropout (training only) draws one input mask (B,F) and one recurrent mask (B,H) per
// run from (seed, step), fixed across time as in Keras; the gradient regenerates them.
// The gradient op itself is not differentiable (no second-order RNN gradients).
// The CPU and CUDA kernels share the cells' math, the workspace layout and the dropout
// rule (core/ops/rnn_cell.h) and read the attributes through the same Config
// (core/ops/rnn_config.h).
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/rnn_config.h"
#include "core/ops/rnn_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::vector<TensorSpec> infer_sequence(const InferContext& ctx) {
  if (ctx.inputs.size() != 6 && ctx.inputs.size() != 7) {
    throw ValueError(ctx.op + ": expects 6 or 7 inputs (x, h0, c0, kernel, recurrent_kernel, bias[, mask])");
  }
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) expect_float_input(ctx, i);
  Cell cell = cell_of(ctx.attrs);
  act_of(ctx.attrs.get<std::string>("activation"));
  act_of(ctx.attrs.get<std::string>("recurrent_activation"));
  const Shape& x = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[3].shape;
  const Shape& u = ctx.inputs[4].shape;
  if (x.rank() != 3) throw ShapeError(ctx.op + ": expects input of rank 3 (batch, timesteps, features), got " + x.to_string());
  if (u.rank() != 2) throw ShapeError(ctx.op + ": recurrent_kernel must be 2-D, got " + u.to_string());
  const std::int64_t H = u[0], G = gates_of(cell);
  if (u[1] != G * H) throw ShapeError(ctx.op + ": recurrent_kernel " + u.to_string() + " does not fit the cell");
  if (k.rank() != 2 || k[1] != G * H || (x[2] != kUnknownDim && k[0] != x[2])) {
    throw ShapeError(ctx.op + ": kernel " + k.to_string() + " does not fit input " + x.to_string() + " and " +
                     std::to_string(H) + " units");
  }
  const Shape& b = ctx.inputs[5].shape;
  bool two_biases = cell == Cell::gru && ctx.attrs.get_or<bool>("reset_after", true);
  if (b != (two_biases ? Shape{2, G * H} : Shape{G * H})) {
    throw ShapeError(ctx.op + ": bias " + b.to_string() + " does not fit the cell");
  }
  Shape state{x[0], H};
  for (int i : {1, 2}) {
    if (!ctx.inputs[i].shape.is_compatible_with(state)) {
      throw ShapeError(ctx.op + ": initial state of shape " + ctx.inputs[i].shape.to_string() + " does not match " +
                       state.to_string() + " expected for input " + x.to_string());
    }
  }
  if (ctx.inputs.size() == 7 && !ctx.inputs[6].shape.is_compatible_with(Shape{x[0], x[1]})) {
    throw ShapeError(ctx.op + ": mask of shape " + ctx.inputs[6].shape.to_string() + " does not match input " +
                     x.to_string());
  }
  return {{Shape{x[0], x[1], H}, DType::float32},
          {state, DType::float32},
          {state, DType::float32},
          {Shape{x[0], x[1], ws_units(cell) * H}, DType::float32}};
}

}  // namespace

void register_rnn_ops(OpRegistry& r) {
  r.add({.name = "rnn_sequence",
         .infer = infer_sequence,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Graph& graph = *n.inputs[0].graph;
           std::vector<Output> ins(n.inputs.begin(), n.inputs.begin() + 6);
           ins.push_back(Output{&graph, n.id, 3});
           ins.push_back(g[0]);
           ins.push_back(g[1]);
           ins.push_back(g[2]);
           if (n.inputs.size() == 7) ins.push_back(n.inputs[6]);
           auto d = graph.add_node("rnn_sequence_grad", ins, n.attrs);
           std::vector<Output> out{d[0], d[1], d[2], d[3], d[4], d[5]};
           if (n.attrs.get<std::string>("cell") != "lstm") out[2] = Output{};
           if (n.inputs.size() == 7) out.push_back(Output{});  // the mask
           return out;
         },
         .random = true});
  r.add({.name = "rnn_sequence_grad",
         .infer = [](const InferContext& ctx) {
           if (ctx.inputs.size() != 10 && ctx.inputs.size() != 11) {
             throw ValueError("rnn_sequence_grad: expects 10 or 11 inputs");
           }
           std::vector<TensorSpec> out;
           for (int i = 0; i < 6; ++i) out.push_back(ctx.inputs[static_cast<std::size_t>(i)]);
           return out;
         },
         .gradient = {},
         .differentiable = false,
         .random = true});
  r.add({.name = "rnn_zero_state",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() < 1) throw ShapeError("rnn_zero_state: expects a batched input, got a scalar");
           return std::vector<TensorSpec>{{Shape{x[0], ctx.attrs.get<std::int64_t>("units")}, DType::float32}};
         },
         .gradient = {},
         .differentiable = false});
}

std::vector<Output> rnn_sequence(Output x, Output h0, Output c0, Output kernel, Output recurrent_kernel, Output bias,
                                 Output mask, const Attrs& attrs) {
  std::vector<Output> ins{x, h0, c0, kernel, recurrent_kernel, bias};
  if (mask.valid()) ins.push_back(mask);
  return x.graph->add_node("rnn_sequence", ins, attrs);
}

Output rnn_zero_state(Output x, std::int64_t units) {
  return x.graph->add("rnn_zero_state", {x}, Attrs{{"units", units}});
}

}  // namespace strata::ops
