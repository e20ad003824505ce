// Bad input gets a clear exception that says what and where — never a crash.
#include <gtest/gtest.h>

#include <limits>
#include <tuple>

#include "strata.h"
#include "test_data.h"

using namespace strata;

namespace bad_input_test {

namespace {
Model compiled_classifier() {
  auto in = Input({4}, {.name = "features"});
  Model m(in, layers::Dense(3, {.activation = "softmax"})(in));
  m.compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy"});
  return m;
}

template <typename E, typename F>
std::string message_of(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}
}  // namespace

TEST(BadInput, WrongFeatureShapeNamesTheInput) {
  Model m = compiled_classifier();
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(10, 5);
  std::string msg = message_of<ShapeError>([&] { m.fit(x, y, {.verbose = 0}); });
  EXPECT_NE(msg.find("features"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(None, 4)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("(10, 5)"), std::string::npos) << msg;
  EXPECT_THROW(m.predict(x), ShapeError);
}

TEST(BadInput, WrongDtypeIsAValueError) {
  Model m = compiled_classifier();
  Tensor x(Shape{4, 4}, DType::int32);
  std::string msg = message_of<ValueError>([&] { m.predict(x); });
  EXPECT_NE(msg.find("float32"), std::string::npos) << msg;
}

TEST(BadInput, EmptyDatasetIsRefused) {
  Model m = compiled_classifier();
  Tensor x(Shape{0, 4});
  Tensor y(Shape{0}, DType::int64);
  std::string msg = message_of<ValueError>([&] { m.fit(x, y, {.verbose = 0}); });
  EXPECT_NE(msg.find("empty"), std::string::npos) << msg;
}

TEST(BadInput, MismatchedSampleCountsAreRefused) {
  Model m = compiled_classifier();
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(10);
  EXPECT_THROW(m.fit(x, y.slice_rows(0, 9), {.verbose = 0}), ValueError);
}

TEST(BadInput, SparseLabelOutOfRangeNamesTheLabel) {
  Model m = compiled_classifier();
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(10);
  y.data<std::int64_t>()[7] = 3;  // three classes: 0..2
  std::string msg = message_of<ValueError>([&] { m.fit(x, y, {.verbose = 0}); });
  EXPECT_NE(msg.find("label 3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("[0, 3)"), std::string::npos) << msg;
  y.data<std::int64_t>()[7] = -1;
  EXPECT_THROW(m.evaluate(x, y, {.verbose = 0}), ValueError);
}

// Sparse labels are checked on the host before any step: a bad label in the fifth batch
// stops fit before it trains on the four ahead of it (the weights are as they were), and
// the message names the output (on a GPU, where kernels cannot throw, this is what names
// the label). train_on_batch refuses it the same way.
TEST(BadInput, ABadSparseLabelStopsFitBeforeAnyStep) {
  auto in = Input({4});
  Model m(in, layers::Dense(3, {.activation = "softmax", .name = "scores"})(in));
  m.compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy"});
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(10);
  y.data<std::int64_t>()[9] = 7;
  const std::vector<Tensor> before = m.get_weights();
  std::string msg = message_of<ValueError>([&] { m.fit(x, y, {.batch_size = 2, .verbose = 0}); });
  EXPECT_NE(msg.find("label 7 at index 9 is out of range [0, 3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("target for output 'scores'"), std::string::npos) << msg;
  const std::vector<Tensor> after = m.get_weights();
  ASSERT_EQ(before.size(), after.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    for (std::int64_t j = 0; j < before[i].size(); ++j) ASSERT_EQ(before[i].item(j), after[i].item(j)) << "weight " << i;
  }
  EXPECT_EQ(m.optimizer().iterations(), 0);
  EXPECT_THROW(m.train_on_batch(x, y), ValueError);
  EXPECT_EQ(m.optimizer().iterations(), 0);
}

TEST(BadInput, NaNInInputsIsRefusedWithItsPosition) {
  Model m = compiled_classifier();
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(10);
  x.data<float>()[4 * 6 + 2] = std::numeric_limits<float>::quiet_NaN();
  std::string msg = message_of<ValueError>([&] { m.fit(x, y, {.verbose = 0}); });
  EXPECT_NE(msg.find("NaN"), std::string::npos) << msg;
  EXPECT_NE(msg.find("sample 6"), std::string::npos) << msg;
  EXPECT_THROW(m.predict(x), ValueError);
}

TEST(BadInput, FitBeforeCompileSaysToCompile) {
  auto in = Input({4});
  Model m(in, layers::Dense(3)(in));
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(10);
  std::string msg = message_of<Error>([&] { m.fit(x, y, {.verbose = 0}); });
  EXPECT_NE(msg.find("compile()"), std::string::npos) << msg;
  EXPECT_THROW(m.evaluate(x, y), Error);
  EXPECT_THROW(m.train_on_batch(x, y), Error);
}

TEST(BadInput, WrongTargetShapeNamesTheOutput) {
  auto in = Input({4});
  Model m(in, layers::Dense(3, {.name = "probs"})(in));
  m.compile({.optimizer = "sgd", .loss = "mse"});
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(10);
  std::string msg = message_of<ShapeError>([&] { m.fit(x, Tensor(Shape{10, 5}), {.verbose = 0}); });
  EXPECT_NE(msg.find("probs"), std::string::npos) << msg;
}

TEST(BadInput, BadOptionsAreRefused) {
  Model m = compiled_classifier();
  Tensor x, y;  // not a structured binding: lambdas capture them (clang 14)
  std::tie(x, y) = test_data::blobs(10);
  EXPECT_THROW(m.fit(x, y, {.batch_size = 0, .verbose = 0}), ValueError);
  EXPECT_THROW(m.compile({.optimizer = "sgd", .loss = "not_a_loss"}), ValueError);
}

}  // namespace bad_input_test
