// conv_lstm_recurrence and its gradient (core/ops/conv_lstm_ops.h): shapes and the
// gradient's wiring. The CPU registers their kernels (cpu/kernels/conv_lstm.cc).
#include "core/ops/conv_lstm_ops.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/rnn_config.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

ConvLSTMRecurrenceSlots::ConvLSTMRecurrenceSlots(const Attrs& attrs) {
  if (attrs.get_or<bool>("has_initial_state", false)) {
    h0 = count++;
    c0 = count++;
  }
  if (attrs.get_or<bool>("has_recurrent_masks", false)) recurrent_masks = count++;
  if (attrs.get_or<bool>("has_mask", false)) mask = count++;
}

namespace {

Shape with_last(const Shape& s, std::int64_t last) {
  std::vector<std::int64_t> d = s.dims();
  d.back() = last;
  return Shape(d);
}

// (B, T, S..., C) without its time axis.
Shape without_time(const Shape& s) {
  std::vector<std::int64_t> d = s.dims();
  d.erase(d.begin() + 1);
  return Shape(d);
}

std::vector<TensorSpec> infer_recurrence(const InferContext& ctx) {
  const ConvLSTMRecurrenceSlots slots(ctx.attrs);
  if (static_cast<int>(ctx.inputs.size()) != slots.count) {
    throw ValueError(ctx.op + ": expects " + std::to_string(slots.count) +
                     " inputs (xz, recurrent_kernel[, h0, c0][, recurrent_masks][, mask]), got " +
                     std::to_string(ctx.inputs.size()));
  }
  for (std::size_t i = 0; i < ctx.inputs.size(); ++i) expect_float_input(ctx, i);
  act_of(ctx.attrs.get<std::string>("activation"));
  act_of(ctx.attrs.get<std::string>("recurrent_activation"));
  const Shape& xz = ctx.inputs[0].shape;
  const Shape& u = ctx.inputs[1].shape;
  if (xz.rank() < 4 || xz.rank() > 6) {
    throw ShapeError(ctx.op + ": expects xz of rank 4 to 6 (batch, time, spatial..., 4 * filters), got " +
                     xz.to_string());
  }
  const int spatial = xz.rank() - 3;
  const std::int64_t F = u.rank() == spatial + 2 ? u[spatial] : kUnknownDim;
  if (F == kUnknownDim || u[spatial + 1] != 4 * F || (xz[xz.rank() - 1] != kUnknownDim && xz[xz.rank() - 1] != 4 * F)) {
    throw ShapeError(ctx.op + ": recurrent_kernel " + u.to_string() + " must be (kernel size..., filters, 4 * filters) " +
                     "for xz " + xz.to_string());
  }
  for (int a = 0; a < spatial; ++a) {
    if (u[a] == kUnknownDim || u[a] < 1) throw ShapeError(ctx.op + ": recurrent_kernel " + u.to_string() + " has no window");
  }
  const Shape state = with_last(without_time(xz), F);
  auto expect_shape = [&](int slot, const Shape& want, const char* what) {
    if (slot < 0) return;
    const Shape& got = ctx.inputs[static_cast<std::size_t>(slot)].shape;
    if (got.rank() != want.rank() || !got.is_compatible_with(want)) {
      throw ShapeError(ctx.op + ": " + what + " of shape " + got.to_string() + " does not fit " + want.to_string() +
                       " for xz " + xz.to_string());
    }
  };
  expect_shape(slots.h0, state, "h0");
  expect_shape(slots.c0, state, "c0");
  if (slots.recurrent_masks >= 0) {
    std::vector<std::int64_t> d{4};
    d.insert(d.end(), state.dims().begin(), state.dims().end());
    expect_shape(slots.recurrent_masks, Shape(d), "recurrent_masks");
  }
  if (slots.mask >= 0) {
    const Shape& m = ctx.inputs[static_cast<std::size_t>(slots.mask)].shape;
    std::vector<std::int64_t> d(xz.dims().begin(), xz.dims().end() - 1);
    if (m.rank() == 2) d.resize(2);
    expect_shape(slots.mask, Shape(d), "mask");
  }
  return {{with_last(xz, F), DType::float32},
          {state, DType::float32},
          {state, DType::float32},
          {state, DType::float32},
          {with_last(xz, kConvLSTMWorkspaceUnits * F), DType::float32}};
}

std::vector<TensorSpec> infer_recurrence_grad(const InferContext& ctx) {
  const ConvLSTMRecurrenceSlots slots(ctx.attrs);
  if (static_cast<int>(ctx.inputs.size()) != slots.count + 5) {
    throw ValueError(ctx.op + ": expects the forward op's inputs, its workspace and four gradients");
  }
  std::vector<TensorSpec> out{ctx.inputs[0], ctx.inputs[1]};
  if (slots.h0 >= 0) {
    out.push_back(ctx.inputs[static_cast<std::size_t>(slots.h0)]);
    out.push_back(ctx.inputs[static_cast<std::size_t>(slots.c0)]);
  }
  return out;
}

}  // namespace

void register_conv_lstm_ops(OpRegistry& r) {
  r.add({.name = "conv_lstm_recurrence",
         .infer = infer_recurrence,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Graph& graph = *n.inputs[0].graph;
           const ConvLSTMRecurrenceSlots slots(n.attrs);
           std::vector<Output> ins = n.inputs;
           ins.push_back(Output{&graph, n.id, 4});
           for (int k = 0; k < 4; ++k) ins.push_back(g[static_cast<std::size_t>(k)]);
           const auto d = graph.add_node("conv_lstm_recurrence_grad", ins, n.attrs);
           std::vector<Output> out(n.inputs.size());
           out[0] = d[0];
           out[1] = d[1];
           if (slots.h0 >= 0) {
             out[static_cast<std::size_t>(slots.h0)] = d[2];
             out[static_cast<std::size_t>(slots.c0)] = d[3];
           }
           return out;  // none for the dropout and step masks
         }});
  r.add({.name = "conv_lstm_recurrence_grad",
         .infer = infer_recurrence_grad,
         .gradient = {},
         .differentiable = false});
}

std::vector<Output> conv_lstm_recurrence(Output xz, Output recurrent_kernel, Output h0, Output c0,
                                         Output recurrent_masks, Output mask, const ConvLSTMRecurrenceOptions& options) {
  if (h0.valid() != c0.valid()) throw ValueError("conv_lstm_recurrence: give both initial states or neither");
  Attrs attrs{{"activation", options.activation},
              {"recurrent_activation", options.recurrent_activation},
              {"go_backwards", options.go_backwards},
              {"zero_output_for_mask", options.zero_output_for_mask},
              {"has_initial_state", h0.valid()},
              {"has_recurrent_masks", recurrent_masks.valid()},
              {"has_mask", mask.valid()}};
  std::vector<Output> ins{xz, recurrent_kernel};
  for (const Output& o : {h0, c0, recurrent_masks, mask}) {
    if (o.valid()) ins.push_back(o);
  }
  return xz.graph->add_node("conv_lstm_recurrence", ins, attrs);
}

}  // namespace strata::ops
