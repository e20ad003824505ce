// The lessons of graph frameworks, as tests: each fails if its guarantee breaks.
#include <gtest/gtest.h>

#include <cstring>

#include "core/error.h"
#include "core/rng.h"
#include "strata.h"
#include "test_data.h"

using namespace strata;

namespace lessons_test {

namespace {
Model small_classifier(double dropout = 0.0) {
  auto in = Input({4});
  auto h = layers::Dense(8, {.activation = "relu"})(in);
  if (dropout > 0) h = layers::Dropout(dropout)(h);
  auto out = layers::Dense(3, {.activation = "softmax"})(h);
  Model m(in, out);
  m.compile({.optimizer = optimizers::get("adam"), .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  return m;
}
}  // namespace

// (a) Ops are never created inside the training loop.
TEST(Lessons, ThousandFitStepsAndPredictsAddNoGraphNodes) {
  Model m = small_classifier(0.2);
  auto [x, y] = test_data::blobs(16);
  m.train_on_batch(x, y);
  const int nodes = m.graph().num_nodes();
  for (int i = 0; i < 1000; ++i) m.train_on_batch(x, y);
  for (int i = 0; i < 1000; ++i) m.predict_on_batch(x);
  EXPECT_EQ(m.graph().num_nodes(), nodes);
  EXPECT_TRUE(m.graph().finalized());
}

// (b) An unused branch is never built into the graph, so it never runs.
TEST(Lessons, UnusedBranchNeverEntersTheGraph) {
  auto in = Input({4});
  auto used = layers::Dense(3, {.name = "used"})(in);
  auto unused = layers::Dense(100, {.name = "unused_branch"})(in);
  (void)unused;
  Model m(in, used);
  m.compile({.optimizer = "sgd", .loss = "mse"});
  auto [x, y] = test_data::blobs(8);
  m.predict(x);
  for (const auto& node : m.graph().nodes()) {
    EXPECT_EQ(node.name.find("unused_branch"), std::string::npos) << node.name;
  }
  EXPECT_THROW(m.get_layer("unused_branch"), ValueError);
}

// (c) Data is fed, never baked in: the graph does not grow with the dataset.
TEST(Lessons, TenTimesMoreDataGivesTheSameGraph) {
  set_random_seed(1);
  Model small = small_classifier();
  set_random_seed(1);
  Model large = small_classifier();
  auto [xs, ys] = test_data::blobs(60);
  auto [xl, yl] = test_data::blobs(600);
  const int before = small.graph().num_nodes();
  small.fit(xs, ys, {.batch_size = 20, .epochs = 1, .verbose = 0});
  large.fit(xl, yl, {.batch_size = 20, .epochs = 1, .verbose = 0});
  EXPECT_EQ(small.graph().num_nodes(), before);
  EXPECT_EQ(large.graph().num_nodes(), before);
}

// (d) Names: unique defaults; duplicate names refused.
TEST(Lessons, DefaultNamesAreUniqueAndDuplicatesAreRefused) {
  clear_session();
  auto in = Input({4});
  auto a = layers::Dense(4);
  auto b = layers::Dense(4);
  Model m(in, b(a(in)));
  EXPECT_EQ(a.name(), "dense");
  EXPECT_EQ(b.name(), "dense_1");
  EXPECT_EQ(m.get_layer("dense_1"), b);

  auto in2 = Input({4});
  auto c = layers::Dense(4, {.name = "twin"});
  auto d = layers::Dense(4, {.name = "twin"});
  EXPECT_THROW(Model(in2, d(c(in2))), ValueError);
}

// (e) Shape mismatches throw at definition, naming the layer and both shapes.
TEST(Lessons, ShapeMismatchThrowsAtDefinition) {
  auto in = Input({10});
  layers::Dense first(16, {.name = "first"});
  first(in);
  auto other = Input({7});
  try {
    first(other);
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Dense 'first'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(None, 7)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("10"), std::string::npos) << msg;
  }
  // In a Sequential with an Input, the layer that doesn't fit is rejected when added.
  try {
    Sequential s({Input({3}), layers::Reshape({2, 2}, {.name = "bad_reshape"})});
    FAIL() << "expected ShapeError";
  } catch (const ShapeError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("Reshape 'bad_reshape'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(None, 3)"), std::string::npos) << msg;
  }
}

// (f) Reproducible: the same seed gives bit-identical weights after training.
TEST(Lessons, SameSeedGivesBitIdenticalWeightsAfterTraining) {
  auto train = [](std::uint64_t seed) {
    set_random_seed(seed);
    Model m = small_classifier(0.3);
    auto [x, y] = test_data::blobs(90);
    m.fit(x, y, {.batch_size = 16, .epochs = 3, .verbose = 0, .shuffle = true});
    return m.get_weights();
  };
  auto w1 = train(42), w2 = train(42), w3 = train(43);
  ASSERT_EQ(w1.size(), w2.size());
  bool differs_with_other_seed = false;
  for (std::size_t i = 0; i < w1.size(); ++i) {
    ASSERT_EQ(w1[i].nbytes(), w2[i].nbytes());
    EXPECT_EQ(std::memcmp(w1[i].raw_data(), w2[i].raw_data(), w1[i].nbytes()), 0) << "weight " << i;
    differs_with_other_seed |= std::memcmp(w1[i].raw_data(), w3[i].raw_data(), w1[i].nbytes()) != 0;
  }
  EXPECT_TRUE(differs_with_other_seed);
}

}  // namespace lessons_test
