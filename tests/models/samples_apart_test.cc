// Predicting a batch one sample at a time on each thread (core/samples_apart.h): which
// models do (models/samples_apart.h), and that what they predict is, sample by sample,
// the prediction of that sample alone, bit for bit, and the batch's within a rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/samples_apart.h"
#include "models/compiled_model.h"
#include "models/samples_apart.h"
#include "strata.h"
#include "tests/core/thread_count.h"

using namespace strata;

namespace samples_apart_test {

namespace {

Tensor random_tensor(const Shape& shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  Tensor t(shape);
  for (float& v : t.values<float>()) v = u(rng);
  return t;
}

// Every weight redrawn, BatchNormalization's variances kept positive.
void randomize_weights(const Model& m, unsigned seed) {
  for (const Layer& layer : m.layers()) {
    std::vector<Tensor> values;
    for (const Variable& v : layer.weights()) {
      Tensor t = random_tensor(v.shape(), seed++);
      if (v.name() == "moving_variance")
        for (float& x : t.values<float>()) x = 1.5f + x;
      values.push_back(t);
    }
    if (!values.empty()) layer.set_weights(values);
  }
}

const CompiledModel& inference_of(const Model& m) {
  const ModelImpl& impl = m.model();
  return impl.compiled ? *impl.compiled : *impl.inference;
}

// A small MobileNetV2-like block: padding, a strided convolution, BatchNormalization and
// relu6, a depthwise convolution, a projection with a skip connection, pooling, dropout
// and a classifier.
Model small_mobilenet() {
  auto in = Input({12, 12, 3});
  auto y = layers::ZeroPadding2D(1)(in);
  y = layers::Conv2D(16, 3, {.strides = 2, .use_bias = false})(y);
  y = layers::BatchNormalization()(y);
  y = layers::ReLU({.max_value = 6.0f})(y);
  auto d = layers::DepthwiseConv2D(3, {.padding = "same", .use_bias = false})(y);
  d = layers::BatchNormalization()(d);
  d = layers::ReLU({.max_value = 6.0f})(d);
  d = layers::Conv2D(16, 1)(d);
  y = layers::Add()({y, d})[0];
  y = layers::GlobalAveragePooling2D()(y);
  y = layers::Dropout(0.2)(y);
  return Model(in, layers::Dense(5, {.activation = "softmax"})(y));
}

void expect_rows_are_single_predictions(Model& m, const Tensor& x) {
  const Tensor batch = m.predict(x, {.verbose = 0});
  ASSERT_EQ(batch.shape()[0], x.shape()[0]);
  const std::int64_t row = batch.size() / batch.shape()[0];
  for (std::int64_t s = 0; s < x.shape()[0]; ++s) {
    const Tensor one = m.predict(x.slice_rows(s, s + 1), {.verbose = 0});
    for (std::int64_t i = 0; i < row; ++i)
      ASSERT_EQ(batch.item(s * row + i), one.item(i)) << "sample " << s << ", element " << i;
  }
}

}  // namespace

TEST(SamplesApart, AConvolutionalModelPredictsEachSampleAsAlone) {
  Model m = small_mobilenet();
  randomize_weights(m, 5);
  EXPECT_TRUE(predicts_samples_apart(m.model()));
  // 7 on 2 or 3 threads: one sample left over, run after the tasks; 5 on 3: two left over,
  // each a turn more in a task.
  for (const auto& [threads, samples] : std::vector<std::pair<int, std::int64_t>>{{2, 7}, {3, 7}, {3, 5}}) {
    strata::testing::ThreadCount t(threads);
    const Tensor x = random_tensor({samples, 12, 12, 3}, 11);
    m.predict(x, {.verbose = 0});
    EXPECT_TRUE(inference_of(m).splits_samples({x}));
    expect_rows_are_single_predictions(m, x);
    // The whole batch through the Program at once: the same within a rounding.
    const Tensor got = m.predict(x, {.verbose = 0});
    const Tensor whole = inference_of(m).predict_program().run({x})[0];
    for (std::int64_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got.item(i), whole.item(i), 1e-6) << i;
  }
}

TEST(SamplesApart, NotOnOneThreadNorForFewerSamplesThanThreads) {
  Model m = small_mobilenet();
  m.predict(random_tensor({2, 12, 12, 3}, 1), {.verbose = 0});
  {
    strata::testing::ThreadCount t(1);
    EXPECT_FALSE(inference_of(m).splits_samples({random_tensor({8, 12, 12, 3}, 2)}));
  }
  strata::testing::ThreadCount t(3);
  EXPECT_FALSE(inference_of(m).splits_samples({random_tensor({2, 12, 12, 3}, 2)}));
  EXPECT_TRUE(inference_of(m).splits_samples({random_tensor({3, 12, 12, 3}, 2)}));
}

TEST(SamplesApart, AModelNestedInAModelCounts) {
  auto in = Input({8, 8, 2});
  Sequential block({Input({8, 8, 2}), layers::DepthwiseConv2D(3, {.padding = "same"}), layers::LayerNormalization()});
  auto y = layers::GlobalAveragePooling2D()(block(in));
  Model m(in, layers::Dense(3)(y));
  EXPECT_TRUE(predicts_samples_apart(m.model()));
  randomize_weights(m, 9);
  strata::testing::ThreadCount t(2);
  expect_rows_are_single_predictions(m, random_tensor({4, 8, 8, 2}, 4));
}

// An Input of a fixed batch_size takes no batch of one: such a model predicts its batch whole.
TEST(SamplesApart, NotWhereTheInputHasAFixedBatchSize) {
  auto in = Input({8, 8, 3}, {.batch_size = 4});
  auto y = layers::GlobalAveragePooling2D()(layers::DepthwiseConv2D(3)(in));
  Model m(in, layers::Dense(2)(y));
  EXPECT_TRUE(predicts_samples_apart(m.model()));
  strata::testing::ThreadCount t(2);
  const Tensor x = random_tensor({4, 8, 8, 3}, 6);
  EXPECT_EQ(m.predict(x, {.batch_size = 4, .verbose = 0}).shape(), Shape({4, 2}));
  EXPECT_FALSE(inference_of(m).splits_samples({x}));
}

// Recurrent layers and Dense-only models gain from the batch (a row per sample in every
// product), models without a depthwise convolution were not measured to gain, and classes
// outside the list keep the batch whole. (A LayerNormalization over the batch axis is
// refused when the model is defined.)
TEST(SamplesApart, OtherModelsKeepTheBatchWhole) {
  {
    auto in = Input({5, 3});
    Model m(in, layers::Dense(2)(layers::LSTM(4)(in)));
    EXPECT_FALSE(predicts_samples_apart(m.model()));
  }
  {
    auto in = Input({6});
    Model m(in, layers::Dense(2)(layers::Dense(8, {.activation = "relu"})(in)));
    EXPECT_FALSE(predicts_samples_apart(m.model()));
  }
  {
    auto in = Input({6, 6, 2});
    auto y = layers::Conv2D(3, 3)(in);
    Model m(in, layers::GlobalAveragePooling2D()(y));  // a ResNet's layers
    EXPECT_FALSE(predicts_samples_apart(m.model()));
  }
  {
    auto in = Input({6, 6, 2});
    auto y = layers::DepthwiseConv2D(3)(in);
    Model m(in, layers::GaussianNoise(0.1)(y));  // not on the list
    EXPECT_FALSE(predicts_samples_apart(m.model()));
  }
  {
    auto in = Input({6, 6, 2});
    auto y = layers::DepthwiseConv2D(3, {.padding = "same"})(in);
    Model m(in, layers::LayerNormalization({.axis = {1, 2, 3}})(y));
    EXPECT_TRUE(predicts_samples_apart(m.model()));
  }
}

}  // namespace samples_apart_test
