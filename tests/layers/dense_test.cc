#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/program.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"

using namespace strata;

namespace dense_test {

namespace {
// Runs a single layer's graph on concrete inputs.
Tensor run_layer(const Layer& layer, const Tensor& x) {
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  Output out = layer.impl().call(g, {in})[0];
  Program p(g, {in}, {out});
  return p.run({x})[0];
}
}  // namespace

TEST(Dense, ComputesXTimesKernelPlusBiasThenActivation) {
  layers::Dense dense(2, {.activation = "relu"});
  KerasTensor y = dense(Input({3}));
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, 2}));
  dense.set_weights({Tensor::from_vector<float>({3, 2}, {1, -1, 2, -2, 3, -3}), Tensor::from_vector<float>({2}, {0.5f, 0.5f})});
  Tensor out = run_layer(dense, Tensor::from_vector<float>({1, 3}, {1, 1, 1}));
  EXPECT_FLOAT_EQ(out.item(0), 6.5f);  // 1+2+3+0.5
  EXPECT_FLOAT_EQ(out.item(1), 0.0f);  // relu(-6+0.5)
}

TEST(Dense, BuildsOneFusedOpForBiasAndRelu) {
  // The batch-1 latency and the memory passes of a step depend on it (docs/performance.md):
  // x·kernel + bias with relu is one `dense` node, not matmul, add and relu.
  auto ops_built = [](const std::string& activation) {
    layers::Dense dense(4, {.activation = activation});
    dense(Input({3}));
    Graph g;
    Output in = g.placeholder({Shape{kUnknownDim, 3}});
    const int before = g.num_nodes();
    dense.impl().call(g, {in});
    std::vector<std::string> ops;
    for (int id = before; id < g.num_nodes(); ++id) {
      if (g.node(id).op != "variable") ops.push_back(g.node(id).op);
    }
    return ops;
  };
  EXPECT_EQ(ops_built("relu"), std::vector<std::string>{"dense"});
  EXPECT_EQ(ops_built(""), std::vector<std::string>{"dense"});
  // Other activations follow as their own op.
  EXPECT_EQ(ops_built("tanh"), (std::vector<std::string>{"dense", "tanh"}));
}

TEST(Dense, ActsOnTheLastAxisOfNdInput) {
  layers::Dense dense(4);
  KerasTensor y = dense(Input({5, 3}));
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, 5, 4}));
  EXPECT_EQ(dense.weights()[0].shape(), (Shape{3, 4}));
  Tensor x(Shape{2, 5, 3});
  for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = static_cast<float>(i % 7) - 3.f;
  Tensor out = run_layer(dense, x);
  EXPECT_EQ(out.shape(), (Shape{2, 5, 4}));
  // Row (1, 2) equals the 2-D product of that row.
  const float* k = dense.weights()[0].value().data<float>();
  for (int u = 0; u < 4; ++u) {
    float expected = 0;
    for (int f = 0; f < 3; ++f) expected += x.data<float>()[(1 * 5 + 2) * 3 + f] * k[f * 4 + u];
    EXPECT_NEAR(out.data<float>()[(1 * 5 + 2) * 4 + u], expected, 1e-5);
  }
}

TEST(Dense, WeightsAreNamedLikeKeras) {
  layers::Dense dense(3, {.name = "head"});
  dense(Input({2}));
  ASSERT_EQ(dense.weights().size(), 2u);
  EXPECT_EQ(dense.weights()[0].path(), "head/kernel");
  EXPECT_EQ(dense.weights()[1].path(), "head/bias");
  EXPECT_EQ(dense.count_params(), 9);
}

TEST(Dense, NoBiasWhenUseBiasIsFalse) {
  layers::Dense dense(3, {.use_bias = false});
  dense(Input({2}));
  EXPECT_EQ(dense.weights().size(), 1u);
}

TEST(Dense, ShapeMismatchThrowsAtDefinitionNamingLayerAndShapes) {
  layers::Dense dense(4, {.name = "dense_2"});
  dense(Input({64}));
  try {
    dense(Input({10, 32}));
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Dense 'dense_2'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(None, 10, 32)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("64"), std::string::npos) << msg;
  }
}

TEST(Dense, RejectsBadOptions) {
  EXPECT_THROW(layers::Dense(0), ValueError);
  EXPECT_THROW(layers::Dense(3, {.activation = "relu7"}), ValueError);
  EXPECT_THROW(layers::Dense(3, {.kernel_initializer = "glorot_unicorn"}), ValueError);
}

}  // namespace dense_test
