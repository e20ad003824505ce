#include <gtest/gtest.h>

#include "core/error.h"
#include "core/program.h"
#include "layers/activations/activation.h"
#include "layers/core/dense.h"
#include "layers/regularization/dropout.h"
#include "layers/reshaping/flatten.h"
#include "layers/core/input_layer.h"
#include "layers/reshaping/reshape.h"

using namespace strata;

namespace reshaping_layers_test {

namespace {
Tensor run(const Layer& layer, const Tensor& x, bool training) {
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  Program p(g, {in}, {layer.impl().call(g, {in})[0]});
  return p.run({x}, {.training = training})[0];
}
}  // namespace

TEST(Flatten, FlattensNonBatchDimsRowMajor) {
  layers::Flatten flatten;
  EXPECT_EQ(flatten(Input({28, 28})).shape(), (Shape{kUnknownDim, 784}));
  Tensor x = Tensor::from_vector<float>({1, 2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(run(flatten, x, false).to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Reshape, ReshapesWithInferredDimension) {
  EXPECT_EQ(layers::Reshape({4, -1})(Input({2, 6})).shape(), (Shape{kUnknownDim, 4, 3}));
  EXPECT_THROW(layers::Reshape({5})(Input({2, 6})), ShapeError);
}

TEST(Dropout, IsIdentityInInferenceAndScalesKeptUnitsInTraining) {
  layers::Dropout dropout(0.5, {.seed = 1});
  dropout(Input({1000}));
  Tensor x = Tensor::filled({2, 1000}, 1.f);
  Tensor inference = run(dropout, x, false);
  for (float v : inference.values<float>()) EXPECT_EQ(v, 1.f);
  Tensor training = run(dropout, x, true);
  int kept = 0;
  for (float v : training.values<float>()) {
    EXPECT_TRUE(v == 0.f || v == 2.f);
    kept += v != 0.f;
  }
  EXPECT_NEAR(kept / 2000.0, 0.5, 0.05);
  EXPECT_THROW(layers::Dropout(1.0), ValueError);
}

TEST(Dropout, NoiseShapeSharesOneDrawAlongItsOnes) {
  // (None, 1, 4): each sample drops whole channels, the same at all 3 positions.
  layers::Dropout dropout(0.5, {.noise_shape = Shape{kUnknownDim, 1, 4}, .seed = 3});
  dropout(Input({3, 4}));
  Tensor y = run(dropout, Tensor::filled({8, 3, 4}, 1.f), true);
  const auto v = y.to_vector<float>();
  int dropped = 0;
  for (int b = 0; b < 8; ++b) {
    for (int c = 0; c < 4; ++c) {
      const float first = v[(b * 3 + 0) * 4 + c];
      EXPECT_TRUE(first == 0.f || first == 2.f);
      for (int t = 1; t < 3; ++t) EXPECT_EQ(v[(b * 3 + t) * 4 + c], first) << b << " " << c;
      dropped += first == 0.f;
    }
  }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 32);
  EXPECT_EQ(run(dropout, Tensor::filled({8, 3, 4}, 1.f), false).to_vector<float>(), std::vector<float>(96, 1.f));
  EXPECT_THROW(layers::Dropout(0.5, {.noise_shape = Shape{kUnknownDim, 2, 4}})(Input({3, 4})), ShapeError);
}

TEST(Activation, AppliesNamedFunction) {
  layers::Activation act("relu");
  Tensor y = run(act, Tensor::from_vector<float>({1, 2}, {-1, 2}), false);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{0, 2}));
}

TEST(LayerNames, DefaultNamesAreUniqueAndDeterministic) {
  clear_session();
  layers::Dense a(1), b(1), c(1);
  layers::Flatten f;
  EXPECT_EQ(a.name(), "dense");
  EXPECT_EQ(b.name(), "dense_1");
  EXPECT_EQ(c.name(), "dense_2");
  EXPECT_EQ(f.name(), "flatten");
  clear_session();
  EXPECT_EQ(layers::Dense(1).name(), "dense");
}

}  // namespace reshaping_layers_test
