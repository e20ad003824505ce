// The op table: every registered op has a case here, or the suite fails naming it.
// Differentiable ops are checked against central finite differences (check_gradients)
// and, where a reference is given, their forward values against a naive computation.
// Ops without a gradient get forward values computed by hand.
//
// Registering an op? Add an entry to op_table() below — or, for a new op family, a file
// tests/core/<family>_op_cases.cc that registers its cases with RegisterOpCases (see
// op_cases.h): gradient_checks for a differentiable op (inputs away from kinks,
// broadcasting variants, a reference for the forward values), or a forward_check with
// values computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/autodiff.h"
#include "core/check_gradients.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/optimizer_update_ops.h"
#include "core/program.h"
#include "core_test_util.h"
#include "op_cases.h"
#include "reference_ops.h"

using namespace strata;
using namespace strata::testing;

namespace op_gradients_test {

namespace {

// ---- the table ------------------------------------------------------------------------




// The same binary op over several broadcasting layouts (a's shape, b's shape).
std::vector<GradCase> broadcasting_cases(Builder2 op, std::function<float(float, float)> ref,
                                         std::function<Tensor(Shape, std::uint64_t)> make_a,
                                         std::function<Tensor(Shape, std::uint64_t)> make_b) {
  const std::vector<std::pair<Shape, Shape>> layouts = {
      {Shape{3, 4}, Shape{3, 4}}, {Shape{3, 4}, Shape{4}}, {Shape{4}, Shape{3, 4}}, {Shape{3, 1}, Shape{1, 4}},
      {Shape{3, 4}, Shape{}},     {Shape{}, Shape{3, 4}},  {Shape{2, 3, 4}, Shape{3, 1}}};
  std::vector<GradCase> cases;
  std::uint64_t seed = 1;
  for (const auto& [sa, sb] : layouts) {
    cases.push_back({sa.to_string() + " with " + sb.to_string(), binary(op),
                     {make_a(sa, seed), make_b(sb, seed + 100)},
                     [ref](const std::vector<Tensor>& x) { return ref_binary(x[0], x[1], ref); }});
    ++seed;
  }
  return cases;
}

std::vector<GradCase> unary_cases(Builder1 op, std::function<float(float)> ref,
                                  std::function<Tensor(Shape, std::uint64_t)> make) {
  std::vector<GradCase> cases;
  std::uint64_t seed = 21;
  for (const Shape& s : {Shape{3, 4}, Shape{2, 3, 5}, Shape{}}) {
    cases.push_back({s.to_string(), unary(op), {make(s, seed++)},
                     [ref](const std::vector<Tensor>& x) { return ref_unary(x[0], ref); }});
  }
  return cases;
}

std::vector<GradCase> reduce_cases(std::function<Output(Output, std::vector<std::int64_t>, bool)> op, ReduceKind kind) {
  const std::vector<std::vector<std::int64_t>> axis_sets = {{}, {0}, {1}, {-1}, {0, 1}, {1, 2}, {0, 2}, {2, 0}};
  std::vector<GradCase> cases;
  std::uint64_t seed = 40;
  for (const auto& axes : axis_sets) {
    for (bool keepdims : {false, true}) {
      std::string label = "axes " + Shape(axes).to_string() + (keepdims ? " keepdims" : "");
      Tensor x = kind == ReduceKind::max ? distinct({2, 3, 4}, seed++) : uniform({2, 3, 4}, -1, 1, seed++);
      cases.push_back({label,
                       unary([=](Output v) { return op(v, axes, keepdims); }),
                       {x},
                       [=](const std::vector<Tensor>& in) { return ref_reduce(in[0], axes, keepdims, kind); }});
    }
  }
  return cases;
}

Tensor any_values(Shape s, std::uint64_t seed) { return uniform(std::move(s), -1.f, 1.f, seed); }
Tensor positive(Shape s, std::uint64_t seed) { return uniform(std::move(s), 0.5f, 2.f, seed); }
Tensor nonzero(Shape s, std::uint64_t seed) { return away_from_zero(std::move(s), 0.2f, 1.5f, seed); }
Tensor denominators(Shape s, std::uint64_t seed) { return away_from_zero(std::move(s), 0.5f, 1.5f, seed); }

std::vector<GradCase> matmul_cases() {
  struct Layout {
    Shape a, b;
    bool ta, tb;
  };
  const std::vector<Layout> layouts = {
      {{3, 4}, {4, 5}, false, false},    {{3, 4}, {5, 4}, false, true},    {{4, 3}, {4, 5}, true, false},
      {{4, 3}, {5, 4}, true, true},      {{2, 3, 4}, {4, 5}, false, false}, {{2, 3, 4}, {5, 4}, false, true},
      {{2, 3, 4}, {6, 5}, true, false},  {{2, 3, 4}, {5, 6}, true, true}};
  std::vector<GradCase> cases;
  std::uint64_t seed = 60;
  for (const auto& l : layouts) {
    bool ta = l.ta, tb = l.tb;
    std::string label = l.a.to_string() + (ta ? "^T" : "") + " x " + l.b.to_string() + (tb ? "^T" : "");
    cases.push_back({label, binary([=](Output a, Output b) { return ops::matmul(a, b, ta, tb); }),
                     {any_values(l.a, seed), any_values(l.b, seed + 1)},
                     [=](const std::vector<Tensor>& x) { return ref_matmul(x[0], x[1], ta, tb); }});
    seed += 2;
  }
  return cases;
}

// Keras 3's sparsemax (every backend): tau = (sum of the support's cumulative sums - 1) / k.
Tensor ref_keras_sparsemax(const Tensor& x) {
  const std::int64_t n = x.shape().dims().back(), lanes = x.size() / n;
  Tensor y(x.shape());
  for (std::int64_t l = 0; l < lanes; ++l) {
    std::vector<float> z(x.data<float>() + l * n, x.data<float>() + (l + 1) * n);
    std::sort(z.begin(), z.end(), std::greater<float>());
    double c = 0, sum = 0;
    int k = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      c += z[j];
      if (z[j] - (c - 1) / (j + 1) > 0) ++k, sum += c;
    }
    const double tau = (sum - 1) / std::max(k, 1);
    for (std::int64_t i = 0; i < n; ++i)
      y.data<float>()[l * n + i] = static_cast<float>(std::max(x.data<float>()[l * n + i] - tau, 0.0));
  }
  return y;
}

std::vector<GradCase> softmax_cases(bool log_space) {
  std::vector<GradCase> cases;
  std::uint64_t seed = 80;
  for (const auto& shape_axis : std::vector<std::pair<Shape, int>>{{{3, 4}, -1}, {{3, 4}, 0}, {{2, 3, 4}, 1}, {{5}, 0}}) {
    const Shape& shape = shape_axis.first;
    const int axis = shape_axis.second;  // lambdas capture it: clang 14 cannot capture a binding
    cases.push_back({shape.to_string() + " axis " + std::to_string(axis),
                     unary([=](Output x) { return log_space ? ops::log_softmax(x, axis) : ops::softmax(x, axis); }),
                     {uniform(shape, -2.f, 2.f, seed++)},
                     [=](const std::vector<Tensor>& x) { return ref_softmax(x[0], axis, log_space); }});
  }
  return cases;
}

Tensor labels_4() { return tensor<std::int64_t>({4}, {0, 3, 4, 1}); }
Tensor labels_2x3_int32() { return tensor<std::int32_t>({2, 3}, {4, 0, 2, 2, 1, 3}); }

Tensor float_labels_4() { return tensor<float>({4}, {0, 3, 4, 1}); }

// Float labels are fed as given: check_gradients must not perturb them.
GradientCheckOptions labels_fixed(std::size_t input) {
  GradientCheckOptions options;
  options.fixed_inputs = {input};
  return options;
}

void check_comparison(Builder2 op, std::vector<float> expected) {
  // a (2, 3) against b (3,), with ties in both rows.
  Tensor a = tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor b = tensor<float>({3}, {2, 5, 3});
  EXPECT_TRUE(tensors_near(evaluate(binary(op), {a, b}), tensor<float>({2, 3}, expected), 0.f));
  Graph g;
  Output x = g.placeholder({{2, 3}}, "a");
  Output y = g.placeholder({{3}}, "b");
  EXPECT_FALSE(gradients(ops::reduce_sum(op(x, y)), {x})[0].valid()) << "comparisons carry no gradient";
}

void check_variable_update(bool add) {
  Variable v("counter", tensor<float>({3}, {1, 2, 3}));
  Graph g;
  Output delta = g.placeholder({{3}}, "delta");
  Output update = add ? ops::assign_add(g.variable(v), delta) : ops::assign(g.variable(v), delta);
  Program p(g, {delta}, {}, {update});
  p.run({tensor<float>({3}, {10, 20, 30})});
  EXPECT_TRUE(tensors_near(v.value(), tensor<float>({3}, add ? std::vector<float>{11, 22, 33}
                                                                : std::vector<float>{10, 20, 30})));
  p.run({tensor<float>({3}, {10, 20, 30})});
  EXPECT_TRUE(tensors_near(v.value(), tensor<float>({3}, add ? std::vector<float>{21, 42, 63}
                                                                : std::vector<float>{10, 20, 30})));
  // A scalar value applies to every element; integer variables update too.
  Variable steps("steps", tensor<std::int64_t>({2}, {5, 6}));
  Graph g2;
  Output one = g2.placeholder({{}, DType::int64}, "one");
  Output u2 = add ? ops::assign_add(g2.variable(steps), one) : ops::assign(g2.variable(steps), one);
  Program p2(g2, {one}, {}, {u2});
  p2.run({tensor<std::int64_t>({}, {1})});
  EXPECT_TRUE(tensors_near(steps.value(), tensor<std::int64_t>({2}, add ? std::vector<std::int64_t>{6, 7}
                                                                        : std::vector<std::int64_t>{1, 1})));
  // Only variables can be written; the value must fit the variable.
  EXPECT_THROW(add ? ops::assign_add(delta, delta) : ops::assign(delta, delta), ValueError);
  Graph g3;
  Variable w("w", Tensor({3}));
  Output wrong = g3.placeholder({{4}}, "wrong");
  EXPECT_THROW(add ? ops::assign_add(g3.variable(w), wrong) : ops::assign(g3.variable(w), wrong), ShapeError);
}

// One step of each fused optimizer update on w = (1, -2) with g = (0.5, -0.25), lr 0.1,
// against the update rule written out by hand in double precision.
void check_optimizer_update(const std::string& op) {
  const std::vector<double> w0 = {1.0, -2.0}, g = {0.5, -0.25};
  const double lr = 0.1;
  Variable w("w", tensor<float>({2}, {1.f, -2.f}));
  Variable s1("s1", tensor<float>({2}, {0.2f, 0.1f}));
  Variable s2("s2", tensor<float>({2}, {0.3f, 0.05f}));
  Variable it("it", tensor<std::int64_t>({}, {2}));
  Variable rate("lr", tensor<float>({}, {0.1f}));
  Graph graph;
  Output grad = graph.placeholder({{2}}, "grad");
  Output update;
  std::vector<double> expected(2);
  if (op == "apply_sgd") {
    update = ops::apply_sgd(graph.variable(w), graph.variable(s1), grad, graph.variable(rate), {.momentum = 0.9});
    for (int i = 0; i < 2; ++i) expected[i] = w0[i] + (0.9 * (i ? 0.1 : 0.2) - lr * g[i]);
  } else if (op == "apply_adam") {
    update = ops::apply_adam(graph.variable(w), graph.variable(s1), graph.variable(s2), Output{}, grad,
                             graph.variable(rate), graph.variable(it), {});
    const double t = 3, alpha = lr * std::sqrt(1 - std::pow(0.999, t)) / (1 - std::pow(0.9, t));
    for (int i = 0; i < 2; ++i) {
      double m = (i ? 0.1 : 0.2), v = (i ? 0.05 : 0.3);
      m += (g[i] - m) * (1 - 0.9);
      v += (g[i] * g[i] - v) * (1 - 0.999);
      expected[i] = w0[i] - alpha * m / (std::sqrt(v) + 1e-7);
    }
  } else if (op == "apply_rmsprop") {
    update = ops::apply_rmsprop(graph.variable(w), graph.variable(s1), Output{}, Output{}, grad, graph.variable(rate), {});
    for (int i = 0; i < 2; ++i) {
      double v = 0.9 * (i ? 0.1 : 0.2) + 0.1 * g[i] * g[i];
      expected[i] = w0[i] - lr * g[i] / std::sqrt(v + 1e-7);
    }
  } else {  // apply_adagrad
    update = ops::apply_adagrad(graph.variable(w), graph.variable(s1), grad, graph.variable(rate), 1e-7);
    for (int i = 0; i < 2; ++i) {
      double acc = (i ? 0.1 : 0.2) + g[i] * g[i];
      expected[i] = w0[i] - lr * g[i] / std::sqrt(acc + 1e-7);
    }
  }
  Program p(graph, {grad}, {}, {update});
  p.run({tensor<float>({2}, {0.5f, -0.25f})});
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(w.value().data<float>()[i], expected[i], 1e-6) << op << " element " << i;
}

void check_dropout_forward() {
  const float rate = 0.3f;
  GraphBuilder drop = unary([=](Output x) { return ops::dropout(x, rate, 42, 7); });
  Tensor x = uniform({40, 50}, 0.5f, 1.5f, 5);
  // Inference: the identity.
  EXPECT_TRUE(tensors_near(evaluate(drop, {x}), x, 0.f));
  // Training: each element dropped or scaled by 1 / (1 - rate); about `rate` dropped.
  Graph g;
  Output in = g.placeholder({x.shape()}, "x");
  Program p(g, {in}, {ops::dropout(in, rate, 42, 7)});
  Tensor step0 = p.run({x}, {.training = true, .step = 0})[0];
  Tensor again = p.run({x}, {.training = true, .step = 0})[0];
  Tensor step1 = p.run({x}, {.training = true, .step = 1})[0];
  EXPECT_TRUE(tensors_near(step0, again, 0.f)) << "a step's mask is deterministic";
  std::int64_t dropped = 0, differ = 0;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    float v = step0.item(i);
    if (v == 0.f) {
      ++dropped;
    } else {
      EXPECT_NEAR(v, x.item(i) / (1.f - rate), 1e-5f) << "element " << i;
    }
    differ += (step0.item(i) == 0.f) != (step1.item(i) == 0.f);
  }
  EXPECT_NEAR(static_cast<double>(dropped) / static_cast<double>(x.size()), rate, 0.03);
  EXPECT_GT(differ, x.size() / 5) << "masks of different steps differ";
  // The mask is the one Philox defines, element by element (word i % 4 of block i / 4,
  // elements numbered from the shard's first sample), however the kernel batches its
  // draws: at offset 0 and at an offset whose first element is not a block's first word.
  for (std::int64_t offset : {std::int64_t{0}, std::int64_t{3}}) {
    Tensor got = p.run({x}, {.training = true, .step = 2, .sample_offset = offset})[0];
    const Philox rng(mix_seed(42, 2), 7);
    for (std::int64_t i = 0; i < x.size(); ++i) {
      const auto g = static_cast<std::uint64_t>(offset * 50 + i);
      const bool kept = Philox::to_uniform(rng.bits(g / 4)[g % 4]) >= rate;
      ASSERT_EQ(got.item(i) != 0.f, kept) << "element " << i << " at sample offset " << offset;
    }
  }
  EXPECT_THROW(ops::dropout(in, 1.0f, 1, 1), ValueError);
}

const std::map<std::string, OpCase>& op_table() {
  static const std::map<std::string, OpCase> table = [] {
    std::map<std::string, OpCase> t;
    using V = const std::vector<Output>&;

    // --- sources and identity-like ---------------------------------------------------------
    t["placeholder"].forward_check = [] {
      Tensor x = tensor<float>({2, 2}, {1, 2, 3, 4});
      Tensor out = evaluate([](Graph&, V in) { return in[0]; }, {x});
      EXPECT_TRUE(tensors_near(out, x, 0.f));
      EXPECT_FALSE(out.shares_storage_with(x)) << "fetched values belong to the caller";
    };
    t["variable"].forward_check = [] {
      Variable v("dense/kernel", tensor<float>({2}, {3, -1}));
      Graph g;
      Output read = g.variable(v);
      EXPECT_EQ(g.variable(v), read) << "one node per variable";
      Output x = g.placeholder({{2}}, "x");
      Output grad = gradients(ops::reduce_sum(ops::mul(read, x)), {read})[0];
      Program p(g, {x}, {read, grad});
      auto out = p.run({tensor<float>({2}, {5, 7})});
      EXPECT_TRUE(tensors_near(out[0], tensor<float>({2}, {3, -1}), 0.f));
      EXPECT_TRUE(tensors_near(out[1], tensor<float>({2}, {5, 7}), 0.f)) << "gradients flow to variables";
    };
    t["constant"].forward_check = [] {
      Tensor c = evaluate([](Graph& g, V) { return ops::constant(g, 2.5f); }, {});
      EXPECT_TRUE(tensors_near(c, Tensor::scalar(2.5f), 0.f));
    };
    t["fill_like"].gradient_checks = {{"(3, 4)", unary([](Output x) { return ops::fill_like(x, 2.5f); }),
                                       {any_values({3, 4}, 1)},
                                       [](const std::vector<Tensor>& x) { return Tensor::filled(x[0].shape(), 2.5f); }}};
    t["identity"].gradient_checks = {{"(3, 4)", unary(ops::identity), {any_values({3, 4}, 2)},
                                      [](const std::vector<Tensor>& x) { return x[0]; }}};
    t["stop_gradient"].no_gradient_check = "its gradient is zero by definition, unlike its finite differences";
    t["stop_gradient"].forward_check = [] {
      Tensor x = tensor<float>({3}, {1, -2, 3});
      EXPECT_TRUE(tensors_near(evaluate(unary(ops::stop_gradient), {x}), x, 0.f));
      // d/dx sum(stop_gradient(x) * x) = stop_gradient(x) = x, not 2x.
      Tensor grad = evaluate([](Graph&, V in) {
        return gradients(ops::reduce_sum(ops::mul(ops::stop_gradient(in[0]), in[0])), {in[0]})[0];
      }, {x});
      EXPECT_TRUE(tensors_near(grad, x, 0.f));
    };
    // Rounding to bfloat16 / float16 (core/precision_rounding.h): ties to even, NaN kept,
    // float16's overflow at 65520 and its subnormals; the gradient passes through, as a
    // cast's in Keras's mixed-precision models.
    for (const char* name : {"round_to_bfloat16", "round_to_float16", "round_to_float8_e4m3fn"}) {
      t[name].no_gradient_check = "its gradient is 1 by definition (a straight-through cast), unlike its finite differences";
    }
    t["round_to_bfloat16"].forward_check = [] {
      // 1 + 2^-8 is a tie between 1 and 1 + 2^-7: to the even, 1; 1 + 3·2^-8 to 1 + 2^-6.
      Tensor x = tensor<float>({6}, {1.f + 0x1p-8f, 1.f + 3 * 0x1p-8f, -1.f - 0x1p-9f, 3.14159265f, 1e30f,
                                     std::numeric_limits<float>::quiet_NaN()});
      const auto y = evaluate(unary(ops::round_to_bfloat16), {x}).to_vector<float>();
      EXPECT_EQ(y[0], 1.f);
      EXPECT_EQ(y[1], 1.f + 0x1p-6f);
      EXPECT_EQ(y[2], -1.f);
      EXPECT_EQ(y[3], 3.140625f);
      EXPECT_EQ(y[4], 0x1.94p+99f);  // 1e30f, 0x7149f2ca, rounded up to 0x714a0000 (ml_dtypes agrees)
      EXPECT_TRUE(std::isnan(y[5]));
      Tensor grad = evaluate([](Graph&, V in) { return gradients(ops::reduce_sum(ops::round_to_bfloat16(in[0])), {in[0]})[0]; },
                             {x});
      EXPECT_TRUE(tensors_near(grad, Tensor::filled(x.shape(), 1.f), 0.f));
    };
    t["round_to_float16"].forward_check = [] {
      Tensor x = tensor<float>({7}, {1.f + 0x1p-11f, 65504.f, 65519.f, 65520.f, -1e6f, 0x1.8p-24f, 0x1p-25f});
      const auto y = evaluate(unary(ops::round_to_float16), {x}).to_vector<float>();
      EXPECT_EQ(y[0], 1.f);                                       // a tie, to the even
      EXPECT_EQ(y[1], 65504.f);                                   // the largest float16
      EXPECT_EQ(y[2], 65504.f);
      EXPECT_EQ(y[3], std::numeric_limits<float>::infinity());    // past it by half a step
      EXPECT_EQ(y[4], -std::numeric_limits<float>::infinity());
      EXPECT_EQ(y[5], 0x1p-23f);                                  // 1.5 subnormal steps: a tie, to 2
      EXPECT_EQ(y[6], 0.f);                                       // half the smallest: a tie, to 0
      Tensor grad = evaluate([](Graph&, V in) { return gradients(ops::reduce_sum(ops::round_to_float16(in[0])), {in[0]})[0]; },
                             {x});
      EXPECT_TRUE(tensors_near(grad, Tensor::filled(x.shape(), 1.f), 0.f));
    };
    t["round_to_float8_e4m3fn"].forward_check = [] {
      // 1 + 2^-4 lies halfway between 1 and 1 + 2^-3: to the even, 1; 448 the largest, 464
      // past it by half a step (NaN: the format has no infinity); steps of 2^-9 below 2^-6.
      Tensor x = tensor<float>({6}, {1.f + 0x1p-4f, 1.f + 3 * 0x1p-4f, 448.f, 464.f, 3 * 0x1p-10f, -0x1p-11f});
      const auto y = evaluate(unary(ops::round_to_float8_e4m3fn), {x}).to_vector<float>();
      EXPECT_EQ(y[0], 1.f);
      EXPECT_EQ(y[1], 1.25f);
      EXPECT_EQ(y[2], 448.f);
      EXPECT_TRUE(std::isnan(y[3]));
      EXPECT_EQ(y[4], 0x1p-8f);   // 1.5 steps of 2^-9: a tie, to 2
      EXPECT_EQ(y[5], -0.f);      // a quarter step: to zero
    };
    // ops::cast returns its input for a same-dtype cast: add the node explicitly.
    t["cast"].gradient_checks = {{"float32 -> float32", [](Graph& g, V x) {
                                    return g.add("cast", {x[0]}, Attrs{{"dtype", std::string("float32")}});
                                  },
                                  {any_values({3, 4}, 3)}, [](const std::vector<Tensor>& x) { return x[0]; }}};
    t["cast"].forward_check = [] {
      Tensor f = tensor<float>({4}, {-1.f, 0.f, 2.f, 7.f});
      EXPECT_TRUE(tensors_near(evaluate(unary([](Output x) { return ops::cast(x, DType::int64); }), {f}),
                               tensor<std::int64_t>({4}, {-1, 0, 2, 7}), 0.f));
      Tensor i = tensor<std::int32_t>({2}, {3, -4});
      EXPECT_TRUE(tensors_near(evaluate(unary([](Output x) { return ops::cast(x, DType::float32); }), {i}),
                               tensor<float>({2}, {3, -4}), 0.f));
    };

    // --- elementwise ---------------------------------------------------------------------
    t["add"].gradient_checks = broadcasting_cases([](Output a, Output b) { return ops::add(a, b); },
                                                  [](float a, float b) { return a + b; }, any_values, any_values);
    t["sub"].gradient_checks = broadcasting_cases([](Output a, Output b) { return ops::sub(a, b); },
                                                  [](float a, float b) { return a - b; }, any_values, any_values);
    t["mul"].gradient_checks = broadcasting_cases([](Output a, Output b) { return ops::mul(a, b); },
                                                  [](float a, float b) { return a * b; }, any_values, any_values);
    t["div"].gradient_checks = broadcasting_cases([](Output a, Output b) { return ops::div(a, b); },
                                                  [](float a, float b) { return a / b; }, any_values, denominators);
    t["maximum"].gradient_checks = broadcasting_cases([](Output a, Output b) { return ops::maximum(a, b); },
                                                      [](float a, float b) { return std::max(a, b); }, odd_tenths,
                                                      even_tenths);
    t["minimum"].gradient_checks = broadcasting_cases([](Output a, Output b) { return ops::minimum(a, b); },
                                                      [](float a, float b) { return std::min(a, b); }, odd_tenths,
                                                      even_tenths);
    t["relu_grad"].gradient_checks = broadcasting_cases([](Output g, Output y) { return ops::relu_grad(g, y); },
                                                        [](float g, float y) { return y > 0 ? g : 0.f; }, any_values,
                                                        nonzero);
    t["equal"].forward_check = [] { check_comparison(ops::equal, {0, 0, 1, 0, 1, 0}); };
    t["not_equal"].forward_check = [] { check_comparison(ops::not_equal, {1, 1, 0, 1, 0, 1}); };
    t["greater"].forward_check = [] { check_comparison(ops::greater, {0, 0, 0, 1, 0, 1}); };
    t["greater_equal"].forward_check = [] { check_comparison(ops::greater_equal, {0, 0, 1, 1, 1, 1}); };
    t["less"].forward_check = [] { check_comparison(ops::less, {1, 1, 0, 0, 0, 0}); };
    t["less_equal"].forward_check = [] { check_comparison(ops::less_equal, {1, 1, 1, 0, 1, 0}); };

    t["neg"].gradient_checks = unary_cases(ops::neg, [](float x) { return -x; }, any_values);
    t["exp"].gradient_checks = unary_cases(ops::exp, [](float x) { return std::exp(x); }, any_values);
    t["log"].gradient_checks = unary_cases(ops::log, [](float x) { return std::log(x); }, positive);
    t["sqrt"].gradient_checks = unary_cases(ops::sqrt, [](float x) { return std::sqrt(x); }, positive);
    t["square"].gradient_checks = unary_cases(ops::square, [](float x) { return x * x; }, any_values);
    t["abs"].gradient_checks = unary_cases(ops::abs, [](float x) { return std::fabs(x); }, nonzero);
    t["tanh"].gradient_checks = unary_cases(ops::tanh, [](float x) { return std::tanh(x); },
                                            [](Shape s, std::uint64_t seed) { return uniform(s, -2, 2, seed); });
    t["sigmoid"].gradient_checks = unary_cases(ops::sigmoid, [](float x) { return 1.f / (1.f + std::exp(-x)); },
                                               [](Shape s, std::uint64_t seed) { return uniform(s, -3, 3, seed); });
    t["relu"].gradient_checks = unary_cases(ops::relu, [](float x) { return std::max(x, 0.f); }, nonzero);
    t["gelu"].gradient_checks = unary_cases(ops::gelu,
                                            [](float x) { return 0.5f * x * std::erfc(-x * static_cast<float>(M_SQRT1_2)); },
                                            [](Shape s, std::uint64_t seed) { return uniform(s, -4, 4, seed); });
    t["silu"].gradient_checks = unary_cases(ops::silu, [](float x) { return x / (1.f + std::exp(-x)); },
                                            [](Shape s, std::uint64_t seed) { return uniform(s, -4, 4, seed); });
    // Kept 0.2 away from both kinks: below 0, inside (0, 6), above 6.
    t["relu6"].gradient_checks = unary_cases(ops::relu6, [](float x) { return std::min(std::max(x, 0.f), 6.f); },
                                             [](Shape s, std::uint64_t seed) {
                                               Tensor t = away_from_zero(std::move(s), 0.2f, 1.5f, seed);
                                               float* v = t.data<float>();
                                               for (std::int64_t i = 0; i < t.size(); i += 3) v[i] += 6.f;
                                               return t;
                                             });
    t["erf"].gradient_checks = unary_cases(ops::erf, [](float x) { return std::erf(x); }, any_values);
    t["softplus"].gradient_checks = unary_cases(ops::softplus, [](float x) { return std::log1p(std::exp(x)); },
                                                [](Shape s, std::uint64_t seed) { return uniform(s, -3, 3, seed); });
    auto within = [](float lo, float hi) {
      return [=](Shape s, std::uint64_t seed) { return uniform(std::move(s), lo, hi, seed); };
    };
    t["sin"].gradient_checks = unary_cases(ops::sin, [](float x) { return std::sin(x); }, within(-3, 3));
    t["cos"].gradient_checks = unary_cases(ops::cos, [](float x) { return std::cos(x); }, within(-3, 3));
    t["tan"].gradient_checks = unary_cases(ops::tan, [](float x) { return std::tan(x); }, within(-1.2f, 1.2f));
    t["asin"].gradient_checks = unary_cases(ops::asin, [](float x) { return std::asin(x); }, within(-0.9f, 0.9f));
    t["acos"].gradient_checks = unary_cases(ops::acos, [](float x) { return std::acos(x); }, within(-0.9f, 0.9f));
    t["atan"].gradient_checks = unary_cases(ops::atan, [](float x) { return std::atan(x); }, within(-3, 3));
    t["sinh"].gradient_checks = unary_cases(ops::sinh, [](float x) { return std::sinh(x); }, within(-2, 2));
    t["cosh"].gradient_checks = unary_cases(ops::cosh, [](float x) { return std::cosh(x); }, within(-2, 2));
    t["asinh"].gradient_checks = unary_cases(ops::asinh, [](float x) { return std::asinh(x); }, within(-3, 3));
    t["acosh"].gradient_checks = unary_cases(ops::acosh, [](float x) { return std::acosh(x); }, within(1.2f, 4));
    t["atanh"].gradient_checks = unary_cases(ops::atanh, [](float x) { return std::atanh(x); }, within(-0.8f, 0.8f));
    t["log1p"].gradient_checks = unary_cases(ops::log1p, [](float x) { return std::log1p(x); }, within(-0.8f, 3));
    t["expm1"].gradient_checks = unary_cases(ops::expm1, [](float x) { return std::expm1(x); }, within(-2, 2));
    // Rounding: halves of both parities (round is half to even), negatives, whole numbers.
    auto check_rounding = [](Builder1 op, std::vector<float> expected) {
      Tensor x = tensor<float>({8}, {-2.5f, -1.5f, -0.5f, 0.5f, 1.5f, 2.5f, -1.25f, 3.f});
      EXPECT_TRUE(tensors_near(evaluate(unary(op), {x}), tensor<float>({8}, std::move(expected)), 0.f));
    };
    t["floor"].forward_check = [=] { check_rounding(ops::floor, {-3, -2, -1, 0, 1, 2, -2, 3}); };
    t["ceil"].forward_check = [=] { check_rounding(ops::ceil, {-2, -1, -0.f, 1, 2, 3, -1, 3}); };
    t["round"].forward_check = [=] { check_rounding(ops::round, {-2, -2, -0.f, 0, 2, 2, -1, 3}); };
    t["trunc"].forward_check = [=] { check_rounding(ops::trunc, {-2, -1, -0.f, 0, 1, 2, -1, 3}); };
    t["sign"].forward_check = [] {
      Tensor x = tensor<float>({5}, {-2.f, -0.5f, 0.f, 0.5f, 3.f});
      EXPECT_TRUE(tensors_near(evaluate(unary(ops::sign), {x}), tensor<float>({5}, {-1, -1, 0, 1, 1}), 0.f));
    };

    // --- shapes --------------------------------------------------------------------------
    for (auto target : std::vector<std::vector<std::int64_t>>{{3, -1}, {12}, {2, 3, 2}, {-1}}) {
      t["reshape"].gradient_checks.push_back(
          {"to " + Shape(target).to_string(), unary([=](Output x) { return ops::reshape(x, target); }),
           {any_values({2, 6}, 4)}, [=](const std::vector<Tensor>& x) {
             std::vector<std::int64_t> dims = target;
             std::int64_t known = 1;
             for (auto d : dims) known *= d == -1 ? 1 : d;
             for (auto& d : dims) d = d == -1 ? x[0].size() / known : d;
             return x[0].reshaped(Shape(dims));
           }});
    }
    for (auto [from, like] : std::vector<std::pair<Shape, Shape>>{{{2, 6}, {3, 4}}, {{12}, {2, 2, 3}}}) {
      t["reshape_like"].gradient_checks.push_back(
          {from.to_string() + " like " + like.to_string(), binary(ops::reshape_like),
           {any_values(from, 5), any_values(like, 6)},
           [](const std::vector<Tensor>& x) { return x[0].reshaped(x[1].shape()); }});
    }
    for (auto [from, like] : std::vector<std::pair<Shape, Shape>>{
             {{4}, {3, 4}}, {{3, 1}, {3, 4}}, {{}, {2, 3}}, {{1, 4}, {2, 3, 4}}, {{3, 4}, {3, 4}}}) {
      t["broadcast_like"].gradient_checks.push_back(
          {from.to_string() + " to " + like.to_string(), binary(ops::broadcast_like),
           {any_values(from, 7), any_values(like, 8)}, [](const std::vector<Tensor>& x) {
             std::vector<std::int64_t> dims(static_cast<std::size_t>(x[1].rank() - x[0].rank()), 1);
             dims.insert(dims.end(), x[0].shape().dims().begin(), x[0].shape().dims().end());
             return ref_broadcast(x[0], Shape(dims), x[1].shape());
           }});
    }
    for (auto [from, like] : std::vector<std::pair<Shape, Shape>>{
             {{3, 4}, {4}}, {{3, 4}, {3, 1}}, {{3, 4}, {1, 4}}, {{3, 4}, {}}, {{2, 3, 4}, {3, 1}}, {{3, 4}, {3, 4}}}) {
      t["sum_to_like"].gradient_checks.push_back(
          {from.to_string() + " to " + like.to_string(), binary(ops::sum_to_like),
           {any_values(from, 9), any_values(like, 10)},
           [](const std::vector<Tensor>& x) { return ref_sum_to(x[0], x[1].shape()); }});
    }

    // --- reductions ----------------------------------------------------------------------
    t["reduce_sum"].gradient_checks = reduce_cases(ops::reduce_sum, ReduceKind::sum);
    t["reduce_mean"].gradient_checks = reduce_cases(ops::reduce_mean, ReduceKind::mean);
    t["reduce_max"].gradient_checks = reduce_cases(ops::reduce_max, ReduceKind::max);
    struct Expand {
      Shape g, like;
      std::vector<std::int64_t> axes;
      bool mean;
    };
    for (const auto& e : std::vector<Expand>{{{2, 1, 4}, {2, 3, 4}, {1}, false},
                                             {{2, 4}, {2, 3, 4}, {1}, true},
                                             {{3}, {2, 3, 4}, {0, 2}, false},
                                             {{2, 1, 1}, {2, 3, 4}, {-1, 1}, true},
                                             {{}, {3, 4}, {}, true},
                                             {{1, 1}, {3, 4}, {}, false}}) {
      auto axes = e.axes;
      bool mean = e.mean;
      t["expand_to"].gradient_checks.push_back(
          {e.g.to_string() + " to " + e.like.to_string() + (mean ? " mean" : " sum"),
           binary([=](Output g, Output like) { return ops::expand_to(g, like, axes, mean); }),
           {any_values(e.g, 11), any_values(e.like, 12)}, [=](const std::vector<Tensor>& x) {
             Shape like = x[1].shape();
             std::vector<std::int64_t> all = axes;
             if (all.empty()) {
               for (int d = 0; d < like.rank(); ++d) all.push_back(d);
             }
             std::vector<std::int64_t> keep = like.dims();
             std::int64_t count = 1;
             for (auto a : all) {
               int d = like.normalize_axis(static_cast<int>(a));
               count *= keep[d];
               keep[d] = 1;
             }
             return ref_broadcast(x[0], Shape(keep), like, mean ? 1.f / static_cast<float>(count) : 1.f);
           }});
    }

    // --- linear algebra and nn -------------------------------------------------------------
    t["matmul"].gradient_checks = matmul_cases();
    t["softmax"].gradient_checks = softmax_cases(false);
    t["log_softmax"].gradient_checks = softmax_cases(true);
    // softmax_grad against the composed y * (g - sum(g * y)), and differentiated through
    // both inputs (what a second derivative of softmax takes).
    t["softmax_grad"].gradient_checks = {
        {"(3, 4, 5) axis -1",
         [](Graph& g, const std::vector<Output>& x) {
           return g.add("softmax_grad", {x[0], ops::softmax(x[1], -1)}, Attrs{{"axis", std::int64_t{-1}}});
         },
         {uniform({3, 4, 5}, -1.f, 1.f, 31), uniform({3, 4, 5}, -2.f, 2.f, 32)},
         [](const std::vector<Tensor>& x) {
           const Tensor y = ref_softmax(x[1], -1, false);
           Tensor out(y.shape());
           for (std::int64_t lane = 0; lane < 12; ++lane) {
             float s = 0.f;
             for (int k = 0; k < 5; ++k) s += x[0].data<float>()[lane * 5 + k] * y.data<float>()[lane * 5 + k];
             for (int k = 0; k < 5; ++k) {
               out.data<float>()[lane * 5 + k] = y.data<float>()[lane * 5 + k] * (x[0].data<float>()[lane * 5 + k] - s);
             }
           }
           return out;
         }},
        {"(4, 3, 2) axis 1",
         [](Graph& g, const std::vector<Output>& x) {
           return g.add("softmax_grad", {x[0], ops::softmax(x[1], 1)}, Attrs{{"axis", std::int64_t{1}}});
         },
         {uniform({4, 3, 2}, -1.f, 1.f, 33), uniform({4, 3, 2}, -2.f, 2.f, 34)}}};
    // Keras's sparsemax jumps where the support changes: lanes chosen 0.18 or more away from
    // any change, so finite differences see the smooth piece.
    t["sparsemax"].gradient_checks = {
        {"(3, 5) last axis", unary([](Output x) { return ops::sparsemax(x, -1); }),
         {tensor<float>({3, 5}, {1.6f, -1.55f, -0.12f, -1.01f, 0.18f, 0.3f, -1.95f, -1.13f, -0.88f, 1.67f,
                                 -1.49f, -1.99f, 1.49f, -1.16f, -1.14f})},
         [](const std::vector<Tensor>& x) { return ref_keras_sparsemax(x[0]); }}};
    t["select"].gradient_checks = {
        {"(2, 3), the condition fixed",
         [](Graph&, const std::vector<Output>& x) { return ops::select(x[0], x[1], x[2]); },
         {tensor<float>({2, 3}, {1, 0, 1, 0, 0, 1}), uniform({2, 3}, -1.f, 1.f, 92), uniform({2, 3}, -1.f, 1.f, 93)},
         [](const std::vector<Tensor>& x) {
           Tensor y(x[0].shape());
           for (std::int64_t i = 0; i < y.size(); ++i)
             y.data<float>()[i] = x[0].data<float>()[i] != 0.f ? x[1].data<float>()[i] : x[2].data<float>()[i];
           return y;
         },
         labels_fixed(0)}};
    t["select"].forward_check = [] {
      // The branch not chosen may hold inf or NaN: its value does not leak. (Its gradient
      // can, through log's own 1/x at 0, as with TF's where.)
      Graph g;
      Output c = g.placeholder({Shape{3}});
      Output a = g.placeholder({Shape{3}});
      Output y = ops::select(c, ops::log(a), ops::zeros_like(a));
      Output da = gradients(ops::reduce_sum(y), {a})[0];
      Program p(g, {c, a}, {y, da});
      auto out = p.run({tensor<float>({3}, {1, 0, 0}), tensor<float>({3}, {2.f, 0.f, -1.f})});
      EXPECT_FLOAT_EQ(out[0].to_vector<float>()[0], std::log(2.f));
      EXPECT_EQ(out[0].to_vector<float>()[1], 0.f);
      EXPECT_EQ(out[0].to_vector<float>()[2], 0.f);
      EXPECT_FLOAT_EQ(out[1].to_vector<float>()[0], 0.5f);
    };
    t["sparsemax_grad"].forward_check = [] {
      // x = (1, 0.5): k = 2, tau = 0.75 (Keras's), y = (0.25, 0); with g = (1, 1):
      // dx = (1 - 1 * 1, 0 - 0.5 * 1).
      Graph g;
      Output gx = g.placeholder({Shape{1, 2}});
      Output xx = g.placeholder({Shape{1, 2}});
      Output dx = g.add("sparsemax_grad", {gx, xx}, Attrs{{"axis", std::int64_t{-1}}});
      Program p(g, {gx, xx}, {dx});
      auto out = p.run({tensor<float>({1, 2}, {1.f, 1.f}), tensor<float>({1, 2}, {1.f, 0.5f})})[0];
      EXPECT_EQ(out.to_vector<float>(), (std::vector<float>{0.f, -0.5f}));
    };
    t["pick"].gradient_checks = {
        {"(4, 5) int64 labels", binary(ops::pick), {any_values({4, 5}, 13), labels_4()},
         [](const std::vector<Tensor>& x) { return ref_pick(x[0], x[1]); }},
        {"(2, 3, 5) int32 labels", binary(ops::pick), {any_values({2, 3, 5}, 14), labels_2x3_int32()},
         [](const std::vector<Tensor>& x) { return ref_pick(x[0], x[1]); }},
        {"(4, 5) float labels", binary(ops::pick), {any_values({4, 5}, 15), float_labels_4()},
         [](const std::vector<Tensor>& x) { return ref_pick(x[0], x[1]); }, labels_fixed(1)}};
    t["pick"].forward_check = [] {
      Tensor x = any_values({2, 3}, 16);
      auto pick = binary(ops::pick);
      EXPECT_THROW(evaluate(pick, {x, tensor<std::int64_t>({2}, {0, 3})}), ValueError) << "label out of range";
      EXPECT_THROW(evaluate(pick, {x, tensor<std::int64_t>({2}, {-1, 0})}), ValueError) << "negative label";
      EXPECT_THROW(evaluate(pick, {x, tensor<float>({2}, {0.5f, 1.f})}), ValueError) << "fractional label";
      EXPECT_THROW(evaluate(pick, {x, tensor<std::int64_t>({3}, {0, 1, 2})}), ShapeError);
    };
    t["unpick"].gradient_checks = {
        {"(4,) into (4, 5) int64 labels",
         [](Graph&, V x) { return ops::unpick(x[0], x[1], x[2]); },
         {any_values({4}, 17), labels_4(), any_values({4, 5}, 18)},
         [](const std::vector<Tensor>& x) { return ref_unpick(x[0], x[1], x[2].shape()); }},
        {"(4,) into (4, 5) float labels",
         [](Graph&, V x) { return ops::unpick(x[0], x[1], x[2]); },
         {any_values({4}, 19), float_labels_4(), any_values({4, 5}, 20)},
         [](const std::vector<Tensor>& x) { return ref_unpick(x[0], x[1], x[2].shape()); }, labels_fixed(1)}};
    t["argmax"].forward_check = [] {
      Tensor x = tensor<float>({2, 3}, {1, 5, 5, 7, 2, 3});
      EXPECT_TRUE(tensors_near(evaluate(unary([](Output v) { return ops::argmax(v, -1); }), {x}),
                               tensor<std::int64_t>({2}, {1, 0}), 0.f)) << "ties pick the first index";
      EXPECT_TRUE(tensors_near(evaluate(unary([](Output v) { return ops::argmax(v, 0); }), {x}),
                               tensor<std::int64_t>({3}, {1, 0, 0}), 0.f));
      Tensor y = tensor<float>({2, 2, 2}, {0, 9, 4, 1, 3, 2, 8, 8});
      EXPECT_TRUE(tensors_near(evaluate(unary([](Output v) { return ops::argmax(v, 1); }), {y}),
                               tensor<std::int64_t>({2, 2}, {1, 0, 1, 1}), 0.f));
    };
    GradientCheckOptions training;
    training.training = true;
    t["dropout"].gradient_checks = {
        {"training, rate 0.3", unary([](Output x) { return ops::dropout(x, 0.3f, 42, 7); }),
         {any_values({4, 5}, 21)}, nullptr, training},
        {"inference", unary([](Output x) { return ops::dropout(x, 0.3f, 42, 7); }), {any_values({4, 5}, 22)},
         [](const std::vector<Tensor>& x) { return x[0]; }}};
    t["dropout"].forward_check = check_dropout_forward;

    // --- variable updates ----------------------------------------------------------------
    t["assign"].forward_check = [] { check_variable_update(false); };
    t["assign_add"].forward_check = [] { check_variable_update(true); };
    for (const char* op : {"apply_sgd", "apply_adam", "apply_rmsprop", "apply_adagrad"}) {
      t[op].forward_check = [op] { check_optimizer_update(op); };
    }
    for (auto& [name, c] : extra_op_cases()) {
      if (!t.emplace(name, c).second) ADD_FAILURE() << "op '" << name << "' has two case entries";
    }
    return t;
  }();
  return table;
}

bool graph_uses(const Graph& graph, const std::string& op) {
  for (const Node& n : graph.nodes()) {
    if (n.op == op) return true;
  }
  return false;
}

}  // namespace

TEST(OpTable, CoversEveryRegisteredOp) {
  std::vector<std::string> missing;
  for (const auto& name : OpRegistry::global().names()) {
    // The library's ops, not those a test of this suite registers for itself (program_test's
    // test_three_outputs), which are there or not by the order the suite's tests ran in.
    if (name.rfind("test_", 0) == 0) continue;
    if (!op_table().count(name)) missing.push_back(name);
  }
  std::string list;
  for (const auto& m : missing) list += " " + m;
  EXPECT_TRUE(missing.empty()) << "registered ops without a case in tests/core/op_gradients_test.cc:" << list;
}

TEST(OpTable, NamesOnlyRegisteredOps) {
  for (const auto& [name, c] : op_table()) {
    EXPECT_TRUE(OpRegistry::global().contains(name)) << "the table has a case for unknown op '" << name << "'";
    EXPECT_TRUE(!c.gradient_checks.empty() || c.forward_check) << "op '" << name << "' has an empty case";
  }
}

TEST(OpTable, DifferentiableOpsHaveGradientChecks) {
  for (const auto& name : OpRegistry::global().names()) {
    const OpDef& def = OpRegistry::global().get(name);
    auto it = op_table().find(name);
    if (!def.differentiable || def.fed || it == op_table().end()) continue;
    EXPECT_TRUE(!it->second.gradient_checks.empty() || !it->second.no_gradient_check.empty())
        << "op '" << name << "' declares a gradient but has no gradient check";
  }
  for (const auto& [name, c] : op_table()) {
    if (!c.gradient_checks.empty()) {
      EXPECT_TRUE(OpRegistry::global().get(name).differentiable) << "'" << name << "' has no gradient to check";
    }
  }
}

class EveryOp : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryOp, MatchesReferenceAndFiniteDifferences) {
  const std::string& op = GetParam();
  auto it = op_table().find(op);
  ASSERT_NE(it, op_table().end()) << "no case for op '" << op << "' in tests/core/op_gradients_test.cc";
  const OpCase& c = it->second;
  for (const GradCase& g : c.gradient_checks) {
    SCOPED_TRACE(op + " " + g.label);
    bool used = false;
    GraphBuilder traced = [&](Graph& graph, const std::vector<Output>& xs) {
      Output y = g.build(graph, xs);
      used = graph_uses(graph, op);
      return y;
    };
    if (g.reference) {
      Tensor actual = evaluate(g.build, g.inputs, {.training = g.options.training});
      EXPECT_TRUE(tensors_near(actual, g.reference(g.inputs), 1e-5f)) << "forward values";
    }
    GradientCheckResult r = check_gradients(traced, g.inputs, g.options);
    EXPECT_TRUE(used) << "the case never builds a '" << op << "' node";
    EXPECT_TRUE(r.ok) << r.report;
  }
  if (c.forward_check) {
    SCOPED_TRACE(op + " forward");
    c.forward_check();
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, EveryOp, ::testing::ValuesIn(OpRegistry::global().names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace op_gradients_test
