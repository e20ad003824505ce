// Kernels beyond the small cases of the op table: tensors large enough to take the
// multi-threaded paths, and inputs at the edges of float range.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "core/autodiff.h"
#include "core/cpu/parallel.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/pool_ops.h"
#include "core_test_util.h"
#include "reference_ops.h"

using namespace strata;
using namespace strata::testing;

namespace kernels_test {

namespace {
Tensor uniform_pm1(Shape s, std::uint64_t seed) { return uniform(std::move(s), -1.f, 1.f, seed); }
}  // namespace

// Tensors above the parallel threshold take the kernels' multi-threaded paths: the
// results must match the references and not depend on the thread count.
TEST(LargeTensors, KernelsMatchReferencesAcrossThreadChunks) {
  struct Case {
    std::string label;
    GraphBuilder build;
    std::vector<Tensor> inputs;
    Reference reference;
  };
  std::vector<Case> cases = {
      {"add (64, 1, 700) + (3, 700)", binary([](Output a, Output b) { return ops::add(a, b); }),
       {uniform_pm1({64, 1, 700}, 1), uniform_pm1({3, 700}, 2)},
       [](const std::vector<Tensor>& x) { return ref_binary(x[0], x[1], [](float a, float b) { return a + b; }); }},
      {"mul (200, 200) * (200, 200)", binary([](Output a, Output b) { return ops::mul(a, b); }),
       {uniform_pm1({200, 200}, 3), uniform_pm1({200, 200}, 4)},
       [](const std::vector<Tensor>& x) { return ref_binary(x[0], x[1], [](float a, float b) { return a * b; }); }},
      {"div (200, 200) / ()", binary([](Output a, Output b) { return ops::div(a, b); }),
       {uniform_pm1({200, 200}, 5), tensor<float>({}, {4.f})},
       [](const std::vector<Tensor>& x) { return ref_binary(x[0], x[1], [](float a, float b) { return a / b; }); }},
      {"tanh (200, 200)", unary([](Output x) { return ops::tanh(x); }), {uniform_pm1({200, 200}, 6)},
       [](const std::vector<Tensor>& x) { return ref_unary(x[0], [](float v) { return std::tanh(v); }); }},
      {"softmax (300, 120) axis -1", unary([](Output x) { return ops::softmax(x, -1); }),
       {uniform({300, 120}, -3, 3, 7)}, [](const std::vector<Tensor>& x) { return ref_softmax(x[0], -1, false); }},
      {"log_softmax (300, 120) axis 0", unary([](Output x) { return ops::log_softmax(x, 0); }),
       {uniform({300, 120}, -3, 3, 8)}, [](const std::vector<Tensor>& x) { return ref_softmax(x[0], 0, true); }},
      {"sum_to_like (64, 700) to (700,)", binary(ops::sum_to_like), {uniform_pm1({64, 700}, 9), uniform_pm1({700}, 10)},
       [](const std::vector<Tensor>& x) { return ref_sum_to(x[0], x[1].shape()); }},
      // Size-1 dims inside the walk: the kernels collapse them (ops::collapse_dims), a mask
      // of [n, h, w, 1] against [n, 1, 1, 1] running rows of h * w.
      {"sub (8, 30, 40, 1) - (8, 1, 1, 1)", binary([](Output a, Output b) { return ops::sub(a, b); }),
       {uniform_pm1({8, 30, 40, 1}, 20), uniform_pm1({8, 1, 1, 1}, 21)},
       [](const std::vector<Tensor>& x) { return ref_binary(x[0], x[1], [](float a, float b) { return a - b; }); }},
      {"mul (4, 1, 50, 1, 3) * (6, 50, 2, 1): broadcasts interleaved",
       binary([](Output a, Output b) { return ops::mul(a, b); }),
       {uniform_pm1({4, 1, 50, 1, 3}, 22), uniform_pm1({6, 50, 2, 1}, 23)},
       [](const std::vector<Tensor>& x) { return ref_binary(x[0], x[1], [](float a, float b) { return a * b; }); }},
      {"maximum (1, 40, 1, 60) and (7, 1, 1, 1)", binary([](Output a, Output b) { return ops::maximum(a, b); }),
       {uniform_pm1({1, 40, 1, 60}, 24), uniform_pm1({7, 1, 1, 1}, 25)},
       [](const std::vector<Tensor>& x) { return ref_binary(x[0], x[1], [](float a, float b) { return std::max(a, b); }); }},
      // Fewer collapsed rows than threads: each row is cut into segments (cpu::row_segments).
      {"sub (2, 201, 199, 1) - (2, 1, 1, 1): two rows in segments", binary([](Output a, Output b) { return ops::sub(a, b); }),
       {uniform_pm1({2, 201, 199, 1}, 30), uniform_pm1({2, 1, 1, 1}, 31)},
       [](const std::vector<Tensor>& x) { return ref_binary(x[0], x[1], [](float a, float b) { return a - b; }); }},
      {"broadcast_like (2, 1, 1, 1) to (2, 201, 199, 1): two rows in segments", binary(ops::broadcast_like),
       {uniform_pm1({2, 1, 1, 1}, 32), uniform_pm1({2, 201, 199, 1}, 33)},
       [](const std::vector<Tensor>& x) { return ref_broadcast(x[0], x[0].shape(), x[1].shape()); }},
      {"broadcast_like (8, 1, 1, 1) to (8, 30, 40, 1)", binary(ops::broadcast_like),
       {uniform_pm1({8, 1, 1, 1}, 26), uniform_pm1({8, 30, 40, 1}, 27)},
       [](const std::vector<Tensor>& x) { return ref_broadcast(x[0], x[0].shape(), x[1].shape()); }},
      {"broadcast_like (300, 1) to (4, 300, 5)", binary(ops::broadcast_like),
       {uniform_pm1({300, 1}, 28), uniform_pm1({4, 300, 5}, 29)},
       [](const std::vector<Tensor>& x) { return ref_broadcast(x[0], Shape{1, 300, 1}, x[1].shape()); }},
      {"broadcast_like (700,) to (64, 700)", binary(ops::broadcast_like),
       {uniform_pm1({700}, 11), uniform_pm1({64, 700}, 12)},
       [](const std::vector<Tensor>& x) { return ref_broadcast(x[0], Shape{1, 700}, x[1].shape()); }},
      {"matmul (130, 70) x (90, 70)^T",
       binary([](Output a, Output b) { return ops::matmul(a, b, false, true); }),
       {uniform_pm1({130, 70}, 13), uniform_pm1({90, 70}, 14)},
       [](const std::vector<Tensor>& x) { return ref_matmul(x[0], x[1], false, true); }},
      {"dropout (200, 200) training", unary([](Output x) { return ops::dropout(x, 0.25f, 9, 9); }),
       {uniform_pm1({200, 200}, 15)}, nullptr},
      // The last axis kept: rows copied, each thread's chunk starting mid-tensor.
      {"transpose (5, 300, 7, 16) perm (2, 1, 0, 3)", unary([](Output x) { return ops::transpose(x, {2, 1, 0, 3}); }),
       {uniform_pm1({5, 300, 7, 16}, 19)},
       [](const std::vector<Tensor>& x) { return ref_transpose(x[0], {2, 1, 0, 3}); }},
  };
  for (auto [name, kind] : std::vector<std::pair<std::string, ReduceKind>>{{"sum", ReduceKind::sum}, {"mean", ReduceKind::mean},
                                                                      {"max", ReduceKind::max}}) {
    for (auto axes : std::vector<std::vector<std::int64_t>>{{}, {0}, {1}, {2}, {0, 2}, {1, 2}}) {
      ReduceKind k = kind;
      cases.push_back({"reduce_" + name + " (8, 64, 96) axes " + Shape(axes).to_string(),
                       unary([=](Output x) {
                         return k == ReduceKind::sum ? ops::reduce_sum(x, axes)
                                               : k == ReduceKind::mean ? ops::reduce_mean(x, axes) : ops::reduce_max(x, axes);
                       }),
                       {uniform_pm1({8, 64, 96}, 16)},
                       [=](const std::vector<Tensor>& x) { return ref_reduce(x[0], axes, false, k); }});
    }
  }
  // Many rows into few columns: the blocked sums (BatchNormalization's statistics), one
  // outer row and several.
  // (A pair, not a structured binding: clang 14 cannot capture a binding in the lambdas.)
  for (const auto& shape_axes : std::vector<std::pair<Shape, std::vector<std::int64_t>>>{
           {Shape{16, 32, 32, 16}, {0, 1, 2}}, {Shape{3, 700, 5}, {1}}, {Shape{2, 513, 3}, {0, 1}}}) {
    const Shape shape = shape_axes.first;
    const std::vector<std::int64_t> axes = shape_axes.second;
    for (ReduceKind k : {ReduceKind::sum, ReduceKind::mean}) {
      cases.push_back({std::string(k == ReduceKind::sum ? "reduce_sum " : "reduce_mean ") + shape.to_string() +
                           " axes " + Shape(axes).to_string(),
                       unary([=](Output x) { return k == ReduceKind::sum ? ops::reduce_sum(x, axes) : ops::reduce_mean(x, axes); }),
                       {uniform_pm1(shape, 20)},
                       [=](const std::vector<Tensor>& x) { return ref_reduce(x[0], axes, false, k); }});
    }
  }
  cases.push_back({"expand_to (16,) to (4, 30, 30, 16)",
                   binary([](Output g, Output like) { return ops::expand_to(g, like, {0, 1, 2}, false); }),
                   {uniform_pm1({16}, 21), uniform_pm1({4, 30, 30, 16}, 22)},
                   [](const std::vector<Tensor>& x) { return ref_broadcast(x[0], Shape{1, 1, 1, 16}, x[1].shape()); }});
  cases.push_back({"expand_to (8, 96) to (8, 64, 96) mean",
                   binary([](Output g, Output like) { return ops::expand_to(g, like, {1}, true); }),
                   {uniform_pm1({8, 96}, 17), uniform_pm1({8, 64, 96}, 18)},
                   [](const std::vector<Tensor>& x) { return ref_broadcast(x[0], Shape{8, 1, 96}, x[1].shape(), 1.f / 64); }});

  const int saved = cpu::num_threads();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.label);
    RunOptions training{.training = true, .step = 3};
    cpu::set_num_threads(1);
    Tensor serial = evaluate(c.build, c.inputs, training);
    cpu::set_num_threads(3);
    Tensor parallel = evaluate(c.build, c.inputs, training);
    EXPECT_TRUE(tensors_near(parallel, serial, 1e-6f)) << "one thread versus three";
    if (c.label.rfind("reduce_sum", 0) == 0 || c.label.rfind("reduce_mean", 0) == 0) {
      // A reduction's sums are split by the shape alone: the same bits on any thread count.
      EXPECT_TRUE(std::equal(serial.data<float>(), serial.data<float>() + serial.size(), parallel.data<float>()))
          << "one thread versus three, bit for bit";
    }
    if (c.reference) {
      EXPECT_TRUE(tensors_near(parallel, c.reference(c.inputs), 1e-4f));
    }
  }
  cpu::set_num_threads(saved);
}

TEST(NumericalStability, SigmoidAndSoftplusSaturateWithoutOverflow) {
  Tensor x = tensor<float>({6}, {-1e4f, -100.f, -20.f, 20.f, 100.f, 1e4f});
  Tensor s = evaluate(unary([](Output x) { return ops::sigmoid(x); }), {x});
  Tensor p = evaluate(unary(ops::softplus), {x});
  for (std::int64_t i = 0; i < x.size(); ++i) {
    EXPECT_TRUE(std::isfinite(s.item(i)) && std::isfinite(p.item(i))) << "x = " << x.item(i);
  }
  EXPECT_EQ(s.item(0), 0.f);
  EXPECT_EQ(s.item(5), 1.f);
  EXPECT_NEAR(s.item(2), 2.0611536e-9f, 1e-15f);
  EXPECT_GE(p.item(0), 0.f);
  EXPECT_NEAR(p.item(2), 2.0611537e-9f, 1e-15f);
  EXPECT_EQ(p.item(4), 100.f);
  EXPECT_EQ(p.item(5), 1e4f);
  Tensor t = evaluate(unary([](Output x) { return ops::tanh(x); }), {x});
  EXPECT_EQ(t.item(0), -1.f);
  EXPECT_EQ(t.item(5), 1.f);
}

TEST(NumericalStability, SoftmaxOfLargeLogits) {
  Tensor x = tensor<float>({2, 3}, {1000.f, 1000.f, 0.f, -1000.f, 0.f, -1e30f});
  Tensor s = evaluate(unary([](Output v) { return ops::softmax(v); }), {x});
  EXPECT_TRUE(tensors_near(s, tensor<float>({2, 3}, {0.5f, 0.5f, 0.f, 0.f, 1.f, 0.f})));
  Tensor l = evaluate(unary([](Output v) { return ops::log_softmax(v); }), {x});
  EXPECT_NEAR(l.item(0), -std::log(2.f), 1e-5f);
  EXPECT_NEAR(l.item(2), -1000.f - std::log(2.f), 1e-2f);
  EXPECT_NEAR(l.item(3), -1000.f, 1e-2f);
  EXPECT_NEAR(l.item(4), 0.f, 1e-6f);
  for (std::int64_t i = 0; i < 5; ++i) EXPECT_TRUE(std::isfinite(l.item(i))) << i;
}

TEST(NumericalStability, CrossEntropyGradientOfLargeLogitsIsFinite) {
  Tensor logits = tensor<float>({2, 3}, {500.f, -500.f, 0.f, 90.f, 90.f, -90.f});
  Tensor labels = tensor<std::int64_t>({2}, {1, 0});
  Tensor g = evaluate([](Graph&, const std::vector<Output>& x) {
    Output loss = ops::neg(ops::reduce_sum(ops::pick(ops::log_softmax(x[0]), x[1])));
    return gradients(loss, {x[0]})[0];
  }, {logits, labels});
  // softmax - one_hot(labels)
  EXPECT_TRUE(tensors_near(g, tensor<float>({2, 3}, {1.f, -1.f, 0.f, -0.5f, 0.5f, 0.f})));
}

// A transpose that keeps the last axis of a tensor with an empty axis gives the permuted
// empty shape, whichever axis is empty.
TEST(EmptyTensors, TransposeKeepingTheLastAxis) {
  for (const Shape& shape : {Shape{2, 0, 3}, Shape{2, 3, 0}, Shape{0, 2, 3}}) {
    SCOPED_TRACE(shape.to_string());
    const Tensor y = evaluate(unary([](Output x) { return ops::transpose(x, {1, 0, 2}); }), {Tensor(shape)});
    EXPECT_EQ(y.shape(), (Shape{shape.dims()[1], shape.dims()[0], shape.dims()[2]}));
  }
}

// Softmax and log_softmax along an empty axis give an empty result and read nothing.
TEST(EmptyTensors, SoftmaxAlongAnEmptyAxis) {
  for (const Shape& shape : {Shape{3, 0}, Shape{0, 4}}) {
    SCOPED_TRACE(shape.to_string());
    EXPECT_EQ(evaluate(unary([](Output x) { return ops::softmax(x, -1); }), {Tensor(shape)}).shape(), shape);
    EXPECT_EQ(evaluate(unary([](Output x) { return ops::log_softmax(x, 0); }), {Tensor(shape)}).shape(), shape);
  }
}

// A pad as large as the pool would make a window wholly in padding, which the kernels do
// not handle (the CPU's max-pool gradient would read and write outside the image): every
// pooling op refuses it when the graph is built, naming the pad.
TEST(PoolingPads, APadAsLargeAsThePoolIsAnErrorAtGraphBuild) {
  Graph g;
  Output x = g.placeholder({{1, 4, 4, 2}}, "x");
  const ops::Pool2DParams too_wide{{2, 2}, {1, 1}, {0, 0, 0, 2}};
  for (int op = 0; op < 3; ++op) {
    try {
      if (op == 0) ops::max_pool2d(x, too_wide);
      if (op == 1) ops::avg_pool2d(x, too_wide);
      if (op == 2) ops::max_pool2d_grad(x, x, too_wide);
      ADD_FAILURE() << "op " << op << " took pads that make a window wholly in padding";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("pad 2"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(ops::max_pool2d(x, {{2, 2}, {1, 1}, {-1, 0, 0, 0}}), ValueError);
  EXPECT_NO_THROW(ops::max_pool2d(x, {{2, 2}, {1, 1}, {1, 1, 1, 1}}));
}

}  // namespace kernels_test
