// compile / fit / evaluate / predict with Keras's semantics (keras-spec §1.2).
#include <gtest/gtest.h>

#include <cmath>

#include "strata.h"
#include "test_data.h"

using namespace strata;

namespace fit_test {

namespace {
Model classifier(std::vector<std::string> metrics = {"accuracy"}) {
  auto in = Input({4});
  auto out = layers::Dense(3, {.activation = "softmax"})(layers::Dense(16, {.activation = "relu"})(in));
  Model m(in, out);
  m.compile({.optimizer = optimizers::get("adam"),
             .loss = losses::get("sparse_categorical_crossentropy"),
             .metrics = std::move(metrics)});
  return m;
}
}  // namespace

TEST(Fit, LearnsASimpleProblem) {
  set_random_seed(7);
  Model m = classifier();
  auto [x, y] = test_data::blobs(300);
  History h = m.fit(x, y, {.batch_size = 32, .epochs = 15, .verbose = 0});
  ASSERT_EQ(h.history["loss"].size(), 15u);
  EXPECT_LT(h.history["loss"].back(), h.history["loss"].front() * 0.5f);
  EXPECT_GT(h.history["accuracy"].back(), 0.95f);
  auto scores = m.evaluate(x, y, {.verbose = 0});
  EXPECT_GT(scores.at("accuracy"), 0.95f);
  EXPECT_TRUE(scores.count("loss"));
}

TEST(Fit, HistoryHasKerasKeysEpochsAndParams) {
  Model m = classifier();
  auto [x, y] = test_data::blobs(100);
  History h = m.fit(x, y, {.batch_size = 25, .epochs = 4, .verbose = 0, .validation_split = 0.2, .initial_epoch = 1});
  EXPECT_EQ(h.epoch, (std::vector<int>{1, 2, 3}));  // epochs is an end index
  for (const char* key : {"loss", "accuracy", "val_loss", "val_accuracy"}) {
    ASSERT_TRUE(h.history.count(key)) << key;
    EXPECT_EQ(h.history[key].size(), 3u) << key;
  }
  EXPECT_EQ(h.params.epochs, 4);
  EXPECT_EQ(h.params.steps, 80 / 25 + 1);  // 80 training samples after the split
}

TEST(Fit, ValidationSplitTakesTheLastSamplesBeforeShuffling) {
  set_random_seed(3);
  Model m = classifier();
  auto [x, y] = test_data::blobs(100);
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 2, .verbose = 0, .validation_split = 0.3});
  // The last 30 samples are the validation set: evaluating them now gives val_loss.
  auto scores = m.evaluate(x.slice_rows(70, 100), y.slice_rows(70, 100), {.verbose = 0});
  EXPECT_NEAR(scores.at("loss"), h.history["val_loss"].back(), 1e-5);
  // floor(100 * (1 - 0.999)) = 0 training samples: refused, as in Keras.
  EXPECT_THROW(m.fit(x, y, {.verbose = 0, .validation_split = 0.999}), ValueError);
}

TEST(Fit, ValidationDataOverridesTheSplit) {
  Model m = classifier();
  auto [x, y] = test_data::blobs(60);
  auto [xv, yv] = test_data::blobs(12, 4, 9);
  History h = m.fit(x, y, {.epochs = 1, .verbose = 0, .validation_split = 0.5, .validation_data = ValidationData(xv, yv)});
  auto scores = m.evaluate(xv, yv, {.verbose = 0});
  EXPECT_NEAR(scores.at("loss"), h.history["val_loss"].back(), 1e-5);
  EXPECT_EQ(h.params.steps, 2);  // all 60 samples trained: the split was ignored
}

TEST(Fit, EpochLossIsTheBatchSizeWeightedMean) {
  // With a zero learning rate every batch sees the same weights, so the epoch loss must
  // equal evaluate's loss over the same data, whatever the uneven last batch.
  auto in = Input({4});
  Model m(in, layers::Dense(3, {.activation = "softmax"})(in));
  m.compile({.optimizer = optimizers::SGD({.learning_rate = 0.0}), .loss = "sparse_categorical_crossentropy"});
  auto [x, y] = test_data::blobs(50);
  History h = m.fit(x, y, {.batch_size = 16, .epochs = 1, .verbose = 0});
  EXPECT_NEAR(h.history["loss"][0], m.evaluate(x, y, {.batch_size = 50, .verbose = 0}).at("loss"), 1e-5);
}

TEST(Fit, TrainTestAndPredictOnBatch) {
  set_random_seed(11);
  Model m = classifier();
  auto [x, y] = test_data::blobs(30);
  float first = m.train_on_batch(x, y).at("loss");
  for (int i = 0; i < 50; ++i) m.train_on_batch(x, y);
  EXPECT_LT(m.test_on_batch(x, y).at("loss"), first);
  Tensor p = m.predict_on_batch(x);
  EXPECT_EQ(p.shape(), (Shape{30, 3}));
  // Other batch sizes may block the GEMM differently: equal up to rounding.
  Tensor q = m.predict(x, {.batch_size = 7});
  for (std::int64_t i = 0; i < p.size(); ++i) EXPECT_NEAR(q.item(i), p.item(i), 1e-5);
}

// The one-tensor predict_on_batch keeps its vectors of inputs and results with the
// thread between calls: each call still returns a tensor of its own, keeps no hold on its
// input afterwards, and a call that throws leaves the next one working.
TEST(Fit, OneTensorPredictOnBatchReturnsItsOwnResultAndLetsGoOfTheInput) {
  set_random_seed(12);
  Model m = classifier();
  auto [x, y] = test_data::blobs(30);
  Tensor a = m.predict_on_batch(x);
  const std::vector<float> first = a.to_vector<float>();
  Tensor shifted = x.clone();
  for (std::int64_t i = 0; i < shifted.size(); ++i) shifted.data<float>()[i] += 1.f;
  Tensor b = m.predict_on_batch(shifted);
  EXPECT_FALSE(a.shares_storage_with(b));
  EXPECT_EQ(a.to_vector<float>(), first) << "the second call wrote into the first call's result";
  EXPECT_NE(b.to_vector<float>(), first);
  EXPECT_EQ(x.use_count(), 1);
  EXPECT_EQ(shifted.use_count(), 1);
  Tensor wrong(Shape{2, 7});
  EXPECT_THROW(m.predict_on_batch(wrong), ShapeError);
  EXPECT_EQ(wrong.use_count(), 1);
  EXPECT_EQ(m.predict_on_batch(x).to_vector<float>(), first);
}

TEST(Fit, PredictWorksBeforeCompileAndMatchesAfter) {
  auto in = Input({4});
  Model m(in, layers::Dense(2)(in));
  auto [x, y] = test_data::blobs(5);
  Tensor before = m.predict(x);
  m.compile({.optimizer = "sgd", .loss = "mse"});
  EXPECT_EQ(m.predict(x).to_vector<float>(), before.to_vector<float>());
}

TEST(Fit, AccuracyResolvesLikeKeras) {
  auto [x, y] = test_data::blobs(30);
  // Binary: one sigmoid unit.
  auto in = Input({4});
  Model binary(in, layers::Dense(1, {.activation = "sigmoid"})(in));
  binary.compile({.optimizer = "sgd", .loss = "binary_crossentropy", .metrics = {"accuracy"}});
  Tensor yb(Shape{30});
  for (int i = 0; i < 30; ++i) yb.data<float>()[i] = static_cast<float>(y.data<std::int64_t>()[i] == 0);
  auto s = binary.evaluate(x, yb, {.verbose = 0});
  EXPECT_GE(s.at("accuracy"), 0.f);
  EXPECT_LE(s.at("accuracy"), 1.f);
  // Categorical: one-hot targets with categorical crossentropy.
  Model cat(in, layers::Dense(3, {.activation = "softmax"})(in));
  cat.compile({.optimizer = "sgd", .loss = "categorical_crossentropy", .metrics = {"acc"}});
  Tensor onehot(Shape{30, 3});
  for (int i = 0; i < 30; ++i) onehot.data<float>()[i * 3 + y.data<std::int64_t>()[i]] = 1.f;
  auto c = cat.evaluate(x, onehot, {.verbose = 0});
  EXPECT_TRUE(c.count("acc"));  // the log key is the string the user passed
  // Argmax agreement computed by hand.
  Tensor p = cat.predict(x);
  int correct = 0;
  for (int i = 0; i < 30; ++i) {
    int best = 0;
    for (int k = 1; k < 3; ++k) best = p.data<float>()[i * 3 + k] > p.data<float>()[i * 3 + best] ? k : best;
    correct += best == y.data<std::int64_t>()[i];
  }
  EXPECT_NEAR(c.at("acc"), correct / 30.0, 1e-6);
}

TEST(Fit, ShuffleOffKeepsTheOrderAndOnChangesIt) {
  // With shuffle off, two identical models see identical batches and end identical;
  // shuffled runs with different seeds differ.
  auto run = [](bool shuffle, std::uint64_t seed) {
    auto in = Input({4});
    // A seeded initializer: every run starts from the same weights.
    Model m(in, layers::Dense(3, {.activation = "softmax", .kernel_initializer = initializers::GlorotUniform({.seed = 1})})(in));
    m.compile({.optimizer = optimizers::SGD({.learning_rate = 0.1}), .loss = "sparse_categorical_crossentropy"});
    set_random_seed(seed);  // the shuffle order follows the global seed
    auto [x, y] = test_data::blobs(40);
    m.fit(x, y, {.batch_size = 8, .epochs = 1, .verbose = 0, .shuffle = shuffle});
    return m.get_weights()[0].to_vector<float>();
  };
  EXPECT_EQ(run(false, 1), run(false, 2));
  EXPECT_NE(run(true, 1), run(true, 2));
}

}  // namespace fit_test
