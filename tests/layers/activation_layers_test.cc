// The activation layer classes (ReLU, LeakyReLU, PReLU, ELU, Softmax, Identity) and the
// preprocessing layers Rescaling and Normalization: their math on hand-worked values.
// Keras's own outputs and gradients are checked in layer_classes_golden_test.cc.
#include <gtest/gtest.h>

#include <cmath>

#include "core/error.h"
#include "core/program.h"
#include "layers/preprocessing/center_crop.h"
#include "layers/activations/elu.h"
#include "layers/core/layer_scale.h"
#include "layers/preprocessing/resizing.h"
#include "layers/core/identity.h"
#include "layers/core/input_layer.h"
#include "layers/activations/leaky_relu.h"
#include "layers/preprocessing/normalization.h"
#include "layers/activations/prelu.h"
#include "layers/activations/relu.h"
#include "layers/preprocessing/rescaling.h"
#include "layers/activations/softmax.h"

using namespace strata;

namespace activation_layers_test {

namespace {

Tensor run(const Layer& layer, const Tensor& x) {
  if (!layer.built()) layer(Input(x.shape().without_batch()));
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  Program p(g, {in}, {layer.impl().call(g, {in})[0]});
  return p.run({x})[0];
}

const std::vector<float> kRow{-2.f, -0.5f, 0.f, 0.5f, 1.f, 7.f};

std::vector<float> on_row(const Layer& layer) {
  return run(layer, Tensor::from_vector<float>({1, 6}, kRow)).to_vector<float>();
}

}  // namespace

TEST(ReLU, DefaultIsMaxOfZero) {
  EXPECT_EQ(on_row(layers::ReLU()), (std::vector<float>{0, 0, 0, 0.5f, 1, 7}));
}

TEST(ReLU, CapsAtMaxValue) {
  EXPECT_EQ(on_row(layers::ReLU({.max_value = 6.0})), (std::vector<float>{0, 0, 0, 0.5f, 1, 6}));
  EXPECT_EQ(on_row(layers::ReLU({.max_value = 0.75})), (std::vector<float>{0, 0, 0, 0.5f, 0.75f, 0.75f}));
}

TEST(ReLU, NegativeSlopeAndThresholdFollowKeras) {
  // Below the threshold: negative_slope * (x - threshold); above it: x.
  auto y = on_row(layers::ReLU({.negative_slope = 0.1, .threshold = 0.5}));
  const std::vector<float> want{-0.25f, -0.1f, -0.05f, 0.f, 1.f, 7.f};
  for (std::size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-6) << i;
  auto leaky = on_row(layers::ReLU({.negative_slope = 0.2}));
  EXPECT_NEAR(leaky[0], -0.4f, 1e-6);
  EXPECT_THROW(layers::ReLU({.max_value = -1.0}), ValueError);
  EXPECT_THROW(layers::ReLU({.negative_slope = -0.1}), ValueError);
}

TEST(LeakyReLU, DefaultSlopeIsKeras3s) {
  auto y = on_row(layers::LeakyReLU());
  EXPECT_NEAR(y[0], -0.6f, 1e-6);
  EXPECT_NEAR(y[5], 7.f, 1e-6);
  EXPECT_NEAR(on_row(layers::LeakyReLU({.negative_slope = 0.01}))[1], -0.005f, 1e-7);
}

TEST(ELU, UsesAlphaBelowZero) {
  auto y = on_row(layers::ELU({.alpha = 0.5}));
  EXPECT_NEAR(y[0], 0.5f * (std::exp(-2.f) - 1.f), 1e-6);
  EXPECT_NEAR(y[4], 1.f, 1e-6);
}

TEST(PReLU, LearnsOneAlphaPerUnsharedPosition) {
  layers::PReLU prelu({.alpha_initializer = initializers::Constant(0.25), .shared_axes = std::vector<std::int64_t>{1}});
  prelu(Input({3, 4}));
  ASSERT_EQ(prelu.weights().size(), 1u);
  EXPECT_EQ(prelu.weights()[0].value().shape(), (Shape{1, 4}));
  Tensor x = Tensor::from_vector<float>({1, 3, 4}, {-4, -2, 0, 2, 4, -8, 1, 1, 1, 1, 1, -1});
  auto y = run(prelu, x).to_vector<float>();
  EXPECT_FLOAT_EQ(y[0], -1.f);
  EXPECT_FLOAT_EQ(y[5], -2.f);
  EXPECT_FLOAT_EQ(y[3], 2.f);
  EXPECT_THROW(layers::PReLU({.shared_axes = std::vector<std::int64_t>{3}})(Input({3, 4})), ValueError);
}

TEST(Softmax, NormalizesAlongTheAxis) {
  Tensor x = Tensor::from_vector<float>({1, 2, 2}, {0, 0, 1, 3});
  auto y = run(layers::Softmax({.axis = 1}), x).to_vector<float>();
  EXPECT_NEAR(y[0] + y[2], 1.f, 1e-6);
  EXPECT_NEAR(y[0], 1.f / (1.f + std::exp(1.f)), 1e-6);
  EXPECT_THROW(layers::Softmax({.axis = 3})(Input({2, 2})), ValueError);
}

TEST(Identity, PassesInputThrough) {
  EXPECT_EQ(on_row(layers::Identity()), kRow);
}

TEST(Rescaling, ScalesThenOffsets) {
  auto y = on_row(layers::Rescaling(1.0 / 127.5, {.offset = -1.0}));
  EXPECT_NEAR(y[5], 7.f / 127.5f - 1.f, 1e-6);
}

TEST(PreprocessingLayers, ShapeErrorsAtDefinition) {
  EXPECT_THROW(layers::Rescaling({1.0, 2.0})(Input({4, 4, 3})), ShapeError);  // 2 scales, 3 channels
  EXPECT_THROW(layers::Resizing(2, 2)(Input({4, 3})), ShapeError);             // not an image
  EXPECT_THROW(layers::CenterCrop(2, 2)(Input({kUnknownDim, 4, 3})), ShapeError);  // unknown rows
  EXPECT_THROW(layers::LayerScale(1e-6, 4)(Input({2, 5})), ShapeError);        // projection_dim
  EXPECT_THROW(layers::Resizing(0, 2), ValueError);
}

TEST(Normalization, UsesGivenStatisticsWithoutWeights) {
  layers::Normalization norm({.mean = std::vector<double>{1.0, 2.0}, .variance = std::vector<double>{4.0, 0.0}});
  Tensor y = run(norm, Tensor::from_vector<float>({1, 2}, {3, 2}));
  EXPECT_TRUE(norm.weights().empty());
  EXPECT_FLOAT_EQ(y.to_vector<float>()[0], 1.f);  // (3 - 1) / 2
  EXPECT_FLOAT_EQ(y.to_vector<float>()[1], 0.f);  // variance 0: divided by 1e-7, numerator 0
  EXPECT_THROW(layers::Normalization({.mean = std::vector<double>{1.0}}), ValueError);
  EXPECT_THROW(layers::Normalization({.mean = std::vector<double>{1, 2, 3}, .variance = std::vector<double>{1, 2, 3}})(Input({2})),
               ValueError);
}

TEST(Normalization, AdaptLearnsMeanAndVariancePerFeature) {
  layers::Normalization norm;
  norm.adapt(Tensor::from_vector<float>({4, 2}, {1, 10, 2, 10, 3, 30, 4, 30}));
  ASSERT_EQ(norm.weights().size(), 3u);  // mean, variance, count
  EXPECT_EQ(norm.weights()[0].value().to_vector<float>(), (std::vector<float>{2.5f, 20.f}));
  EXPECT_EQ(norm.weights()[1].value().to_vector<float>(), (std::vector<float>{1.25f, 100.f}));
  auto y = run(norm, Tensor::from_vector<float>({1, 2}, {2.5f, 30.f})).to_vector<float>();
  EXPECT_NEAR(y[0], 0.f, 1e-6);
  EXPECT_NEAR(y[1], 1.f, 1e-6);
}

TEST(Normalization, AdaptRefusesDataOfAnotherWidthAndCastsIntegers) {
  layers::Normalization norm;
  norm(Input({3}));
  EXPECT_THROW(norm.adapt(Tensor::from_vector<float>({2, 5}, std::vector<float>(10, 1.f))), ShapeError);
  norm.adapt(Tensor::from_vector<std::int32_t>({2, 3}, {1, 2, 3, 3, 4, 5}));
  EXPECT_EQ(norm.weights()[0].value().to_vector<float>(), (std::vector<float>{2.f, 3.f, 4.f}));
}

TEST(Normalization, InvertUndoesIt) {
  layers::Normalization norm({.mean = std::vector<double>{1.0}, .variance = std::vector<double>{4.0}, .invert = true});
  EXPECT_FLOAT_EQ(run(norm, Tensor::from_vector<float>({1, 1}, {1.f})).to_vector<float>()[0], 3.f);
}

}  // namespace activation_layers_test
