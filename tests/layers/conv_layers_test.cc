// Convolution, pooling, normalization and merge layers: shapes, weights, Keras's
// defaults and names, training vs inference, and bad input at definition time.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "core/error.h"
#include "core/program.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/convolutional/depthwise_conv2d.h"
#include "layers/convolutional/separable_conv2d.h"
#include "layers/core/input_layer.h"
#include "layers/merging/concatenate.h"
#include "layers/merging/merge.h"
#include "layers/normalization/batch_normalization.h"
#include "layers/pooling/pooling.h"
#include "layers/regularization/spatial_dropout.h"
#include "layers/reshaping/spatial_padding.h"
#include "layers/reshaping/upsampling.h"
#include "models/model.h"

using namespace strata;
using namespace strata::layers;

namespace conv_layers_test {

namespace {

// The ShapeError message thrown by `f`, or "" when nothing is thrown.
template <typename F>
std::string shape_error(F f) {
  try {
    f();
  } catch (const ShapeError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Conv2D, OutputShapesAndKerasKernelLayout) {
  Conv2D conv(8, {3, 2}, {.strides = 2, .padding = "same", .name = "c"});
  KerasTensor y = conv(Input({7, 6, 4}));
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, 4, 3, 8}));
  ASSERT_EQ(conv.weights().size(), 2u);
  EXPECT_EQ(conv.weights()[0].path(), "c/kernel");
  EXPECT_EQ(conv.weights()[0].shape(), (Shape{3, 2, 4, 8}));
  EXPECT_EQ(conv.weights()[1].shape(), (Shape{8}));
  Conv2D grouped(6, 3, {.groups = 2});
  grouped(Input({5, 5, 4}));
  EXPECT_EQ(grouped.weights()[0].shape(), (Shape{3, 3, 2, 6}));
}

TEST(Conv2D, KerasShapesForTransposeDepthwiseSeparable) {
  Conv2DTranspose t(5, 3, {.strides = 2});
  EXPECT_EQ(t(Input({4, 3, 2})).shape(), (Shape{kUnknownDim, 9, 7, 5}));
  EXPECT_EQ(t.weights()[0].shape(), (Shape{3, 3, 5, 2}));
  DepthwiseConv2D d(3, {.depth_multiplier = 2});
  EXPECT_EQ(d(Input({5, 5, 3})).shape(), (Shape{kUnknownDim, 3, 3, 6}));
  EXPECT_EQ(d.weights()[0].shape(), (Shape{3, 3, 3, 2}));
  SeparableConv2D s(4, 3, {.padding = "same"});
  EXPECT_EQ(s(Input({5, 5, 3})).shape(), (Shape{kUnknownDim, 5, 5, 4}));
  EXPECT_EQ(s.weights()[1].shape(), (Shape{1, 1, 3, 4}));
}

TEST(Conv2D, DefaultNamesFollowKeras) {
  clear_session();
  EXPECT_EQ(Conv2D(2, 3).name(), "conv2d");
  EXPECT_EQ(MaxPooling2D().name(), "max_pooling2d");
  EXPECT_EQ(BatchNormalization().name(), "batch_normalization");
  EXPECT_EQ(Conv2DTranspose(2, 3).name(), "conv2d_transpose");
  EXPECT_EQ(DepthwiseConv2D(3).name(), "depthwise_conv2d");
  EXPECT_EQ(Conv1D(2, 3).name(), "conv1d");
}

TEST(Conv2D, KernelLargerThanThePaddedInputIsAShapeErrorAtDefinition) {
  std::string msg = shape_error([] { Conv2D(4, 5, {.name = "big"})(Input({3, 8, 2})); });
  EXPECT_NE(msg.find("Conv2D 'big'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(None, 3, 8, 2)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("larger than the padded input"), std::string::npos) << msg;
  // "same" pads the input: the same kernel fits.
  EXPECT_EQ(Conv2D(4, 5, {.padding = "same"})(Input({3, 8, 2})).shape(), (Shape{kUnknownDim, 3, 8, 4}));
  msg = shape_error([] { MaxPooling2D(4, {.name = "pool"})(Input({3, 8, 2})); });
  EXPECT_NE(msg.find("MaxPooling2D 'pool'"), std::string::npos) << msg;
  msg = shape_error([] { Conv1D(2, 6, {.dilation_rate = 2, .name = "c1"})(Input({10, 2})); });
  EXPECT_NE(msg.find("Conv1D 'c1'"), std::string::npos) << msg;
}

TEST(Conv2D, ChannelCountThatDoesNotMatchTheWeightsIsAShapeError) {
  Conv2D conv(4, 3, {.name = "shared_conv"});
  conv(Input({6, 6, 3}));  // built for 3 channels
  std::string msg = shape_error([&] { conv(Input({6, 6, 5})); });
  EXPECT_NE(msg.find("Conv2D 'shared_conv'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(None, 6, 6, 5)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("3 channels"), std::string::npos) << msg;
  // Groups that do not divide the channels.
  msg = shape_error([] { Conv2D(4, 3, {.groups = 2, .name = "g"})(Input({6, 6, 3})); });
  EXPECT_NE(msg.find("Conv2D 'g'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("divisible by groups"), std::string::npos) << msg;
}

TEST(Concatenate, MismatchedShapesAreAShapeErrorNamingTheLayerAndShapes) {
  auto a = Input({4, 3}), b = Input({5, 2});
  std::string msg = shape_error([&] { Concatenate(-1, {.name = "join"})({a, b}); });
  EXPECT_NE(msg.find("Concatenate 'join'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(None, 4, 3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(None, 5, 2)"), std::string::npos) << msg;
  // Along axis 1 the same inputs differ in the last axis: still an error; matching ones join.
  EXPECT_NE(shape_error([&] { Concatenate(1)({a, b}); }), "");
  EXPECT_EQ(Concatenate(1)({a, Input({2, 3})})[0].shape(), (Shape{kUnknownDim, 6, 3}));
}

TEST(Merge, InputCountsAndShapeChecks) {
  auto a = Input({3}), b = Input({3}), c = Input({4});
  EXPECT_THROW(Subtract()({a, b, a}), ValueError);
  EXPECT_THROW(Add()(a), ValueError);
  EXPECT_EQ(Add()({a, b, a})[0].shape(), (Shape{kUnknownDim, 3}));
  EXPECT_NE(shape_error([&] { Add({.name = "sum"})({a, c}); }).find("Add 'sum'"), std::string::npos);
}

TEST(BatchNormalization, FrozenLayerRunsInInferenceModeInFitAndKeepsItsStatistics) {
  auto run = [](bool trainable) {
    BatchNormalization bn({.name = "bn"});
    auto in = Input({2});
    Model model(in, bn(in));
    bn.set_trainable(trainable);
    model.compile({.optimizer = "sgd", .loss = "mse"});
    Tensor x = Tensor::from_vector<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    model.train_on_batch(x, Tensor(Shape{4, 2}));
    return bn.get_weights();  // gamma, beta, moving_mean, moving_variance
  };
  auto frozen = run(false);
  EXPECT_FLOAT_EQ(frozen[2].item(0), 0.f);  // moving_mean untouched
  EXPECT_FLOAT_EQ(frozen[3].item(0), 1.f);
  EXPECT_FLOAT_EQ(frozen[0].item(0), 1.f);  // gamma not trained
  auto trained = run(true);
  EXPECT_NEAR(trained[2].item(0), 0.01f * 4.f, 1e-6);  // 0.99·0 + 0.01·mean(1, 3, 5, 7)
  EXPECT_NEAR(trained[3].item(0), 0.99f + 0.01f * 5.f, 1e-6);  // biased variance of (1, 3, 5, 7) = 5
}

TEST(BatchNormalization, PredictUsesMovingStatistics) {
  BatchNormalization bn;
  auto in = Input({2});
  Model model(in, bn(in));
  bn.set_weights({Tensor::filled({2}, 2.f), Tensor::filled({2}, 1.f), Tensor::filled({2}, 3.f),
                  Tensor::filled({2}, 4.f - 1e-3f)});
  Tensor y = model.predict(Tensor::filled({1, 2}, 5.f));
  EXPECT_NEAR(y.item(0), 2.f * (5.f - 3.f) / 2.f + 1.f, 1e-5);
}

TEST(SpatialDropout, DropsWholeChannelsInTrainingOnly) {
  SpatialDropout2D drop(0.5, {.seed = 3});
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 4, 4, 8}});
  Output y = drop.impl().call(g, {x})[0];
  Program p(g, {x}, {y});
  Tensor ones = Tensor::filled({2, 4, 4, 8}, 1.f);
  Tensor inference = p.run({ones})[0];
  for (std::int64_t i = 0; i < inference.size(); ++i) ASSERT_EQ(inference.item(i), 1.f);
  Tensor training = p.run({ones}, {.training = true})[0];
  int dropped = 0;
  for (int n = 0; n < 2; ++n) {
    for (int c = 0; c < 8; ++c) {
      float first = training.item(n * 128 + c);
      for (int s = 0; s < 16; ++s) ASSERT_EQ(training.item(n * 128 + s * 8 + c), first) << "one value per channel";
      EXPECT_TRUE(first == 0.f || first == 2.f);
      dropped += first == 0.f;
    }
  }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 16);
}

// Every rank of a spatial family is the family's one template (#36): a layer written again
// per rank fails to compile here, and each rank's layer runs that template's Impl.
TEST(RankGenericLayers, EachRankIsTheFamilysTemplate) {
  static_assert(std::is_same_v<Conv1D, Conv<1>> && std::is_same_v<Conv2D, Conv<2>> && std::is_same_v<Conv3D, Conv<3>>);
  static_assert(std::is_same_v<Conv1DTranspose, ConvTranspose<1>> && std::is_same_v<Conv3DTranspose, ConvTranspose<3>>);
  static_assert(std::is_same_v<MaxPooling1D, MaxPooling<1>> && std::is_same_v<AveragePooling3D, AveragePooling<3>>);
  static_assert(std::is_same_v<ZeroPadding1D, ZeroPadding<1>> && std::is_same_v<Cropping3D, Cropping<3>>);
  static_assert(std::is_same_v<UpSampling1D, UpSampling<1>> && std::is_same_v<UpSampling3D, UpSampling<3>>);
  EXPECT_NE(dynamic_cast<const ConvImpl<1>*>(&Conv1D(2, 3).impl()), nullptr);
  EXPECT_NE(dynamic_cast<const ConvTransposeImpl<3>*>(&Conv3DTranspose(2, 3).impl()), nullptr);
  EXPECT_NE(dynamic_cast<const PoolingImpl<2>*>(&AveragePooling2D(2).impl()), nullptr);
  EXPECT_NE(dynamic_cast<const SpatialPadImpl<3>*>(&Cropping3D(1).impl()), nullptr);
  EXPECT_NE(dynamic_cast<const UpSamplingImpl<1>*>(&UpSampling1D(2).impl()), nullptr);
}

}  // namespace conv_layers_test
