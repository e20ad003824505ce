// fit's options beyond the basics: sample_weight, class_weight, weighted_metrics,
// validation_freq, steps_per_epoch, validation_batch_size / steps, and learning-rate
// schedules driving the optimizer's rate variable.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <tuple>

#include "strata.h"
#include "test_data.h"

using namespace strata;

namespace fit_options_test {

namespace {

Model classifier(optimizers::Optimizer opt = optimizers::SGD({.learning_rate = 0.05}),
                 std::vector<std::string> weighted_metrics = {}) {
  auto in = Input({4});
  auto out = layers::Dense(3, {.activation = "softmax"})(in);
  Model m(in, out);
  m.compile({.optimizer = opt, .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"},
             .weighted_metrics = std::move(weighted_metrics)});
  return m;
}

Tensor filled(std::int64_t n, float v) { return Tensor::filled(Shape{n}, v); }

}  // namespace

TEST(FitOptions, SampleWeightScalesTheLossButNotTheDivisor) {
  set_random_seed(1);
  Model m = classifier();
  auto [x, y] = test_data::blobs(30);
  float plain = m.evaluate(x, y, {.verbose = 0}).at("loss");
  EXPECT_NEAR(m.evaluate(x, y, {.verbose = 0, .sample_weight = filled(30, 1.f)}).at("loss"), plain, 1e-6);
  EXPECT_NEAR(m.evaluate(x, y, {.verbose = 0, .sample_weight = filled(30, 2.f)}).at("loss"), 2 * plain, 1e-5);
  // Zero weight on two thirds: sum over the weighted third, divided by all 30.
  Tensor w = filled(30, 0.f);
  float third = 0;
  for (int i = 0; i < 30; i += 3) w.data<float>()[i] = 1.f;
  Tensor x3 = Tensor(Shape{10, 4}), y3 = Tensor(Shape{10}, DType::int64);
  for (int i = 0; i < 10; ++i) {
    for (int f = 0; f < 4; ++f) x3.data<float>()[i * 4 + f] = x.data<float>()[i * 3 * 4 + f];
    y3.data<std::int64_t>()[i] = y.data<std::int64_t>()[i * 3];
  }
  third = m.evaluate(x3, y3, {.batch_size = 10, .verbose = 0}).at("loss");
  EXPECT_NEAR(m.evaluate(x, y, {.batch_size = 30, .verbose = 0, .sample_weight = w}).at("loss"), third * 10 / 30,
              1e-5);
}

TEST(FitOptions, ClassWeightEqualsTheSampleWeightsOfTheLabels) {
  auto [x, y] = test_data::blobs(30);
  std::map<std::int64_t, float> cw = {{0, 1.f}, {1, 3.f}, {2, 0.5f}};
  Tensor w(Shape{30});
  for (int i = 0; i < 30; ++i) w.data<float>()[i] = cw.at(y.data<std::int64_t>()[i]);
  set_random_seed(2);
  Model a = classifier();
  History ha = a.fit(x, y, {.batch_size = 10, .epochs = 3, .verbose = 0, .class_weight = cw});
  set_random_seed(2);
  Model b = classifier();
  History hb = b.fit(x, y, {.batch_size = 10, .epochs = 3, .verbose = 0, .sample_weight = w});
  EXPECT_EQ(ha.history["loss"], hb.history["loss"]);
  set_random_seed(2);
  Model c = classifier();
  History hc = c.fit(x, y, {.batch_size = 10, .epochs = 3, .verbose = 0});
  EXPECT_NE(ha.history["loss"], hc.history["loss"]);
  EXPECT_THROW(a.fit(x, y, {.verbose = 0, .class_weight = cw, .sample_weight = w}), ValueError);
  EXPECT_THROW(a.fit(x, y, {.verbose = 0, .class_weight = {{0, 1.f}}}), ValueError);  // class 1 has no weight
  EXPECT_THROW(a.fit(x, y, {.verbose = 0, .sample_weight = filled(29, 1.f)}), ValueError);
}

TEST(FitOptions, WeightedMetricsSeeTheWeightsAndPlainMetricsDoNot) {
  set_random_seed(3);
  Model m = classifier(optimizers::SGD({.learning_rate = 0.05}), {"accuracy"});
  auto [x, y] = test_data::blobs(30);
  Tensor w = filled(30, 0.f);
  w.data<float>()[0] = 1.f;  // only sample 0 counts for the weighted accuracy
  auto pred = m.predict(x);
  bool first_right = true;
  for (int k = 0; k < 3; ++k) first_right = first_right && pred.item(k) <= pred.item(y.data<std::int64_t>()[0]);
  auto scores = m.evaluate(x, y, {.verbose = 0, .sample_weight = w});
  ASSERT_TRUE(scores.count("weighted_accuracy"));  // same name in metrics and weighted_metrics
  EXPECT_EQ(scores.at("weighted_accuracy"), first_right ? 1.f : 0.f);
  auto unweighted = m.evaluate(x, y, {.verbose = 0});
  EXPECT_EQ(scores.at("accuracy"), unweighted.at("accuracy"));
}

TEST(FitOptions, ValidationFreqAndValidationBatchSizeAndSteps) {
  Model m = classifier();
  auto [x, y] = test_data::blobs(40);
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 4, .verbose = 0, .validation_split = 0.5,
                           .validation_batch_size = 7, .validation_freq = 2});
  EXPECT_EQ(h.history["loss"].size(), 4u);
  EXPECT_EQ(h.history["val_loss"].size(), 2u);  // after epochs 2 and 4
  // validation_steps: the first batches only (here 1 of 20 samples).
  auto order_first = m.evaluate(x.slice_rows(20, 25), y.slice_rows(20, 25), {.batch_size = 5, .verbose = 0});
  h = m.fit(x, y, {.batch_size = 10, .epochs = 1, .verbose = 0, .validation_split = 0.5, .validation_steps = 1,
                   .validation_batch_size = 5});
  // Training changed the weights, so compare with an evaluate done after fit.
  auto after = m.evaluate(x.slice_rows(20, 25), y.slice_rows(20, 25), {.batch_size = 5, .verbose = 0});
  EXPECT_NEAR(h.history["val_loss"][0], after.at("loss"), 1e-6);
  (void)order_first;
}

TEST(FitOptions, StepsPerEpochContinuesTheBatchStreamAcrossEpochs) {
  set_random_seed(4);
  Model m = classifier();
  auto [x, y] = test_data::blobs(50);
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 4, .verbose = 0, .steps_per_epoch = 3});
  EXPECT_EQ(h.params.steps, 3);
  EXPECT_EQ(m.optimizer().iterations(), 12);
  // Unshuffled, 12 steps of 5 batches a pass = the same as 12 train_on_batch calls in order.
  set_random_seed(5);
  Model a = classifier();
  set_random_seed(5);
  Model b = classifier();
  a.fit(x, y, {.batch_size = 10, .epochs = 4, .verbose = 0, .shuffle = false, .steps_per_epoch = 3});
  for (int s = 0; s < 12; ++s) {
    int k = s % 5;
    b.train_on_batch(x.slice_rows(k * 10, k * 10 + 10), y.slice_rows(k * 10, k * 10 + 10));
  }
  auto wa = a.get_weights(), wb = b.get_weights();
  for (std::size_t i = 0; i < wa.size(); ++i) {
    for (std::int64_t j = 0; j < wa[i].size(); ++j) ASSERT_EQ(wa[i].item(j), wb[i].item(j));
  }
}

TEST(Schedules, KerasFormulas) {
  auto exp = optimizers::schedules::ExponentialDecay({.initial_learning_rate = 0.1, .decay_steps = 10,
                                                      .decay_rate = 0.5});
  EXPECT_DOUBLE_EQ(exp(0), 0.1);
  EXPECT_DOUBLE_EQ(exp(10), 0.05);
  EXPECT_NEAR(exp(5), 0.1 * std::pow(0.5, 0.5), 1e-15);
  auto stair = optimizers::schedules::ExponentialDecay({.initial_learning_rate = 0.1, .decay_steps = 10,
                                                        .decay_rate = 0.5, .staircase = true});
  EXPECT_DOUBLE_EQ(stair(19), 0.05);
  auto piece = optimizers::schedules::PiecewiseConstantDecay({5, 10}, {1.0, 0.5, 0.1});
  EXPECT_EQ(piece(5), 1.0);
  EXPECT_EQ(piece(6), 0.5);
  EXPECT_EQ(piece(11), 0.1);
  EXPECT_THROW(optimizers::schedules::PiecewiseConstantDecay({5}, {1.0}), ValueError);
  auto cosine = optimizers::schedules::CosineDecay({.initial_learning_rate = 0.0, .decay_steps = 100, .alpha = 0.1,
                                                    .warmup_target = 1.0, .warmup_steps = 10});
  EXPECT_DOUBLE_EQ(cosine(0), 0.0);
  EXPECT_DOUBLE_EQ(cosine(5), 0.5);
  EXPECT_DOUBLE_EQ(cosine(10), 1.0);
  EXPECT_NEAR(cosine(60), 0.1 + 0.9 * 0.5, 1e-12);
  EXPECT_NEAR(cosine(1000), 0.1, 1e-12);
}

TEST(Schedules, SetTheOptimizersRateEveryStepWithoutRecompiling) {
  auto sched = optimizers::schedules::PiecewiseConstantDecay({2}, {0.1, 0.01});
  Model m = classifier(optimizers::SGD({.learning_rate = sched}));
  int nodes = m.graph().num_nodes();
  auto [x, y] = test_data::blobs(50);
  std::vector<float> rates;
  auto record = callbacks::LambdaCallback(
      {.on_train_batch_end = [&](std::int64_t, Logs&) { rates.push_back(m.optimizer().learning_rate()); }});
  m.fit(x, y, {.batch_size = 10, .epochs = 1, .verbose = 0, .callbacks = {record}});
  // Step s trains with schedule(s): steps 0, 1, 2 at 0.1, then 0.01.
  EXPECT_EQ(rates, (std::vector<float>{0.1f, 0.1f, 0.1f, 0.01f, 0.01f}));
  EXPECT_EQ(m.graph().num_nodes(), nodes);
}

TEST(FitDataset, MatchesArraysWithTheSameBatchesAndEvaluatesAndPredicts) {
  auto [x, y] = test_data::blobs(50);
  set_random_seed(6);
  Model a = classifier();
  History ha = a.fit(x, y, {.batch_size = 10, .epochs = 3, .verbose = 0, .shuffle = false});
  set_random_seed(6);
  Model b = classifier();
  Dataset data = Dataset::from_tensors(x, y).batch(10).prefetch(2);
  History hb = b.fit(data, {.epochs = 3, .verbose = 0,
                            .validation_data = Dataset::from_tensors(x, y).batch(25)});
  EXPECT_EQ(ha.history["loss"], hb.history["loss"]);
  EXPECT_EQ(hb.history["val_loss"].size(), 3u);
  EXPECT_EQ(hb.params.steps, 5);
  auto sa = a.evaluate(x, y, {.batch_size = 10, .verbose = 0});
  auto sb = b.evaluate(data, {.verbose = 0});
  EXPECT_EQ(sa.at("loss"), sb.at("loss"));
  Tensor pa = a.predict(x, {.verbose = 0});
  Tensor pb = b.predict(Dataset::from_tensors({x}).batch(7), {.verbose = 0});
  ASSERT_EQ(pb.shape(), pa.shape());
  for (std::int64_t i = 0; i < pa.size(); ++i) ASSERT_NEAR(pa.item(i), pb.item(i), 1e-6);  // other batch sizes
  // Unbatched or endless data is refused with the fix in the message.
  EXPECT_THROW(b.fit(Dataset::from_tensors(x, y), {.verbose = 0}), ValueError);
  EXPECT_THROW(b.fit(data.repeat(), {.verbose = 0}), ValueError);
  History hr = b.fit(Dataset::from_tensors(x, y).shuffle(50, 1).repeat().batch(10),
                     {.epochs = 2, .verbose = 0, .steps_per_epoch = 7});
  EXPECT_EQ(hr.history["loss"].size(), 2u);
}

TEST(FitDataset, SampleWeightsComeFromTheDataAsKerasTuples) {
  auto [x, y] = test_data::blobs(30);
  Tensor w(Shape{30});
  for (int i = 0; i < 30; ++i) w.data<float>()[i] = static_cast<float>(i % 4);
  set_random_seed(9);
  Model a = classifier();
  History ha = a.fit(x, y, {.batch_size = 10, .epochs = 2, .verbose = 0, .shuffle = false, .sample_weight = w});
  set_random_seed(9);
  Model b = classifier();
  History hb = b.fit(Dataset::from_tensors({x}, {y, w}).batch(10), {.epochs = 2, .verbose = 0});
  EXPECT_EQ(ha.history["loss"], hb.history["loss"]);
  EXPECT_THROW(b.fit(Dataset::from_tensors(x, y).batch(10), {.verbose = 0, .sample_weight = w}), ValueError);
}

TEST(FitDataset, ArraysCanBeValidatedOnADataset) {
  auto [x, y] = test_data::blobs(40);
  set_random_seed(10);
  Model m = classifier();
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 2, .verbose = 0,
                           .validation_data = Dataset::from_tensors(x.slice_rows(0, 20), y.slice_rows(0, 20)).batch(8)});
  ASSERT_EQ(h.history["val_loss"].size(), 2u);
  EXPECT_NEAR(h.history["val_loss"][1], m.evaluate(x.slice_rows(0, 20), y.slice_rows(0, 20), {.verbose = 0}).at("loss"),
              1e-6);
}

// fit, evaluate, train_on_batch and test_on_batch check arrays with their targets in one
// place, so each refuses the same mismatch with the same words (train_on_batch and
// test_on_batch used to let it through to the step).
TEST(DataRoad, EveryCallRefusesXAndYOfDifferentLengths) {
  Model m = classifier();
  Tensor x, y;  // not a structured binding: clang before 16 cannot capture one in a lambda
  std::tie(x, y) = test_data::blobs(30);
  const Tensor short_y = y.slice_rows(0, 20);
  const std::string said = "x and y disagree on the number of samples: 30 and 20";
  auto refuses = [&](const std::function<void()>& call, const std::string& words) {
    try {
      call();
      ADD_FAILURE() << "no error; expected: " << words;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refuses([&] { m.fit(x, short_y, {.verbose = 0}); }, said);
  refuses([&] { m.evaluate(x, short_y, {.verbose = 0}); }, said);
  refuses([&] { m.train_on_batch(x, short_y); }, said);
  refuses([&] { m.test_on_batch(x, short_y); }, said);
  refuses([&] { m.fit(x, y, {.verbose = 0, .validation_data = ValidationData(x, short_y)}); },
          "validation_data: " + said);
  refuses([&] { m.fit(Dataset::from_tensors(x, y).batch(10), {.verbose = 0, .validation_data = ValidationData(x, short_y)}); },
          "validation_data: " + said);
}

// predict walks the loop fit and evaluate walk (a BatchSource), for a Dataset too: its
// steps limit the batches, and endless or unbatched data is refused before any step.
TEST(DataRoad, PredictOnADatasetTakesStepsAndMatchesTheArrays) {
  Model m = classifier();
  Tensor x, y;  // not a structured binding: clang before 16 cannot capture one in a lambda
  std::tie(x, y) = test_data::blobs(30);
  const Tensor all = m.predict(x, {.verbose = 0});
  const Tensor two = m.predict(Dataset::from_tensors({x}).batch(7), {.verbose = 0, .steps = 2});
  ASSERT_EQ(two.shape(), (Shape{14, 3}));
  for (std::int64_t i = 0; i < two.size(); ++i) ASSERT_NEAR(two.item(i), all.item(i), 1e-6);
  EXPECT_THROW(m.predict(Dataset::from_tensors({x}).batch(7).repeat(), {.verbose = 0}), ValueError);
  // Six batches of a repeated pass of 7, 7, 7, 7, 2 rows: the pass, then one more batch.
  EXPECT_EQ(m.predict(Dataset::from_tensors({x}).batch(7).repeat(), {.verbose = 0, .steps = 6}).shape(),
            (Shape{37, 3}));
  EXPECT_THROW(m.predict(Dataset::from_tensors({x}), {.verbose = 0}), ValueError);
}

}  // namespace fit_options_test
