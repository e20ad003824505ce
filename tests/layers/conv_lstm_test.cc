// ConvLSTM1D, ConvLSTM2D and ConvLSTM3D against real Keras 3.15.1:
// tests/data/conv_lstm_golden.json (tests/reference/make_conv_lstm_goldens.py) holds, per
// option that changes the math, Keras's config, inputs (and initial states), weights,
// outputs and the gradients of sum(output · projection) with respect to every input and
// trainable weight; each layer is made from Keras's config and must match within 1e-5
// (layer_golden_case.h). Beyond the goldens: a stateful layer carries its states as Keras's
// did, dropout acts in training only with Keras's masks (one per gate, the same at every
// step: checked statistically, tolerances five standard errors at the sample size used),
// training moves the loss down, and bad shapes fail at definition naming the layer. Masks
// (tests/data/conv_lstm_mask_golden.json, make_conv_lstm_mask_goldens.py) as Keras applies them.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/program.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layer_golden_case.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "layers/recurrent/conv_lstm.h"
#include "layers/recurrent/lstm.h"
#include "layers/reshaping/flatten.h"
#include "losses/losses.h"
#include "models/model.h"
#include "optimizers/optimizers.h"

using namespace strata;
using nlohmann::ordered_json;

namespace conv_lstm_test {

namespace {

const ordered_json& goldens() { return strata::testing::golden_file("conv_lstm_golden.json"); }

class ConvLSTMGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvLSTMGolden, MatchesKeras) {
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == GetParam()) return strata::testing::expect_matches_keras_case(c);
  }
  FAIL() << "no case " << GetParam();
}

// The same cases defined over None time steps: the loop runs as one op over the fed steps
// (conv_lstm_recurrence), and must give Keras's outputs and gradients too.
TEST_P(ConvLSTMGolden, MatchesKerasOverNoneTimeSteps) {
  strata::testing::expect_matches_keras_case(strata::testing::golden_case("conv_lstm_golden.json", GetParam()),
                                             {.unknown_time = true});
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, ConvLSTMGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return strata::testing::test_name_of(info.param); });

// Masks, the input's or passed with the call (tests/reference/make_conv_lstm_mask_goldens.py).
const ordered_json& mask_goldens() { return strata::testing::golden_file("conv_lstm_mask_golden.json"); }

class ConvLSTMMaskGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvLSTMMaskGolden, MatchesKeras) {
  for (const auto& c : mask_goldens().at("cases")) {
    if (c.at("name") == GetParam()) return strata::testing::expect_matches_keras_case(c);
  }
  FAIL() << "no case " << GetParam();
}

TEST_P(ConvLSTMMaskGolden, MatchesKerasOverNoneTimeSteps) {
  strata::testing::expect_matches_keras_case(strata::testing::golden_case("conv_lstm_mask_golden.json", GetParam()),
                                             {.unknown_time = true});
}

std::vector<std::string> mask_case_names() {
  std::vector<std::string> names;
  for (const auto& c : mask_goldens().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, ConvLSTMMaskGolden, ::testing::ValuesIn(mask_case_names()),
                         [](const auto& info) { return strata::testing::test_name_of(info.param); });

Tensor normal_tensor(Shape shape, unsigned seed) {
  Tensor t(std::move(shape));
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  for (float& v : t.values<float>()) v = normal(gen);
  return t;
}

Tensor values(Shape shape, std::vector<float> v) {
  Tensor t(std::move(shape));
  std::copy(v.begin(), v.end(), t.data<float>());
  return t;
}

// The layer's sequence output (batch, T, ...) for x, in training or inference mode.
Tensor run(const Layer& layer, const Tensor& x, bool training) {
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  layer.impl().current_call = 0;
  Program p(g, {in}, {layer.impl().call(g, {in})[0]});
  return p.run({x}, {.training = training, .step = 1})[0];
}

// A ConvLSTM1D of one filter and a 1-wide window over W positions of one channel, linear
// activations, built with these weights (kernel, recurrent kernel, bias: gates i, f, c, o).
layers::ConvLSTM1D linear_cell(std::int64_t steps, std::int64_t width, double dropout, double recurrent_dropout,
                               std::vector<float> kernel, std::vector<float> recurrent, std::vector<float> bias) {
  layers::ConvLSTM1D layer(1, 1, {.activation = "", .recurrent_activation = "", .dropout = dropout,
                                  .recurrent_dropout = recurrent_dropout, .seed = 11, .return_sequences = true});
  layer(Input({steps, width, 1}));
  layer.set_weights({values({1, 1, 4}, kernel), values({1, 1, 4}, recurrent), values({4}, bias)});
  return layer;
}

constexpr std::int64_t kWidth = 4000;

// Fraction of positions where `y` is zero.
double zero_fraction(const float* y, std::int64_t n) {
  std::int64_t zeros = 0;
  for (std::int64_t i = 0; i < n; ++i) zeros += y[i] == 0.f;
  return static_cast<double>(zeros) / static_cast<double>(n);
}

}  // namespace

TEST(ConvLSTMGoldens, StatefulCarriesStatesAsKeras) {
  const auto& s = goldens().at("stateful");
  Layer layer = io::layer_from_config(ordered_json{{"class_name", "ConvLSTM2D"}, {"config", s.at("config")}}, {});
  auto in = Input({2, 4, 4, 1}, {.batch_size = 2});
  Model m(in, layer(in));
  std::vector<Tensor> weights;
  for (const auto& w : s.at("weights")) weights.push_back(strata::testing::golden_tensor(w));
  layer.set_weights(weights);
  const Tensor first = strata::testing::golden_tensor(s.at("first"));
  const Tensor second = strata::testing::golden_tensor(s.at("second"));
  EXPECT_TRUE(strata::testing::golden_near(m.predict(first, {.verbose = 0}), s.at("first_output"), "first"));
  EXPECT_TRUE(strata::testing::golden_near(m.predict(second, {.verbose = 0}), s.at("second_output"), "second"));
  static_cast<layers::ConvLSTM2DImpl&>(layer.impl()).reset_states();
  EXPECT_TRUE(strata::testing::golden_near(m.predict(second, {.verbose = 0}), s.at("second_output_after_reset"),
                                           "after reset_states"));
}

TEST(ConvLSTM, UnitForgetBiasStartsTheForgetGateBiasAtOne) {
  layers::ConvLSTM2D layer(3, 2);
  layer(Input({2, 4, 4, 1}));
  const Tensor bias = layer.get_weights().at(2);
  for (std::int64_t j = 0; j < 12; ++j) EXPECT_EQ(bias.item(j), j >= 3 && j < 6 ? 1.f : 0.f) << j;
  layers::ConvLSTM2D plain(3, 2, {.unit_forget_bias = false});
  plain(Input({2, 4, 4, 1}));
  for (std::int64_t j = 0; j < 12; ++j) EXPECT_EQ(plain.get_weights().at(2).item(j), 0.f) << j;
  EXPECT_EQ(layer.weights().at(0).path(), "conv_lstm2d/conv_lstm_cell/kernel");
  EXPECT_EQ(layer.weights().at(0).shape(), (Shape{2, 2, 1, 12}));
  EXPECT_EQ(layer.weights().at(1).shape(), (Shape{2, 2, 3, 12}));
}

// Input dropout, gate c alone fed by x (i = o = 1 from their biases, f = 0): h_t = x_t · m_c,
// m_c in {0, 1 / (1 - rate)}; the same positions dropped at both steps.
TEST(ConvLSTMDropout, InputMaskDropsAtTheRateTheSameAtEveryStep) {
  const double rate = 0.3;
  auto layer = linear_cell(2, kWidth, rate, 0.0, {0, 0, 1, 0}, {0, 0, 0, 0}, {1, 0, 0, 1});
  const Tensor x = normal_tensor({1, 2, kWidth, 1}, 5);
  const Tensor y = run(layer, x, true);
  const float* h = y.data<float>();
  const float* xv = x.data<float>();
  EXPECT_NEAR(zero_fraction(h, kWidth), rate, 5 * std::sqrt(rate * (1 - rate) / kWidth));
  for (std::int64_t p = 0; p < kWidth; ++p) {
    const bool dropped = h[p] == 0.f;
    ASSERT_EQ(dropped, h[kWidth + p] == 0.f) << "position " << p << ": masks differ between steps";
    if (!dropped) ASSERT_NEAR(h[p], xv[p] / (1 - rate), 1e-5 * (1 + std::abs(xv[p])));
  }
  const Tensor inference = run(layer, x, false);
  for (std::int64_t p = 0; p < 2 * kWidth; ++p) ASSERT_FLOAT_EQ(inference.item(p), xv[p]);
}

// Gates i and c both fed by x: h_1 = x² · m_i · m_c is nonzero where both keep, (1 - rate)²
// of positions when each gate has its own mask (1 - rate if they shared one).
TEST(ConvLSTMDropout, EachGateHasItsOwnInputMask) {
  const double rate = 0.5;
  auto layer = linear_cell(1, kWidth, rate, 0.0, {1, 0, 1, 0}, {0, 0, 0, 0}, {0, 0, 0, 1});
  const Tensor y = run(layer, normal_tensor({1, 1, kWidth, 1}, 6), true);
  const double kept = 1 - zero_fraction(y.data<float>(), kWidth), p = (1 - rate) * (1 - rate);
  EXPECT_NEAR(kept, p, 5 * std::sqrt(p * (1 - p) / kWidth));
}

// Recurrent dropout, the recurrent kernel on gate c only: h_2 = x_2 + h_1 · r_c with
// h_1 = x_1, r_c in {0, 1 / (1 - rate)}.
TEST(ConvLSTMDropout, RecurrentMaskDropsTheStateAtTheRate) {
  const double rate = 0.4;
  auto layer = linear_cell(2, kWidth, 0.0, rate, {0, 0, 1, 0}, {0, 0, 1, 0}, {1, 0, 0, 1});
  const Tensor x = normal_tensor({1, 2, kWidth, 1}, 7);
  const Tensor y = run(layer, x, true);
  const float* xv = x.data<float>();
  std::int64_t dropped = 0;
  for (std::int64_t p = 0; p < kWidth; ++p) {
    const float carried = y.item(kWidth + p) - xv[kWidth + p];
    if (std::abs(carried) < 1e-6f * (1 + std::abs(xv[kWidth + p]))) {
      ++dropped;
    } else {
      ASSERT_NEAR(carried, xv[p] / (1 - rate), 1e-4 * (1 + std::abs(xv[p]))) << p;
    }
  }
  EXPECT_NEAR(static_cast<double>(dropped) / kWidth, rate, 5 * std::sqrt(rate * (1 - rate) / kWidth));
}

// Training mode over None time steps: the fused loop draws the dropout masks the unrolled one
// draws (the same ops, seeds and streams) and gives the same outputs and gradients.
TEST(ConvLSTMDropout, NoneTimeStepsTrainAsTheUnrolledLoop) {
  const Tensor x = normal_tensor({2, 4, 5, 5, 2}, 12), projection = normal_tensor({2, 4, 5, 5, 3}, 13);
  std::vector<std::vector<Tensor>> results;
  for (const bool known : {true, false}) {
    layers::ConvLSTM2D layer(3, 3, {.padding = "same", .dropout = 0.3, .recurrent_dropout = 0.4, .seed = 21,
                                    .return_sequences = true, .go_backwards = true});
    layer(Input({known ? 4 : kUnknownDim, 5, 5, 2}));
    std::vector<Tensor> weights;
    for (std::size_t k = 0; k < 3; ++k) {
      weights.push_back(normal_tensor(layer.get_weights()[k].shape(), 30 + static_cast<unsigned>(k)));
    }
    layer.set_weights(weights);
    Graph g;
    const Output in = g.placeholder({Shape{kUnknownDim, known ? 4 : kUnknownDim, 5, 5, 2}});
    const Output proj = g.placeholder({projection.shape()});
    layer.impl().current_call = 0;
    const Output y = layer.impl().call(g, {in})[0];
    std::vector<Output> wrt{in};
    for (const auto& v : layer.trainable_weights()) wrt.push_back(g.variable(v));
    std::vector<Output> fetches{y};
    for (const Output& d : gradients(ops::reduce_sum(ops::mul(y, proj)), wrt)) fetches.push_back(d);
    Program p(g, {in, proj}, fetches);
    results.push_back(p.run({x, projection}, {.training = true, .step = 3}));
  }
  ASSERT_EQ(results[0].size(), results[1].size());
  for (std::size_t i = 0; i < results[0].size(); ++i) {
    const Tensor &fused = results[1][i], &unrolled = results[0][i];
    ASSERT_EQ(fused.shape(), unrolled.shape()) << "fetch " << i;
    for (std::int64_t e = 0; e < fused.size(); ++e) {
      ASSERT_NEAR(fused.item(e), unrolled.item(e), 1e-5 * (1 + std::abs(unrolled.item(e)))) << "fetch " << i << " at " << e;
    }
  }
}

TEST(ConvLSTM, TrainingLowersTheLoss) {
  auto in = Input({3, 5, 5, 1});
  auto h = layers::ConvLSTM2D(3, 3, {.padding = "same", .dropout = 0.1, .recurrent_dropout = 0.1, .seed = 2})(in);
  Model m(in, layers::Dense(1)(layers::Flatten()(h)));
  m.compile({.optimizer = optimizers::Adam({.learning_rate = 1e-2}), .loss = losses::MeanSquaredError()});
  const Tensor x = normal_tensor({8, 3, 5, 5, 1}, 8), y = normal_tensor({8, 1}, 9);
  const double before = m.evaluate(x, y, {.verbose = 0}).at("loss");
  m.fit(x, y, {.batch_size = 8, .epochs = 30, .verbose = 0});
  EXPECT_LT(m.evaluate(x, y, {.verbose = 0}).at("loss"), 0.5 * before);
}

// --- bad input, at definition ------------------------------------------------------------

TEST(ConvLSTM, ShapeErrorsAtDefinitionNameTheLayer) {
  clear_session();
  const auto expect_shape_error = [](const std::function<void()>& define, const std::string& says) {
    try {
      define();
      FAIL() << "expected ShapeError saying " << says;
    } catch (const ShapeError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("ConvLSTM"), std::string::npos) << m;
      EXPECT_NE(m.find(says), std::string::npos) << m;
    }
  };
  expect_shape_error([] { layers::ConvLSTM2D(2, 3)(Input({4, 5, 5})); }, "rank 5");
  expect_shape_error([] { layers::ConvLSTM2D(2, 3)(Input({4, kUnknownDim, 5, 1})); }, "known spatial");
  expect_shape_error([] { layers::ConvLSTM1D(2, 6)(Input({4, 5, 1})); }, "too small");
  expect_shape_error([] { layers::ConvLSTM3D(2, 2)(Input({4, 3, 3, 3})); }, "rank 6");
  auto x = Input({4, 5, 5, 1});
  expect_shape_error([&] { layers::ConvLSTM2D(2, 3)(std::vector<KerasTensor>{x, Input({3, 3, 2}), Input({3, 3, 3})}); },
                     "initial_state 1");
  layers::ConvLSTM2D shared(2, 3);
  shared(x);
  expect_shape_error([&] { shared(Input({4, 5, 5, 2})); }, "1 channels");
  EXPECT_THROW(layers::ConvLSTM2D(2, 3)(std::vector<KerasTensor>{x, Input({3, 3, 2})}), ValueError);  // h and c
  // Masks Keras's loop cannot apply: per position where the states are smaller than the input
  // ("valid" padding), and a number of steps that is not the input's.
  expect_shape_error([&] { layers::ConvLSTM2D(2, 3).call_with({x, Input({4, 5, 5})}, {{"mask", true}}); }, "mask");
  expect_shape_error([&] { layers::ConvLSTM2D(2, 3).call_with({x, Input({3})}, {{"mask", true}}); }, "mask");
}

// Keras refuses unroll=True over None time steps (its RNN layers and ConvLSTM alike):
// Strata's loops are the same either way, and keep Keras's rule.
TEST(ConvLSTM, UnrollOverNoneTimeStepsIsRefusedAsKeras) {
  EXPECT_THROW(layers::ConvLSTM1D(2, 3, {.unroll = true})(Input({kUnknownDim, 5, 1})), ValueError);
  EXPECT_THROW(layers::LSTM(2, {.unroll = true})(Input({kUnknownDim, 3})), ValueError);
  EXPECT_NO_THROW(layers::ConvLSTM1D(2, 3, {.unroll = true})(Input({4, 5, 1})));
  EXPECT_NO_THROW(layers::LSTM(2, {.unroll = true})(Input({4, 3})));
}

TEST(ConvLSTM, BadOptionsAreRefusedNamingTheOption) {
  EXPECT_THROW(layers::ConvLSTM2D(0, 3), ValueError);
  EXPECT_THROW(layers::ConvLSTM2D(2, 3, {.padding = "causal"}), ValueError);
  EXPECT_THROW(layers::ConvLSTM2D(2, 3, {.strides = 2, .dilation_rate = 2}), ValueError);  // as Keras
  EXPECT_THROW(layers::ConvLSTM2D(2, 3, {.dropout = 1.0}), ValueError);
  EXPECT_THROW(layers::ConvLSTM1D(2, 3, {.activation = "no_such_activation"}), ValueError);
  // Over None time steps the loop is one op, whose activations are the fused recurrent ops'.
  try {
    layers::ConvLSTM1D(2, 3, {.activation = "elu"})(Input({kUnknownDim, 5, 1}));
    FAIL() << "elu over None time steps was accepted";
  } catch (const ValueError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ConvLSTM1D"), std::string::npos) << m;
    EXPECT_NE(m.find("'elu'"), std::string::npos) << m;
    EXPECT_NE(m.find("fixed number of time steps"), std::string::npos) << m;
  }
  layers::ConvLSTM1D(2, 3, {.activation = "elu"})(Input({4, 5, 1}));  // unrolled: any activation
  try {
    layers::ConvLSTM2D(2, 3, {.stateful = true})(Input({4, 5, 5, 1}));
    FAIL() << "a stateful layer without a batch size was accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("batch_size"), std::string::npos) << e.what();
  }
}

}  // namespace conv_lstm_test
