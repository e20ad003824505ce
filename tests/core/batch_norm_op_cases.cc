// Op cases for batch_normalization and its gradient (core/ops/batch_norm_ops.h):
// forward values against sums in double, in training (the batch's statistics) and in
// inference (the moving ones), channels last and on a middle axis; finite-difference
// checks of the gradient (through all three outputs) and of the gradient's gradient.
// Registered into op_gradients_test's table.
#include <cmath>
#include <vector>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/ops/batch_norm_ops.h"
#include "op_cases.h"

namespace strata::testing::batch_norm_op_cases {
namespace {

using V = const std::vector<Output>&;
constexpr float kEpsilon = 1e-3f;

// x seen as (outer, C, inner) around `axis`.
struct Layout {
  std::int64_t outer = 1, channels = 1, inner = 1;
};
Layout layout_of(const Shape& s, int axis) {
  Layout l;
  for (int d = 0; d < axis; ++d) l.outer *= s[d];
  l.channels = s[axis];
  for (int d = axis + 1; d < s.rank(); ++d) l.inner *= s[d];
  return l;
}

// (C,) shaped to broadcast against x.
Output per_channel(Output v, const Shape& x, int axis) {
  std::vector<std::int64_t> shape(static_cast<std::size_t>(x.rank()), 1);
  shape[static_cast<std::size_t>(axis)] = -1;
  return ops::reshape(v, shape);
}

// The three outputs in one: y + 0.5·mean + 0.25·variance (broadcast), so that a check
// sees every output's gradient.
Output combined(const ops::BatchNormOutputs& bn, const Shape& x, int axis) {
  return ops::add(ops::add(bn.y, ops::mul(per_channel(bn.mean, x, axis), 0.5f)),
                  ops::mul(per_channel(bn.variance, x, axis), 0.25f));
}

// inputs: x, gamma, beta, moving_mean, moving_variance.
Tensor reference(const std::vector<Tensor>& in, int axis, bool training) {
  const Tensor& x = in[0];
  const Layout l = layout_of(x.shape(), axis);
  const float* px = x.data<float>();
  std::vector<double> mean(static_cast<std::size_t>(l.channels)), variance(mean.size());
  const double count = static_cast<double>(l.outer * l.inner);
  auto index = [&](std::int64_t o, std::int64_t c, std::int64_t i) { return (o * l.channels + c) * l.inner + i; };
  for (std::int64_t c = 0; c < l.channels; ++c) {
    if (!training) {
      mean[c] = in[3].data<float>()[c];
      variance[c] = in[4].data<float>()[c];
      continue;
    }
    double sum = 0;
    for (std::int64_t o = 0; o < l.outer; ++o)
      for (std::int64_t i = 0; i < l.inner; ++i) sum += px[index(o, c, i)];
    mean[c] = sum / count;
    double squares = 0;
    for (std::int64_t o = 0; o < l.outer; ++o)
      for (std::int64_t i = 0; i < l.inner; ++i) squares += std::pow(px[index(o, c, i)] - mean[c], 2);
    variance[c] = squares / count;
  }
  Tensor y(x.shape());
  for (std::int64_t o = 0; o < l.outer; ++o)
    for (std::int64_t c = 0; c < l.channels; ++c)
      for (std::int64_t i = 0; i < l.inner; ++i) {
        const double normalized = (px[index(o, c, i)] - mean[c]) / std::sqrt(variance[c] + kEpsilon);
        y.data<float>()[index(o, c, i)] = static_cast<float>(normalized * in[1].data<float>()[c] +
                                                             in[2].data<float>()[c] + 0.5 * mean[c] +
                                                             0.25 * variance[c]);
      }
  return y;
}

std::vector<Tensor> inputs(const Shape& x, int axis, std::uint64_t seed) {
  const std::int64_t c = x[axis];
  return {uniform(x, -1.f, 1.f, seed), uniform({c}, 0.5f, 1.5f, seed + 1), uniform({c}, -0.5f, 0.5f, seed + 2),
          uniform({c}, -0.3f, 0.3f, seed + 3), uniform({c}, 0.5f, 2.f, seed + 4)};
}

// The moving statistics are not trained: the op gives them no gradient. Over a few
// hundred outputs the float32 loss the differences are taken of rounds by about 1e-5,
// noise a step of 1e-3 turns into 1e-2 on the numeric gradient: such cases take a step of
// 1e-2. So do training's: the batch's variance rounds by about 1e-7 of itself in any
// order of its sums, and it scales every output at once, which over a hundred outputs a
// step of 1e-3 turns into about 3e-3 on the numeric gradient (the same sums taken in
// another order, in blocks, moved one element past the bound).
GradientCheckOptions options(bool training, std::int64_t outputs = 0) {
  GradientCheckOptions o;
  o.training = training;
  if (training || outputs > 200) o.epsilon = 1e-2f;
  o.fixed_inputs = {3, 4};
  return o;
}

std::vector<GradCase> forward_cases() {
  std::vector<GradCase> cases;
  struct Setting {
    const char* label;
    Shape x;
    int axis;
    bool training;
  };
  // 37 channels: the kernels' whole vectors of channels and the ones after them.
  const Setting settings[] = {{"training, channels last (6, 5, 4)", Shape{6, 5, 4}, 2, true},
                              {"training, 37 channels last (9, 37)", Shape{9, 37}, 1, true},
                              {"inference, 37 channels last (9, 37)", Shape{9, 37}, 1, false},
                              {"training, channels on axis 1 of (3, 4, 5)", Shape{3, 4, 5}, 1, true},
                              {"inference, channels last (6, 5, 4)", Shape{6, 5, 4}, 2, false}};
  std::uint64_t seed = 100;
  for (const Setting& s : settings) {
    const int axis = s.axis;
    const bool training = s.training;
    const Shape shape = s.x;
    cases.push_back({s.label,
                     [=](Graph&, V x) {
                       return combined(ops::batch_normalization(x[0], x[1], x[2], x[3], x[4], axis, kEpsilon), shape,
                                       axis);
                     },
                     inputs(s.x, axis, seed), [=](const std::vector<Tensor>& in) { return reference(in, axis, training); },
                     options(training, s.x.num_elements())});
    seed += 10;
  }
  return cases;
}

// The gradient's gradient: Σ w·dx + Σ dgamma + Σ dbeta of a weighted loss, differentiated
// again (core/ops/batch_norm_ops.cc builds it from the composite form).
std::vector<GradCase> gradient_cases() {
  std::vector<GradCase> cases;
  for (const bool training : {true, false}) {
    const Shape shape{5, 3, 4};
    const int axis = 2;
    std::vector<Tensor> in = inputs(shape, axis, training ? 300 : 400);
    in.push_back(uniform(shape, -1.f, 1.f, training ? 310 : 410));  // the loss's weights
    GradientCheckOptions o = options(training);
    o.fixed_inputs.push_back(5);
    cases.push_back({training ? "second order, training" : "second order, inference",
                     [=](Graph&, V x) {
                       const ops::BatchNormOutputs bn =
                           ops::batch_normalization(x[0], x[1], x[2], x[3], x[4], axis, kEpsilon);
                       const Output loss = ops::add(ops::reduce_sum(ops::mul(ops::mul(bn.y, bn.y), x[5])),
                                                    ops::reduce_sum(ops::mul(bn.variance, bn.mean)));
                       const std::vector<Output> g = gradients(loss, {x[0], x[1], x[2]});
                       return ops::add(ops::add(ops::reduce_sum(ops::mul(g[0], x[5])), ops::reduce_sum(ops::square(g[1]))),
                                       ops::reduce_sum(ops::mul(g[2], x[1])));
                     },
                     in, nullptr, o});
  }
  return cases;
}

const RegisterOpCases batch_norm_op_cases({
    {"batch_normalization", OpCase{forward_cases()}},
    {"batch_normalization_grad", OpCase{gradient_cases()}},
});

}  // namespace
}  // namespace strata::testing::batch_norm_op_cases
