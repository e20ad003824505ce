// Options Strata once refused, against real Keras 3 (issue #38 point 2):
// tests/data/keras_options_golden.json (tests/reference/make_keras_options_goldens.py)
// holds, per case, Keras's config, inputs, weights, outputs and the gradients of
// Σ sum(output_i · projection_i): the recurrent layers and cells with use_bias=False
// (alone, in RNN, stacked and in Bidirectional), UpSampling2D's interpolating modes, Dot on
// inputs of rank above 3, Resizing's area and lanczos modes. Each layer is made from Keras's
// config and must match within 1e-5 absolute + 1e-5 relative.
#include <gtest/gtest.h>

#include "golden_json.h"
#include "layer_golden_case.h"
#include "layers/merging/dot.h"
#include "layers/preprocessing/resizing.h"
#include "layers/recurrent/gru.h"
#include "layers/recurrent/lstm.h"
#include "layers/recurrent/simple_rnn.h"
#include "layers/reshaping/upsampling.h"
#include "../io/test_util.h"

namespace strata::keras_options_golden_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("keras_options_golden.json"); }

const ordered_json& find_case(const std::string& name) {
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no golden case " + name);
}

class KerasOptionsGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(KerasOptionsGolden, MatchesKeras) { testing::expect_matches_keras_case(find_case(GetParam())); }

// The cases whose names start with one of `prefixes`, one option's family at a time.
std::vector<std::string> cases_starting_with(const std::vector<std::string>& prefixes) {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases")) {
    const std::string name = c.at("name").get<std::string>();
    for (const auto& prefix : prefixes) {
      if (name.starts_with(prefix)) names.push_back(name);
    }
  }
  return names;
}

const std::vector<std::string> kRecurrent{"simple_rnn_", "lstm_", "gru_", "rnn_", "bidirectional_"};
const std::vector<std::string> kUpSampling{"upsampling2d_"};
const std::vector<std::string> kDot{"dot_"};
const std::vector<std::string> kResizing{"resizing_"};

auto case_name = [](const auto& info) { return testing::test_name_of(info.param); };

INSTANTIATE_TEST_SUITE_P(RecurrentWithoutBias, KerasOptionsGolden, ::testing::ValuesIn(cases_starting_with(kRecurrent)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(UpSampling2DInterpolation, KerasOptionsGolden,
                         ::testing::ValuesIn(cases_starting_with(kUpSampling)), case_name);
INSTANTIATE_TEST_SUITE_P(DotHighRank, KerasOptionsGolden, ::testing::ValuesIn(cases_starting_with(kDot)), case_name);
INSTANTIATE_TEST_SUITE_P(ResizingInterpolation, KerasOptionsGolden, ::testing::ValuesIn(cases_starting_with(kResizing)),
                         case_name);

// Every golden case belongs to one family above, so none goes unrun.
TEST(KerasOptionsGoldens, EveryCaseIsRun) {
  std::size_t run = 0;
  for (const auto* family : {&kRecurrent, &kUpSampling, &kDot, &kResizing}) run += cases_starting_with(*family).size();
  EXPECT_EQ(run, goldens().at("cases").size());
}

// Without a bias Keras's cells hold two weights, and so do Strata's: nothing to train or
// save beyond the kernels.
TEST(RecurrentWithoutBias, CellsHoldOnlyTheirKernels) {
  auto x = Input({5, 3});
  layers::LSTM lstm(4, {.use_bias = false, .name = "lstm"});
  layers::GRU gru(4, {.use_bias = false, .reset_after = false, .name = "gru"});
  layers::SimpleRNN simple(4, {.use_bias = false, .name = "simple_rnn"});
  for (Layer* layer : std::vector<Layer*>{&lstm, &gru, &simple}) {
    (*layer)(x);
    std::vector<std::string> paths;
    for (const auto& w : layer->weights()) paths.push_back(w.path());
    const std::string cell = layer->impl().name + "/" + layer->impl().name + "_cell/";
    EXPECT_EQ(paths, (std::vector<std::string>{cell + "kernel", cell + "recurrent_kernel"}));
    EXPECT_EQ(layer->trainable_weights().size(), 2u);
  }
}

TEST(UpSampling2DInterpolation, UnknownModesAreRefusedByName) {
  EXPECT_THROW_WITH(layers::UpSampling2D(2, {.interpolation = "cubic", .name = "up"}), ValueError, "UpSampling2D 'up'",
                    "'cubic'");
  EXPECT_THROW_WITH(layers::Resizing(2, 2, {.interpolation = "lanczos4", .name = "resize"}), ValueError,
                    "Resizing 'resize'", "'lanczos4'");
}

// Keras lower-cases the interpolation it is given, and its config says it lower-cased.
TEST(UpSampling2DInterpolation, IsLowerCasedAsKerasDoes) {
  layers::UpSampling2D up(2, {.interpolation = "BiLinear"});
  EXPECT_EQ(static_cast<const layers::UpSamplingImpl<2>&>(up.impl()).options.interpolation, "bilinear");
}

TEST(DotHighRank, OutputShapeIsBatchDotsAndBadAxesAreRefused) {
  auto out = layers::Dot({3, 1})({Input({2, 3, 4}), Input({4, 5, 6})})[0];
  EXPECT_EQ(out.shape(), (Shape{kUnknownDim, 2, 3, 5, 6}));
  EXPECT_THROW_WITH(layers::Dot({3, 2}, {.name = "d"})({Input({2, 3, 4}), Input({4, 5, 6})}), ShapeError, "Dot 'd'",
                    "axis 3 has 4", "axis 2 has 5");
  EXPECT_THROW_WITH(layers::Dot(0, {.name = "d"})({Input({2, 3, 4}), Input({4, 5, 6})}), ValueError, "Dot 'd'",
                    "batch axis");
}

}  // namespace
}  // namespace strata::keras_options_golden_test
