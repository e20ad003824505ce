// Recurrent layers called with initial states (issue #38 point 2), against real Keras
// 3.15.1 (tests/reference/make_initial_state_goldens.py: tests/data/initial_state/):
// Keras's seq2seq shape (an encoder LSTM's states into a decoder's initial_state), GRU
// given one bare tensor, SimpleRNN, ConvLSTM2D and Bidirectional given lists, Masking
// before a layer given initial states (Keras 3 then runs it unmasked: its call has two
// tensor arguments), and mask= passed with the states (masked steps keep the states and
// repeat the previous output, zeros before any kept step, not the initial h; without
// return_sequences the last processed step's output, zeros for a row masked throughout,
// and with zero_output_for_mask zeros where that step is masked). Each file
// loads from .keras and .h5 and predicts as Keras did; Strata's own saves write Keras 3's
// initial_state=[...] and load back. Strata's own call form, the states as inputs after
// x, is written as Keras 3's keyword where no mask reaches the layer and refused where
// one does (Keras 3 would run it unmasked).
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/saving.h"
#include "keras_test_util.h"
#include "layers/core/dense.h"
#include "layers/core/embedding.h"
#include "layers/core/input_layer.h"
#include "layers/recurrent/gru.h"
#include "layers/recurrent/lstm.h"
#include "test_util.h"

namespace strata::initial_state_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/initial_state/";

// Values from -1 to 1 (step 0.1, wrapping), none zero: a Masking layer masks no step.
Tensor ramp(Shape shape) {
  Tensor t(std::move(shape));
  for (std::int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = -1.f + 0.1f * static_cast<float>(i % 21) + 0.05f;
  return t;
}

void expect_predicts(Model& model, const std::string& name, const std::string& what) {
  const auto xs = testing::load_numbered(kDir + name, "input");
  const auto ys = testing::load_numbered(kDir + name, "output");
  ASSERT_FALSE(xs.empty()) << kDir << name << ".input0.npy";
  const auto outs = model.predict(xs);
  ASSERT_EQ(outs.size(), ys.size()) << what;
  for (std::size_t i = 0; i < ys.size(); ++i) {
    testing::expect_close(outs[i], ys[i], what + " output " + std::to_string(i), 1e-5f, 1e-5f);
  }
}

std::vector<std::string> extensions_of(const std::string& name) {
  std::vector<std::string> out{".keras"};
  // No .h5 of a model with keras.ops nodes: Keras cannot reload its own, Strata writes none.
  if (std::filesystem::exists(kDir + name + ".h5")) out.push_back(".h5");
  return out;
}

class InitialStateFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(InitialStateFiles, KerasFilesPredictAsKeras) {
  for (const std::string& ext : extensions_of(GetParam())) {
    Model model = models::load_model(kDir + GetParam() + ext);
    expect_predicts(model, GetParam(), GetParam() + ext);
  }
}

TEST_P(InitialStateFiles, SavedByStrataTheyKeepTheirStatesAndPredictAgain) {
  testing::ScratchDir scratch;
  Model model = models::load_model(kDir + GetParam() + ".keras");
  for (const std::string& ext : extensions_of(GetParam())) {  // .keras alone for keras.ops nodes
    model.save(scratch.file("again" + ext));
    Model again = models::load_model(scratch.file("again" + ext));
    expect_predicts(again, GetParam(), "Strata's " + GetParam() + ext);
  }
  EXPECT_NE(model.to_json().find("\"initial_state\""), std::string::npos) << "written as Keras 3's keyword";
}

INSTANTIATE_TEST_SUITE_P(Keras3, InitialStateFiles,
                         ::testing::Values("seq2seq", "gru_bare_state", "simple_rnn_list_state", "conv_lstm_state",
                                           "masking_then_state", "mask_argument_and_state", "bidirectional_state",
                                           "bidirectional_masking_then_state", "masked_last_output"));

// The states as inputs after x (tf.keras's form, layer({x, h, c})): written as
// initial_state=[h, c], with the layer built from its sequence's shape, and read back the
// same.
TEST(InitialState, StatesGivenAsInputsAreWrittenAsKeras3sKeyword) {
  testing::ScratchDir scratch;
  auto x = Input({4, 3}), h = Input({2}), c = Input({2});
  auto y = layers::LSTM(2, {.return_sequences = true, .name = "decoder"})(std::vector<KerasTensor>{x, h, c})[0];
  Model m(std::vector<KerasTensor>{x, h, c}, {layers::Dense(1)(y)});
  const auto config = nlohmann::json::parse(m.to_json());
  bool found = false;
  for (const auto& layer : config.at("config").at("layers")) {
    if (layer.at("name") != "decoder") continue;
    found = true;
    const auto& node = layer.at("inbound_nodes").at(0);
    EXPECT_EQ(node.at("args").size(), 1u) << node.dump();
    EXPECT_EQ(node.at("kwargs").at("initial_state").size(), 2u) << node.dump();
    EXPECT_EQ(layer.at("build_config").at("input_shape"), nlohmann::json::parse("[null, 4, 3]"));
  }
  EXPECT_TRUE(found);
  const std::vector<Tensor> in{ramp({2, 4, 3}), ramp({2, 2}), ramp({2, 2})};
  const auto want = m.predict(in);
  for (const std::string ext : {".keras", ".h5"}) {
    m.save(scratch.file("m" + ext));
    Model again = models::load_model(scratch.file("m" + ext));
    testing::expect_close(again.predict(in)[0], want[0], ext, 0.f, 0.f);
  }
}

// A mask reaching a layer given its states as inputs: Strata applies it (tf.keras's rule),
// Keras 3 would not once the states are its initial_state keyword, so saving is refused
// naming the layer; given as the initial_state arguments with the mask as mask=, it saves.
TEST(InitialState, AMaskedCallWithStatesAsInputsIsRefusedWhenSaved) {
  testing::ScratchDir scratch;
  auto x = Input({4, 3}), h = Input({2}), c = Input({2});
  auto masked = layers::Masking()(x);
  auto y = layers::LSTM(2, {.name = "decoder"})(std::vector<KerasTensor>{masked, h, c})[0];
  Model m(std::vector<KerasTensor>{x, h, c}, {y});
  try {
    m.save(scratch.file("m.keras"));
    FAIL() << "saved a masked call Keras 3 would run unmasked";
  } catch (const NotImplementedError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("LSTM 'decoder'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("initial_state"), std::string::npos) << msg;
  }
  EXPECT_FALSE(std::filesystem::exists(scratch.file("m.keras")));
  // The same layer given the states as Keras 3's keyword: no mask from x (Keras 3's rule),
  // and it saves.
  auto y2 = layers::GRU(2, {.name = "gru"}).call_with({masked, h}, {{"initial_state_0", true}})[0];
  Model keyword(std::vector<KerasTensor>{x, h}, {y2});
  keyword.save(scratch.file("k.keras"));
  Model again = models::load_model(scratch.file("k.keras"));
  const std::vector<Tensor> in{ramp({2, 4, 3}), ramp({2, 2})};
  testing::expect_close(again.predict(in)[0], keyword.predict(in)[0], "keyword form", 0.f, 0.f);
}

TEST(InitialState, PartOfTheKeywordsListIsRefused) {
  auto x = Input({4, 3}), h = Input({2});
  try {
    layers::LSTM(2).call_with({x, h}, {{"initial_state_0", true}});
    FAIL() << "an LSTM took one of its two states";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("initial_state needs all 2 states"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace strata::initial_state_files_test
