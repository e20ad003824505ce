// Regularizers and constraints against Keras 3.15.1 (tests/data/regularizers_golden.json,
// tests/reference/make_regularizer_goldens.py): each case's model is read from the config
// Keras wrote, given Keras's initial weights and compiled with loss "mse" and
// SGD(learning_rate=0.1). evaluate's loss and the loss one train step reports carry the
// weight and activity penalties (Keras's model.losses); the weights after the step carry
// the penalties' gradients and the constraints, applied after the update.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "layers/convolutional/conv.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "models/model.h"
#include "optimizers/sgd.h"
#include "tests/training_golden.h"

using namespace strata;

namespace regularizers_golden_test {

using golden::close_to_keras;
using golden::golden_tensor;
using nlohmann::json;

namespace {

const json& cases() {
  static const json all = golden::load_golden("regularizers_golden.json").at("cases");
  return all;
}

const json& find_case(const std::string& name) {
  for (const auto& c : cases()) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no case " + name + " in regularizers_golden.json");
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : cases()) {
    if (c.at("name") != "saved") names.push_back(c.at("name"));
  }
  return names;
}

// Evaluates, trains one step and compares the losses and the weights with Keras's.
void expect_trains_as_keras(Model& model, const json& c) {
  std::vector<Tensor> weights;
  for (const auto& w : c.at("weights")) weights.push_back(golden_tensor(w));
  model.set_weights(weights);
  model.compile({.optimizer = optimizers::SGD({.learning_rate = 0.1}), .loss = "mse"});
  const Tensor x = golden_tensor(c.at("x"));
  const Tensor y = golden_tensor(c.at("y"));

  const double evaluated = model.evaluate(x, y, {.batch_size = 4, .verbose = 0}).at("loss");
  EXPECT_TRUE(close_to_keras(evaluated, c.at("evaluate_loss"))) << "evaluate: " << evaluated << ", Keras "
                                                                 << c.at("evaluate_loss");
  const double trained = model.train_on_batch(x, y).at("loss");
  EXPECT_TRUE(close_to_keras(trained, c.at("train_step_loss"))) << "train step: " << trained << ", Keras "
                                                                 << c.at("train_step_loss");
  const std::vector<Tensor> after = model.get_weights();
  const json& expected = c.at("weights_after_step");
  ASSERT_EQ(after.size(), expected.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    SCOPED_TRACE("weight " + std::to_string(i) + " after the step");
    golden::expect_matches_golden(after[i], expected[i]);
  }
}

class RegularizerGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(RegularizerGolden, LossesAndOneSgdStepMatchKeras) {
  const json& c = find_case(GetParam());
  Model model = models::model_from_json(c.at("config").dump());
  expect_trains_as_keras(model, c);
}

INSTANTIATE_TEST_SUITE_P(Keras3, RegularizerGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return info.param; });

// The model Keras saved with regularizers of every kind and constraints loads from both
// files and trains as Keras did; the weights the file holds are the case's initial ones.
TEST(RegularizerFiles, KerasSavedModelsTrainAsKeras) {
  for (const char* file : {"regularized.keras", "regularized.h5"}) {
    SCOPED_TRACE(file);
    Model model = models::load_model(std::string(STRATA_TEST_DATA) + "/regularizers/" + file, {.compile = false});
    expect_trains_as_keras(model, find_case("saved"));
  }
}

}  // namespace

namespace {

const Tensor kTwos = Tensor::filled(Shape{5, 5}, 2.f);

// Keras's Regularizer docstring: Dense(5, kernel_initializer="ones", kernel_regularizer=L1(0.01),
// activity_regularizer=L2(0.01)) on ones·2 of shape (5, 5) has losses summing to 5.25 (0.25 for
// the kernel, 5.0 for the activity after dividing by the batch of 5).
TEST(Regularizers, KerasDocstringExampleFromCppOptions) {
  auto in = Input({5});
  auto out = layers::Dense(5, {.kernel_initializer = "ones",
                               .kernel_regularizer = regularizers::L1(0.01),
                               .activity_regularizer = regularizers::L2(0.01)})(in);
  Model model(in, out);
  model.compile({.optimizer = optimizers::SGD({.learning_rate = 0.0}), .loss = "mse"});
  const Tensor predicted = model.predict(kTwos, {.verbose = 0});
  EXPECT_FLOAT_EQ(predicted.item(0), 10.f);  // predict carries no losses: the plain output
  const double loss = model.evaluate(kTwos, predicted, {.batch_size = 5, .verbose = 0}).at("loss");
  EXPECT_NEAR(loss, 5.25, 1e-5 * 5.25);  // mse 0 plus the penalties
}

// Constraints act after optimizer updates only: evaluate and predict leave a weight that
// breaks its constraint as it is, and a step then constrains it.
TEST(Constraints, ApplyAfterUpdatesOnly) {
  auto in = Input({2});
  layers::Dense dense(2, {.kernel_constraint = constraints::NonNeg()});
  Model model(in, dense(in));
  dense.set_weights({Tensor::from_vector<float>({2, 2}, {-1.f, 2.f, 3.f, -4.f}), Tensor::filled(Shape{2}, 0.f)});
  model.compile({.optimizer = optimizers::SGD({.learning_rate = 0.0}), .loss = "mse"});
  const Tensor x = Tensor::filled(Shape{3, 2}, 1.f), y = Tensor::filled(Shape{3, 2}, 0.f);
  model.evaluate(x, y, {.verbose = 0});
  model.predict(x, {.verbose = 0});
  EXPECT_EQ(dense.get_weights()[0].to_vector<float>(), (std::vector<float>{-1.f, 2.f, 3.f, -4.f}));
  model.train_on_batch(x, y);  // learning rate 0: only the constraint changes the kernel
  EXPECT_EQ(dense.get_weights()[0].to_vector<float>(), (std::vector<float>{0.f, 2.f, 3.f, 0.f}));
}

TEST(Regularizers, KerasNamesAndRefusals) {
  EXPECT_EQ(Regularizer("l2"), regularizers::L2(0.01));
  EXPECT_EQ(Regularizer("L1"), regularizers::L1(0.01));
  EXPECT_EQ(Regularizer("l1l2"), regularizers::L1L2({.l1 = 0.0, .l2 = 0.0}));  // Keras's defaults for L1L2
  EXPECT_EQ(Regularizer("orthogonal_regularizer"), regularizers::OrthogonalRegularizer({.factor = 0.01}));
  EXPECT_THROW(Regularizer("l1_l2"), ValueError);  // Keras 3.15.1 cannot interpret it either
  EXPECT_THROW(regularizers::L2(-0.1), ValueError);
  EXPECT_THROW(regularizers::OrthogonalRegularizer({.mode = "diagonal"}), ValueError);
  EXPECT_EQ(Constraint("max_norm"), constraints::MaxNorm({.max_value = 2, .axis = 0}));
  EXPECT_THROW(Constraint("clip"), ValueError);
  // The orthogonal regularizer takes rank 2: on a Conv2D kernel it is refused at definition.
  try {
    layers::Conv2D(2, 3, {.kernel_regularizer = "orthogonal_regularizer", .name = "conv"})(Input({5, 5, 1}));
    FAIL() << "an orthogonal regularizer on a rank-4 kernel was accepted";
  } catch (const ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("Conv2D 'conv'"), std::string::npos) << what;
    EXPECT_NE(what.find("weight 'kernel'"), std::string::npos) << what;
  }
}

}  // namespace

}  // namespace regularizers_golden_test
