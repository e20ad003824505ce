// Graph: append-only nodes with unique, readable names, shapes inferred as nodes are
// added, and definition-time errors for bad inputs.
#include <gtest/gtest.h>

#include <set>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/pool_ops.h"
#include "core/program.h"
#include "core_test_util.h"

using namespace strata;
using namespace strata::testing;

namespace graph_test {

TEST(Graph, NamesNodesUniquelyAndDeterministically) {
  Graph g;
  Output a = g.placeholder({Shape{3}}, "x");
  Output b = g.placeholder({Shape{3}}, "x");
  Output c = g.placeholder({Shape{3}}, "x");
  EXPECT_EQ(a.name(), "x");
  EXPECT_EQ(b.name(), "x_1");
  EXPECT_EQ(c.name(), "x_2");
  EXPECT_EQ(ops::exp(a).name(), "exp");
  EXPECT_EQ(ops::exp(a).name(), "exp_1");
}

TEST(Graph, NeverReusesANameEvenWhenAHintLooksGenerated) {
  Graph g;
  g.placeholder({Shape{3}}, "x_1");
  g.placeholder({Shape{3}}, "x");
  g.placeholder({Shape{3}}, "x");
  g.placeholder({Shape{3}}, "x_1");
  std::set<std::string> names;
  for (const Node& n : g.nodes()) {
    EXPECT_TRUE(names.insert(n.name).second) << "two nodes are named '" << n.name << "'";
  }
}

TEST(Graph, ScopesPrefixNames) {
  Graph g;
  Output x = g.placeholder({Shape{3}}, "x");
  {
    NameScope outer(g, "dense_1");
    EXPECT_EQ(ops::tanh(x).name(), "dense_1/tanh");
    NameScope inner(g, "inner");
    EXPECT_EQ(ops::tanh(x).name(), "dense_1/inner/tanh");
  }
  EXPECT_EQ(ops::tanh(x).name(), "tanh");
}

TEST(Graph, KeepsNodesInTopologicalOrder) {
  Graph g;
  Output x = g.placeholder({Shape{2}}, "x");
  Output y = ops::add(ops::exp(x), ops::tanh(x));
  for (const Node& n : g.nodes()) {
    for (const Output& in : n.inputs) EXPECT_LT(in.node, n.id) << n.name;
  }
  EXPECT_EQ(y.node, g.num_nodes() - 1);
}

TEST(Graph, InfersShapesAndDtypesWhenANodeIsAdded) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 5}}, "x");
  Output labels = g.placeholder({Shape{kUnknownDim}, DType::int64}, "labels");
  EXPECT_EQ(ops::reduce_sum(x, {1}, true).shape(), (Shape{kUnknownDim, 1}));
  EXPECT_EQ(ops::pick(x, labels).shape(), (Shape{kUnknownDim}));
  EXPECT_EQ(ops::argmax(x).dtype(), DType::int64);
  EXPECT_EQ(ops::cast(labels, DType::float32).dtype(), DType::float32);
  EXPECT_EQ(ops::reshape(x, {-1, 5, 1}).shape(), (Shape{-1, 5, 1}));
}

TEST(Graph, OneNodePerVariable) {
  Variable v("dense/kernel", Tensor({2, 2}));
  Graph g;
  Output a = g.variable(v);
  Output b = g.variable(Variable(v));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.name(), "dense/kernel");
  EXPECT_NE(g.variable(Variable("dense/kernel", Tensor({2, 2}))), a) << "another variable, another node";
}

TEST(Graph, RejectsBadNodesAtDefinitionTime) {
  Graph g, other;
  Output x = g.placeholder({Shape{3}}, "x");
  Output y = other.placeholder({Shape{3}}, "y");
  EXPECT_THROW(ops::add(x, y), ValueError) << "tensors from two graphs";
  EXPECT_THROW(ops::exp(Output{}), ValueError);
  EXPECT_THROW(g.add("no_such_op", {x}), NotImplementedError);
  EXPECT_THROW(g.add("exp", {x, x}), ValueError) << "wrong number of inputs";
  const int nodes = g.num_nodes();
  EXPECT_THROW(ops::matmul(x, x), ShapeError);
  EXPECT_EQ(g.num_nodes(), nodes) << "a failed node is not added";
}

TEST(Graph, RejectsWrongDtypesAtDefinitionTime) {
  Graph g;
  Output f = g.placeholder({Shape{4, 3}}, "f");
  Output i = g.placeholder({Shape{4, 3}, DType::int64}, "i");
  Output labels = g.placeholder({Shape{4}, DType::int64}, "labels");
  EXPECT_THROW(ops::add(f, i), ValueError);
  EXPECT_THROW(ops::exp(i), ValueError);
  EXPECT_THROW(ops::softmax(i), ValueError);
  EXPECT_THROW(ops::reduce_sum(i), ValueError);
  EXPECT_THROW(ops::matmul(i, f, true), ValueError);
  EXPECT_THROW(ops::pick(i, labels), ValueError);
  EXPECT_THROW(ops::argmax(i), ValueError);
  EXPECT_THROW(ops::dropout(i, 0.5f, 1, 1), ValueError);
  EXPECT_THROW(ops::broadcast_like(ops::cast(i, DType::int32), f), ValueError);
  EXPECT_THROW(ops::sum_to_like(i, f), ValueError);
  EXPECT_THROW(ops::unpick(ops::cast(labels, DType::int32), labels, f), ValueError);
  EXPECT_THROW(ops::expand_to(ops::cast(labels, DType::int32), f, {1}, false), ValueError);
  Variable v("v", Tensor({4, 3}));
  EXPECT_THROW(ops::assign_add(g.variable(v), i), ValueError) << "int64 update of a float32 variable";
}

TEST(Graph, UnpickRejectsAGradientThatDoesNotMatchTheLabels) {
  Graph g;
  Output like = g.placeholder({Shape{4, 5}}, "like");
  Output labels = g.placeholder({Shape{4}, DType::int64}, "labels");
  Output short_grad = g.placeholder({Shape{3}}, "g");
  EXPECT_THROW(ops::unpick(short_grad, labels, like), ShapeError);
}

TEST(Builders, ScalarOperandsAndClip) {
  GraphBuilder build = [](Graph&, const std::vector<Output>& x) {
    Output v = x[0];
    // clip(v, -1, 1) + (1 - v) + 2 / v + zeros_like(v) * ones_like(v)
    return ops::add(ops::add(ops::add(ops::clip(v, -1.f, 1.f), ops::sub(1.f, v)), ops::div(2.f, v)),
                    ops::mul(ops::zeros_like(v), ops::ones_like(v)));
  };
  Tensor x = tensor<float>({4}, {-4.f, -0.5f, 0.5f, 2.f});
  Tensor expected = tensor<float>({4}, {-1 + 5 - 0.5f, -0.5f + 1.5f - 4, 0.5f + 0.5f + 4, 1 - 1 + 1});
  EXPECT_TRUE(tensors_near(evaluate(build, {x}), expected));
}

TEST(Graph, CollectsLayerUpdatesByMode) {
  Graph g;
  Variable moving("moving", Tensor(Shape{2}));
  Variable state("state", Tensor(Shape{2}));
  Output x = g.placeholder({Shape{2}}, "x");
  Output training_update = ops::assign(g.variable(moving), x);
  Output always_update = ops::assign_add(g.variable(state), x);
  g.add_update(training_update, Graph::UpdateMode::training_only);
  g.add_update(always_update, Graph::UpdateMode::always);
  EXPECT_EQ(g.updates(true).size(), 2u);
  ASSERT_EQ(g.updates(false).size(), 1u);
  EXPECT_EQ(g.updates(false)[0].node, always_update.node);
  EXPECT_THROW(g.add_update(x, Graph::UpdateMode::always), ValueError);  // not stateful
}

TEST(Graph, KnowsValuesRoundedAlreadyAndAddsNoRoundingForThem) {
  // A rounding op's output, and what a reshape, relu or a maximum of two such values make
  // of it, hold bfloat16's values: rounding them adds nothing (no pass, the same values).
  // A product of them, or a maximum with an unrounded constant, does not.
  Graph g;
  const Output x = g.placeholder({Shape{2, 3}}, "x");
  const Output r = ops::round_to_bfloat16(x);
  const Output shaped = ops::relu(ops::reshape(r, {3, 2}));
  EXPECT_FALSE(g.holds_values_of(x, ComputePrecision::bfloat16));
  EXPECT_TRUE(g.holds_values_of(r, ComputePrecision::bfloat16));
  EXPECT_TRUE(g.holds_values_of(shaped, ComputePrecision::bfloat16));
  EXPECT_TRUE(g.holds_values_of(ops::maximum(r, r), ComputePrecision::bfloat16));
  EXPECT_FALSE(g.holds_values_of(ops::maximum(r, 0.5f), ComputePrecision::bfloat16));
  EXPECT_FALSE(g.holds_values_of(ops::mul(r, r), ComputePrecision::bfloat16));
  EXPECT_FALSE(g.holds_values_of(r, ComputePrecision::float16)) << "a bfloat16 value is not a float16 one";
  const int nodes = g.num_nodes();
  EXPECT_EQ(g.rounded(shaped, ComputePrecision::bfloat16), shaped);
  EXPECT_EQ(g.num_nodes(), nodes) << "a rounding op was added for rounded values";
  const Output product = ops::mul(r, r);
  EXPECT_NE(g.rounded(product, ComputePrecision::bfloat16), product);
}

TEST(Graph, KnowsPoolGradientsOfRoundedValuesAndConvolutionsThatRoundTheirOutput) {
  // Max pooling's gradient routes each element of dy to one input when its windows do not
  // overlap (dy's values, or 0); overlapping windows add them. The relu-fused one's first
  // output routes too, its second (the bias gradient) is a sum. A convolution whose
  // output_rounding names the precision holds its values (only that precision's).
  Graph g;
  const Output x = g.placeholder({Shape{1, 4, 4, 2}}, "x");
  const Output dy = ops::round_to_bfloat16(g.placeholder({Shape{1, 2, 2, 2}}, "dy"));
  const Output unrounded_dy = g.placeholder({Shape{1, 2, 2, 2}}, "unrounded_dy");
  EXPECT_TRUE(g.holds_values_of(ops::max_pool2d_grad(x, dy, {}), ComputePrecision::bfloat16));
  EXPECT_FALSE(g.holds_values_of(ops::max_pool2d_grad(x, unrounded_dy, {}), ComputePrecision::bfloat16));
  const ops::Pool2DParams overlapping{{3, 3}, {1, 1}, {0, 0, 0, 0}};
  EXPECT_FALSE(g.holds_values_of(ops::max_pool2d_grad(x, dy, overlapping), ComputePrecision::bfloat16));
  const auto [dz, db] = ops::max_pool2d_relu_grad(x, dy, {});
  EXPECT_TRUE(g.holds_values_of(dz, ComputePrecision::bfloat16));
  EXPECT_FALSE(g.holds_values_of(db, ComputePrecision::bfloat16));
  const Output k = g.placeholder({Shape{3, 3, 2, 4}}, "k");
  const Output rounding = ops::conv2d_bias_activation(x, k, Output{}, "relu", {}, ComputePrecision::bfloat16);
  const Output plain = ops::conv2d_bias_activation(x, k, Output{}, "relu", {});
  EXPECT_TRUE(g.holds_values_of(rounding, ComputePrecision::bfloat16));
  EXPECT_FALSE(g.holds_values_of(rounding, ComputePrecision::float16));
  EXPECT_FALSE(g.holds_values_of(plain, ComputePrecision::bfloat16));
  EXPECT_EQ(output_rounding_of(g.node(rounding.node)), ComputePrecision::bfloat16);
  EXPECT_EQ(output_rounding_of(g.node(plain.node)), ComputePrecision::float32);
}

}  // namespace graph_test
