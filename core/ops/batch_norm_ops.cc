#include "core/ops/batch_norm_ops.h"

#include <string>
#include <vector>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {
namespace {

// The input's channel axis, checked, and its channel count.
int channel_axis(const InferContext& ctx) {
  const Shape& x = ctx.inputs[0].shape;
  const std::int64_t axis = ctx.attrs.get<std::int64_t>("axis");
  if (x.rank() < 2 || axis < 0 || axis >= x.rank()) {
    throw ShapeError(ctx.op + ": x " + x.to_string() + " needs rank >= 2 and axis " + std::to_string(axis) +
                     " inside it");
  }
  return static_cast<int>(axis);
}

// Every input from `first` on is (C,) for x's C channels.
void expect_per_channel(const InferContext& ctx, std::size_t first, std::int64_t channels) {
  static const char* const kNames[] = {"dy", "x", "gamma", "beta/mean", "moving_mean/variance",
                                       "moving_variance/dmean", "dvariance"};
  for (std::size_t i = first; i < ctx.inputs.size(); ++i) {
    expect_float_input(ctx, i, kNames[i]);
    const Shape& s = ctx.inputs[i].shape;
    if (s.rank() != 1 || (channels >= 0 && s[0] >= 0 && s[0] != channels)) {
      throw ShapeError(ctx.op + ": input " + std::to_string(i) + " (" + kNames[i] + ") must be (" +
                       std::to_string(channels) + ",), got " + s.to_string());
    }
  }
}

// A (C,) operand shaped to broadcast against x: 1 on every axis but `axis`.
Output per_channel(Output v, const Shape& x, int axis) {
  std::vector<std::int64_t> shape(static_cast<std::size_t>(x.rank()), 1);
  shape[static_cast<std::size_t>(axis)] = -1;
  return reshape(v, shape);
}

std::vector<std::int64_t> reduced_axes(int rank, int axis) {
  std::vector<std::int64_t> axes;
  for (int i = 0; i < rank; ++i) {
    if (i != axis) axes.push_back(i);
  }
  return axes;
}

// The gradient's second derivatives: (dx, dgamma, dbeta) written in composite ops, in both
// modes (training_select), then differentiated as a vector-Jacobian product with the
// gradients of the three outputs.
std::vector<Output> second_order(const Node& n, const std::vector<Output>& g) {
  // Copies of the inputs: `gradients` gives total derivatives, and the inputs depend on
  // each other (mean and variance on x); the copies are leaves, so the derivatives are the
  // partial ones this node owes, the paths between the inputs left to the rest of the graph.
  const Output dy = identity(n.inputs[0]), x = identity(n.inputs[1]), gamma = identity(n.inputs[2]),
               mean = identity(n.inputs[3]), variance = identity(n.inputs[4]), dmean = identity(n.inputs[5]),
               dvariance = identity(n.inputs[6]);
  const int axis = static_cast<int>(n.attrs.get<std::int64_t>("axis"));
  const float epsilon = static_cast<float>(n.attrs.get<double>("epsilon"));
  const Shape& xs = x.shape();
  const std::vector<std::int64_t> axes = reduced_axes(xs.rank(), axis);
  auto c = [&](Output v) { return per_channel(v, xs, axis); };
  auto channel_sum = [&](Output v) { return reshape(reduce_sum(v, axes, true), {-1}); };
  const Output r = div(1.f, sqrt(add(variance, epsilon)));  // (C,)
  const Output centered = sub(x, c(mean));
  const Output sum_dy = channel_sum(dy), sum_dy_centered = channel_sum(mul(dy, centered));
  const Output dbeta = sum_dy, dgamma = mul(sum_dy_centered, r);
  const Output gr = mul(gamma, r);
  // Training: dx = γr·(dy − mean(dy) − (x − μ)·r²·mean(dy·(x − μ))) + dμ/N + 2·(x − μ)·dvar/N.
  const Output mean_dy = reduce_mean(dy, axes, true), mean_dy_centered = reduce_mean(mul(dy, centered), axes, true);
  const Output normalized_part =
      mul(c(gr), sub(sub(dy, mean_dy), mul(centered, mul(c(mul(r, r)), mean_dy_centered))));
  const Output spread_dmean = expand_to(c(dmean), x, axes, true);
  const Output spread_dvariance = mul(mul(centered, expand_to(c(dvariance), x, axes, true)), 2.f);
  const Output dx_training = add(add(normalized_part, spread_dmean), spread_dvariance);
  const Output dx = training_select(dx_training, mul(dy, c(gr)));
  // The vector-Jacobian product: Σ dx·g_dx + Σ dgamma·g_dgamma + Σ dbeta·g_dbeta.
  const Output total = add(add(reduce_sum(mul(dx, g[0])), reduce_sum(mul(dgamma, g[1]))), reduce_sum(mul(dbeta, g[2])));
  return gradients(total, {dy, x, gamma, mean, variance, dmean, dvariance});
}

}  // namespace

void register_batch_norm_ops(OpRegistry& r) {
  r.add({.name = "batch_normalization",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 5);
           expect_float_input(ctx, 0, "x");
           const int axis = channel_axis(ctx);
           const std::int64_t channels = ctx.inputs[0].shape[axis];
           expect_per_channel(ctx, 1, channels);
           const TensorSpec stats{Shape{channels}, DType::float32};
           return std::vector<TensorSpec>{ctx.inputs[0], stats, stats};
         },
         // (dx, dgamma, dbeta); the moving statistics get none (they are not trained).
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const std::vector<Output> grads = n.inputs[0].graph->add_node(
               "batch_normalization_grad",
               {g[0], n.inputs[0], n.inputs[1], Output{n.inputs[0].graph, n.id, 1}, Output{n.inputs[0].graph, n.id, 2},
                g[1], g[2]},
               n.attrs);
           return std::vector<Output>{grads[0], grads[1], grads[2], Output{}, Output{}};
         },
         .reads_mode = true});
  // (dy, x, gamma, mean, variance, dmean, dvariance) -> (dx, dgamma, dbeta), where mean
  // and variance are the forward op's outputs and dmean, dvariance their gradients.
  r.add({.name = "batch_normalization_grad",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 7);
           expect_float_input(ctx, 0, "dy");
           expect_float_input(ctx, 1, "x");
           if (ctx.inputs[0].shape != ctx.inputs[1].shape) {
             throw ShapeError(ctx.op + ": dy " + ctx.inputs[0].shape.to_string() + " and x " +
                              ctx.inputs[1].shape.to_string() + " differ");
           }
           const Shape& x = ctx.inputs[1].shape;
           const std::int64_t axis = ctx.attrs.get<std::int64_t>("axis");
           if (x.rank() < 2 || axis < 0 || axis >= x.rank()) {
             throw ShapeError(ctx.op + ": x " + x.to_string() + " needs rank >= 2 and axis inside it");
           }
           const std::int64_t channels = x[static_cast<int>(axis)];
           expect_per_channel(ctx, 2, channels);
           const TensorSpec stats{Shape{channels}, DType::float32};
           return std::vector<TensorSpec>{ctx.inputs[1], stats, stats};
         },
         .gradient = second_order,
         .reads_mode = true});
}

BatchNormOutputs batch_normalization(Output x, Output gamma, Output beta, Output moving_mean, Output moving_variance,
                                     int axis, float epsilon) {
  const int rank = x.shape().rank();
  const int normalized = axis < 0 ? axis + rank : axis;
  const std::vector<Output> out =
      x.graph->add_node("batch_normalization", {x, gamma, beta, moving_mean, moving_variance},
                        Attrs{{"axis", static_cast<std::int64_t>(normalized)}, {"epsilon", static_cast<double>(epsilon)}});
  return {out[0], out[1], out[2]};
}

Moments moments(Output x, const std::vector<std::int64_t>& axes, bool keepdims, bool synchronized) {
  if (synchronized) {
    const Output mean = reduce_mean(x, axes, keepdims);
    const Output mean_of_squares = reduce_mean(square(x), axes, keepdims);
    return {mean, maximum(sub(mean_of_squares, square(mean)), 0.f)};
  }
  const Output mean = reduce_mean(x, axes, true);
  const Output variance = reduce_mean(square(sub(x, stop_gradient(mean))), axes, true);
  if (keepdims) return {mean, variance};
  return {reduce_mean(mean, axes, false), reduce_mean(variance, axes, false)};  // the axes of size 1 dropped
}

Output batch_normalization_inference(Output x, Output gamma, Output beta, Output mean, Output variance, int axis,
                                     float epsilon) {
  const Shape& s = x.shape();
  const int normalized = axis < 0 ? axis + s.rank() : axis;
  // The kernel's own order (core/cpu/kernels/batch_norm.cc): 1/√(variance + ε), times γ,
  // (x − mean) times that, plus β.
  Output inv = div(1.f, sqrt(add(per_channel(variance, s, normalized), epsilon)));
  if (gamma.valid()) inv = mul(inv, per_channel(gamma, s, normalized));
  Output y = mul(sub(x, per_channel(mean, s, normalized)), inv);
  if (beta.valid()) y = add(y, per_channel(beta, s, normalized));
  return y;
}

}  // namespace strata::ops
