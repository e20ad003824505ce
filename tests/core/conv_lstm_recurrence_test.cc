// conv_lstm_recurrence (core/ops/conv_lstm_ops.h), a ConvLSTM's time loop as one op:
// backpropagation through time checked by finite differences over one, two and three
// spatial axes, odd and even windows, initial states, go_backwards, per-step and
// per-position masks (zero_output_for_mask or not) and recurrent dropout masks; one
// program run on two numbers of steps; shapes refused at definition. Against Keras:
// tests/layers/conv_lstm_test.cc runs every ConvLSTM golden over None time steps.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/conv_lstm_ops.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::conv_lstm_recurrence_test {
namespace {

using V = const std::vector<Output>&;

struct Case {
  std::vector<std::int64_t> spatial, window;
  std::int64_t B = 2, T = 3, F = 2;
  bool initial_state = false, recurrent_masks = false;
  int mask_rank = 0;  // 0: none, 2: (B, T), else (B, T, spatial...)
  ops::ConvLSTMRecurrenceOptions options{};
};

std::vector<std::int64_t> dims(std::vector<std::int64_t> lead, const std::vector<std::int64_t>& spatial,
                               std::int64_t last) {
  lead.insert(lead.end(), spatial.begin(), spatial.end());
  lead.push_back(last);
  return lead;
}

// xz, recurrent_kernel [, h0, c0] [, recurrent_masks] [, mask]
std::vector<Tensor> inputs_of(const Case& c, std::uint64_t seed) {
  std::vector<std::int64_t> kernel = c.window;
  kernel.insert(kernel.end(), {c.F, 4 * c.F});
  std::vector<Tensor> in{uniform(Shape(dims({c.B, c.T}, c.spatial, 4 * c.F)), -1.f, 1.f, seed),
                         uniform(Shape(kernel), -0.5f, 0.5f, seed + 1)};
  if (c.initial_state) {
    in.push_back(uniform(Shape(dims({c.B}, c.spatial, c.F)), -0.8f, 0.8f, seed + 2));
    in.push_back(uniform(Shape(dims({c.B}, c.spatial, c.F)), -0.8f, 0.8f, seed + 3));
  }
  if (c.recurrent_masks) {  // dropout's masks: zeros and 1 / (1 - 0.5)
    Tensor m = uniform(Shape(dims({4, c.B}, c.spatial, c.F)), 0.f, 1.f, seed + 4);
    for (float& v : m.values<float>()) v = v < 0.5f ? 0.f : 2.f;
    in.push_back(m);
  }
  if (c.mask_rank != 0) {
    std::vector<std::int64_t> mask{c.B, c.T};
    if (c.mask_rank != 2) mask.insert(mask.end(), c.spatial.begin(), c.spatial.end());
    Tensor m = uniform(Shape(mask), 0.f, 1.f, seed + 5);
    for (float& v : m.values<float>()) v = v < 0.35f ? 0.f : 1.f;
    in.push_back(m);
  }
  return in;
}

std::vector<Output> recurrence(const Case& c, V in) {
  std::size_t k = 2;
  Output h0, c0, masks, mask;
  if (c.initial_state) {
    h0 = in[k++];
    c0 = in[k++];
  }
  if (c.recurrent_masks) masks = in[k++];
  if (c.mask_rank != 0) mask = in[k++];
  return ops::conv_lstm_recurrence(in[0], in[1], h0, c0, masks, mask, c.options);
}

GradCase grad_case(const std::string& label, const Case& c, std::uint64_t seed) {
  GradCase g{label,
             [c](Graph&, V in) {
               const auto o = recurrence(c, in);
               // Every output but the workspace contributes, each weighted differently.
               return ops::add(ops::reduce_sum(o[0], {1}),
                               ops::add(ops::mul(o[1], 0.7f), ops::add(ops::mul(o[2], 1.3f), ops::mul(o[3], 0.5f))));
             },
             inputs_of(c, seed)};
  std::size_t fixed = 2 + (c.initial_state ? 2 : 0);
  if (c.recurrent_masks) g.options.fixed_inputs.push_back(fixed++);
  if (c.mask_rank != 0) g.options.fixed_inputs.push_back(fixed);
  return g;
}

void check_runs_over_any_number_of_steps() {
  // One program over None steps, fed 5, 2, 5 and 0 steps: the first two steps of the
  // longer sequence give the shorter's results, a repeat gives the same numbers, and no
  // steps leave the states at zero.
  const Case c{.spatial = {4}, .window = {3}, .B = 2, .T = 5, .F = 2};
  const auto in = inputs_of(c, 70);
  Graph g;
  const Output xz = g.placeholder({Shape{kUnknownDim, kUnknownDim, 4, 8}});
  const Output u = g.placeholder({in[1].shape()});
  const auto o = ops::conv_lstm_recurrence(xz, u, {}, {}, {}, {}, {});
  EXPECT_EQ(o[0].shape(), (Shape{kUnknownDim, kUnknownDim, 4, 2}));
  EXPECT_EQ(o[2].shape(), (Shape{kUnknownDim, 4, 2}));
  Program p(g, {xz, u}, {o[0], o[2]});
  const auto five = p.run({in[0], in[1]});
  const auto first_steps = [&](std::int64_t steps) {
    Tensor t{Shape{2, steps, 4, 8}};
    for (std::int64_t b = 0; b < 2; ++b) {
      std::copy_n(in[0].data<float>() + b * 5 * 32, steps * 32, t.data<float>() + b * steps * 32);
    }
    return t;
  };
  const auto two = p.run({first_steps(2), in[1]});
  ASSERT_EQ(two[0].shape(), (Shape{2, 2, 4, 2}));
  for (std::int64_t b = 0; b < 2; ++b) {
    for (std::int64_t e = 0; e < 16; ++e) {
      EXPECT_EQ(two[0].item(b * 16 + e), five[0].item(b * 40 + e)) << b << " " << e;
    }
    for (std::int64_t e = 0; e < 8; ++e) EXPECT_EQ(two[1].item(b * 8 + e), five[0].item(b * 40 + 8 + e));
  }
  const auto again = p.run({in[0], in[1]});
  EXPECT_TRUE(tensors_near(again[0], five[0], 0.f));
  // Zero steps: no output steps, the states where they started (zeros).
  const auto none = p.run({first_steps(0), in[1]});
  EXPECT_EQ(none[0].shape(), (Shape{2, 0, 4, 2}));
  EXPECT_TRUE(tensors_near(none[1], Tensor(Shape{2, 4, 2}), 0.f));

  Graph bad;
  const Output x = bad.placeholder({Shape{2, kUnknownDim, 4, 8}});
  EXPECT_THROW(ops::conv_lstm_recurrence(x, bad.placeholder({Shape{3, 2, 6}}), {}, {}, {}, {}, {}), ShapeError);
  EXPECT_THROW(ops::conv_lstm_recurrence(x, bad.placeholder({Shape{3, 3, 8}}), {}, {}, {}, {}, {}), ShapeError);
  const Output k = bad.placeholder({Shape{3, 2, 8}});
  EXPECT_THROW(ops::conv_lstm_recurrence(x, k, bad.placeholder({Shape{2, 5, 2}}), bad.placeholder({Shape{2, 5, 2}}),
                                         {}, {}, {}),
               ShapeError);
  EXPECT_THROW(ops::conv_lstm_recurrence(x, k, {}, {}, {}, bad.placeholder({Shape{2, kUnknownDim, 3}}), {}),
               ShapeError);
  EXPECT_THROW(ops::conv_lstm_recurrence(x, k, {}, {}, {}, {}, {.activation = "elu"}), ValueError);
}

// One step of one position and one filter, window 1, linear activations, from h0 = 0.1,
// c0 = 0.6: z = xz + h0 · U = (0.6, 0.4, 0.6, 0.8), c = f·c0 + i·g = 0.6, h = o·c = 0.48.
// The gradient of h alone: dz = (o·g, o·c0, o·i, c), dU = h0 · dz, dh0 = U · dz, dc0 = o·f.
void check_gradient_by_hand() {
  const Attrs attrs{{"activation", std::string("linear")}, {"recurrent_activation", std::string("linear")},
                    {"has_initial_state", true}};
  Graph g;
  std::vector<Tensor> v{tensor<float>({1, 1, 1, 4}, {0.5f, 0.2f, 0.3f, 0.4f}), tensor<float>({1, 1, 4}, {1, 2, 3, 4}),
                        tensor<float>({1, 1, 1}, {0.1f}), tensor<float>({1, 1, 1}, {0.6f})};
  std::vector<Output> in;
  for (const Tensor& t : v) in.push_back(g.placeholder({t.shape()}));
  const auto o = g.add_node("conv_lstm_recurrence", in, attrs);
  const Output dy = g.placeholder({Shape{1, 1, 1, 1}}), dstate = g.placeholder({Shape{1, 1, 1}});
  std::vector<Output> grad_in = in;
  grad_in.insert(grad_in.end(), {o[4], dy, dstate, g.placeholder({Shape{1, 1, 1}}), dstate});
  const auto d = g.add_node("conv_lstm_recurrence_grad", grad_in, attrs);
  std::vector<Output> feeds = in;
  feeds.insert(feeds.end(), {dy, dstate, grad_in[grad_in.size() - 2]});
  v.insert(v.end(), {tensor<float>({1, 1, 1, 1}, {0}), tensor<float>({1, 1, 1}, {0}), tensor<float>({1, 1, 1}, {1})});
  Program p(g, feeds, {o[2], d[0], d[1], d[2], d[3]});
  const auto r = p.run(v);
  EXPECT_NEAR(r[0].item(), 0.48f, 1e-6f);
  const std::vector<float> dz{0.48f, 0.48f, 0.48f, 0.6f};
  for (int k = 0; k < 4; ++k) {
    EXPECT_NEAR(r[1].item(k), dz[static_cast<std::size_t>(k)], 1e-6f) << k;
    EXPECT_NEAR(r[2].item(k), 0.1f * dz[static_cast<std::size_t>(k)], 1e-6f) << k;
  }
  EXPECT_NEAR(r[3].item(), 0.48f + 0.96f + 1.44f + 2.4f, 1e-5f);
  EXPECT_NEAR(r[4].item(), 0.8f * 0.4f, 1e-6f);
}

const RegisterOpCases conv_lstm_cases({
    {"conv_lstm_recurrence",
     OpCase{.gradient_checks =
                {grad_case("1-D, window 3", {.spatial = {5}, .window = {3}}, 10),
                 grad_case("2-D, even window, initial states",
                           {.spatial = {3, 4}, .window = {2, 3}, .T = 2, .initial_state = true}, 20),
                 grad_case("1-D, go_backwards, steps masked",
                           {.spatial = {4}, .window = {2}, .T = 4, .initial_state = true, .mask_rank = 2,
                            .options = {.go_backwards = true}},
                           30),
                 grad_case("2-D, positions masked, zero_output_for_mask",
                           {.spatial = {3, 3}, .window = {3, 1}, .T = 3, .mask_rank = 4,
                            .options = {.zero_output_for_mask = true}},
                           40),
                 grad_case("1-D, recurrent dropout masks, relu and hard_sigmoid",
                           {.spatial = {4}, .window = {3}, .T = 3, .initial_state = true, .recurrent_masks = true,
                            .options = {.activation = "relu", .recurrent_activation = "hard_sigmoid"}},
                           50),
                 grad_case("3-D", {.spatial = {2, 3, 2}, .window = {2, 2, 3}, .B = 1, .T = 2, .F = 1}, 60)},
            .forward_check = check_runs_over_any_number_of_steps}},
    {"conv_lstm_recurrence_grad", OpCase{.forward_check = check_gradient_by_hand}},
});

}  // namespace
}  // namespace strata::testing::conv_lstm_recurrence_test
