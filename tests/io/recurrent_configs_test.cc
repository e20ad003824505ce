// The recurrent layers' config units (io/layer_configs/rnn_config.cc, bidirectional_config.cc,
// embedding_config.cc, time_distributed_config.cc): to_json -> model_from_json and
// save -> load give the same model and predictions; Keras 2 configs read as Keras 2 computed;
// Keras 3 variable paths are Keras's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/hdf5.h"
#include "io/layer_config.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "layers/core/dense.h"
#include "layers/core/embedding.h"
#include "layers/core/input_layer.h"
#include "layers/recurrent/bidirectional.h"
#include "layers/recurrent/gru.h"
#include "layers/recurrent/lstm.h"
#include "layers/recurrent/rnn.h"
#include "layers/recurrent/simple_rnn.h"
#include "layers/recurrent/time_distributed.h"
#include "models/compiled_model.h"
#include "models/sequential.h"
#include "test_util.h"

namespace strata::recurrent_configs_test {
namespace {

Tensor ramp(Shape shape, float scale = 0.05f) {
  Tensor t(shape);
  auto v = t.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(i % 23) - 0.5f;
  return t;
}

// Token ids in [0, vocab), with zero padding at the start of every other row.
Tensor tokens(std::int64_t batch, std::int64_t steps, std::int64_t vocab) {
  Tensor t(Shape{batch, steps});
  auto v = t.values<float>();
  for (std::int64_t b = 0; b < batch; ++b) {
    for (std::int64_t s = 0; s < steps; ++s) {
      const bool pad = b % 2 == 1 && s < 2;
      v[static_cast<std::size_t>(b * steps + s)] =
          pad ? 0.f : static_cast<float>(1 + (b * 7 + s * 3) % (vocab - 1));
    }
  }
  return t;
}

// Embedding(mask_zero) -> Bidirectional(LSTM, sequences) -> TimeDistributed(Dense) ->
// Bidirectional(GRU reset_after=False, sum) -> RepeatVector -> SimpleRNN.
Model text_model() {
  auto x = Input({6}, {.name = "ids"});
  auto e = layers::Embedding(20, 5, {.mask_zero = true, .name = "embed"})(x);
  // Not hard_sigmoid: its Keras 2 and Keras 3 definitions share the name, and Strata's .h5
  // says Keras 2 (see RealKerasFilesRoundTripThroughStrataFiles for the other direction).
  auto b1 = layers::Bidirectional(
      layers::LSTM(4,
                   {.recurrent_activation = "sigmoid", .return_sequences = true, .name = "lstm"}),
      {.name = "bi_lstm"})(e);
  auto td = layers::TimeDistributed(layers::Dense(3, {.activation = "tanh", .name = "proj"}),
                                    {.name = "td"})(b1);
  auto b2 = layers::Bidirectional(layers::GRU(3, {.reset_after = false, .name = "gru"}),
                                  {.merge_mode = "sum", .name = "bi_gru"})(td);
  auto r = layers::RepeatVector(2, {.name = "repeat"})(b2);
  auto y =
      layers::SimpleRNN(2, {.activation = "relu", .return_sequences = true, .name = "srnn"})(r);
  return Model(x, y, {.name = "text"});
}

// Masking -> GRU (reset_after) -> generic RNN over stacked LSTMCell/GRUCell -> Dense.
Model sequence_model() {
  return Sequential({Input({5, 3}), layers::Masking({.mask_value = 0.0, .name = "mask"}),
                     layers::GRU(4, {.return_sequences = true, .name = "gru"}),
                     layers::RNN(std::vector<Layer>{layers::LSTMCell(3),
                                                    layers::GRUCell(2, {.reset_after = false})},
                                 {.go_backwards = true, .name = "stacked"}),
                     layers::Dense(1, {.name = "out"})},
                    {.name = "seq"});
}

Tensor masked_sequences() {
  Tensor x = ramp({4, 5, 3}, 0.07f);
  auto v = x.values<float>();
  for (int f = 0; f < 3; ++f)
    v[static_cast<std::size_t>(1 * 15 + 4 * 3 + f)] = 0.f;  // sample 1, last step masked
  return x;
}

void expect_same_predictions(Model& a, Model& b, const Tensor& x) {
  auto p = a.predict(std::vector<Tensor>{x}), q = b.predict(std::vector<Tensor>{x});
  ASSERT_EQ(p.size(), q.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    testing::expect_close(q[i], p[i], "output " + std::to_string(i), 0, 0);
}

struct Case {
  Model (*make)();
  Tensor (*input)();
};

Tensor text_input() { return tokens(4, 6, 20); }

class RecurrentConfig : public ::testing::TestWithParam<int> {
 protected:
  Case get() const {
    return GetParam() == 0 ? Case{text_model, text_input} : Case{sequence_model, masked_sequences};
  }
};

TEST_P(RecurrentConfig, JsonRoundTripGivesTheSameModelAndPredictions) {
  Model m = get().make();
  Model again = models::model_from_json(m.to_json());
  EXPECT_EQ(again.to_json(), m.to_json());
  again.set_weights(m.get_weights());
  expect_same_predictions(m, again, get().input());
}

TEST_P(RecurrentConfig, Keras2DialectRoundTrips) {
  Model m = get().make();
  const io::json k2 = io::model_to_config(m, io::ConfigDialect::keras2);
  Model again = io::model_from_config(k2, {.keras_major = 3});
  EXPECT_EQ(again.to_json(), m.to_json());
  again.set_weights(m.get_weights());
  expect_same_predictions(m, again, get().input());
}

TEST_P(RecurrentConfig, SaveAndLoadBothFormatsGiveTheSamePredictions) {
  for (const std::string ext : {".keras", ".h5"}) {
    SCOPED_TRACE(ext);
    testing::ScratchDir dir;
    Model m = get().make();
    m.save(dir.file("m" + ext));
    Model again = models::load_model(dir.file("m" + ext));
    EXPECT_EQ(again.to_json(), m.to_json());
    expect_same_predictions(m, again, get().input());
  }
}

INSTANTIATE_TEST_SUITE_P(Models, RecurrentConfig, ::testing::Values(0, 1));

TEST(RecurrentConfig, KerasFileKeepsRnnVariablesOnTheCells) {
  testing::ScratchDir dir;
  Model m = text_model();
  m.save(dir.file("m.keras"));
  testing::write_bytes(dir.file("w.h5"),
                       io::ZipReader(dir.file("m.keras")).read("model.weights.h5"));
  io::h5::File w(dir.file("w.h5"), io::h5::File::Mode::read);
  for (const char* path :
       {"layers/embedding/vars/0", "layers/bidirectional/forward_layer/cell/vars/0",
        "layers/bidirectional/forward_layer/cell/vars/2",
        "layers/bidirectional/backward_layer/cell/vars/1", "layers/time_distributed/layer/vars/1",
        "layers/bidirectional_1/backward_layer/cell/vars/2", "layers/simple_rnn/cell/vars/0"}) {
    EXPECT_TRUE(w.has_dataset(path)) << path;
  }
  // GRU(reset_after=False) keeps a (3u,) bias.
  EXPECT_EQ(w.open_dataset("layers/bidirectional_1/forward_layer/cell/vars/2").shape(), (Shape{9}));
  Model s = sequence_model();
  s.save(dir.file("s.keras"));
  testing::write_bytes(dir.file("s.h5"),
                       io::ZipReader(dir.file("s.keras")).read("model.weights.h5"));
  io::h5::File sw(dir.file("s.h5"), io::h5::File::Mode::read);
  EXPECT_EQ(sw.open_dataset("layers/gru/cell/vars/2").shape(), (Shape{2, 12}));
  EXPECT_TRUE(sw.has_dataset("layers/rnn/cell/cells/lstm_cell/vars/0"));
  EXPECT_EQ(sw.open_dataset("layers/rnn/cell/cells/gru_cell/vars/2").shape(), (Shape{6}));
}

TEST(RecurrentConfig, Keras3ConfigKeysAreKeras) {
  Model m = text_model();
  const io::json c = io::json::parse(m.to_json());
  const io::json& layers = c["config"]["layers"];
  const io::json& bi = layers[2]["config"];
  EXPECT_EQ(bi["layer"]["class_name"], "LSTM");
  EXPECT_EQ(bi["layer"]["config"]["name"], "forward_lstm");
  EXPECT_EQ(bi["backward_layer"]["config"]["name"], "backward_lstm");
  EXPECT_EQ(bi["backward_layer"]["config"]["go_backwards"], true);
  EXPECT_EQ(bi["merge_mode"], "concat");
  EXPECT_EQ(layers[1]["config"]["mask_zero"], true);
  EXPECT_EQ(layers[3]["config"]["layer"]["class_name"], "Dense");
  EXPECT_EQ(layers[4]["config"]["layer"]["config"]["reset_after"], false);
  EXPECT_EQ(layers[5]["config"]["n"], 2);
}

// A Keras 2.0-era GRU entry: no reset_after (it computed reset_after=False), hard_sigmoid
// (Keras 2's 0.2x + 0.5), implementation and time_major keys.
io::json keras2_gru_entry(bool with_reset_after_key) {
  io::json c = {{"name", "gru_1"},         {"units", 3},
                {"activation", "tanh"},    {"recurrent_activation", "hard_sigmoid"},
                {"use_bias", true},        {"return_sequences", false},
                {"go_backwards", false},   {"stateful", false},
                {"unroll", false},         {"implementation", 0},
                {"time_major", false},     {"dropout", 0.2},
                {"recurrent_dropout", 0.2}};
  if (with_reset_after_key) c["reset_after"] = true;
  return {{"class_name", "GRU"}, {"config", c}};
}

TEST(RecurrentConfig, Keras2GruWithoutResetAfterIsResetAfterFalseWithKeras2HardSigmoid) {
  Layer l = io::layer_from_config(keras2_gru_entry(false), {.keras_major = 2});
  const auto& cell = *static_cast<const layers::RNNImpl&>(l.impl()).cells[0];
  EXPECT_FALSE(cell.config.reset_after);
  EXPECT_EQ(cell.config.recurrent_activation, "hard_sigmoid_keras2");
  Layer k3 = io::layer_from_config(keras2_gru_entry(false), {.keras_major = 3});
  const auto& cell3 = *static_cast<const layers::RNNImpl&>(k3.impl()).cells[0];
  EXPECT_TRUE(cell3.config.reset_after);
  EXPECT_EQ(cell3.config.recurrent_activation, "hard_sigmoid");
  Layer explicit_key = io::layer_from_config(keras2_gru_entry(true), {.keras_major = 2});
  EXPECT_TRUE(
      static_cast<const layers::RNNImpl&>(explicit_key.impl()).cells[0]->config.reset_after);
}

TEST(RecurrentConfig, UnsupportedOptionsAreRefusedByName) {
  io::json e = keras2_gru_entry(false);
  e["config"]["time_major"] = true;
  EXPECT_THROW_WITH(io::layer_from_config(e, {.keras_major = 2}), NotImplementedError,
                    "GRU 'gru_1'", "time_major");
  io::json b = {{"class_name", "Bidirectional"},
                {"config",
                 {{"name", "bi"},
                  {"layer", keras2_gru_entry(false)},
                  {"backward_layer",
                   {{"class_name", "GRU"},
                    {"config", {{"name", "other"}, {"units", 7}, {"go_backwards", true}}}}}}}};
  EXPECT_THROW_WITH(io::layer_from_config(b, {.keras_major = 2}), NotImplementedError,
                    "Bidirectional 'bi'", "backward_layer");
  io::json rnn = {
      {"class_name", "RNN"},
      {"config", {{"name", "r"}, {"cell", {{"class_name", "Dense"}, {"config", {{"units", 2}}}}}}}};
  EXPECT_THROW_WITH(io::layer_from_config(rnn, {}), NotImplementedError, "RNN 'r'", "Dense");
}

// In the .h5 dialect (tf.keras's) a wrapper's inner layer keeps its module, as tf.keras
// 2.21 writes it: Keras 3 builds Bidirectional's inner layer with its new deserializer,
// which without it did not find the class ("Could not locate class 'GRU'"), so Keras 3
// loaded no Bidirectional model Strata saved as .h5. The top-level layers stay without.
TEST(RecurrentConfig, AWrappersInnerLayerKeepsItsModuleInTheH5Dialect) {
  Model m = Sequential({Input({5, 3}), layers::Bidirectional(layers::GRU(4)), layers::Dense(2)});
  const io::json c = io::model_to_config(m, io::ConfigDialect::keras2);
  const io::json& bidirectional = c["config"]["layers"][1];
  ASSERT_EQ(bidirectional["class_name"], "Bidirectional");
  EXPECT_FALSE(bidirectional.contains("module"));
  const io::json& inner = bidirectional["config"]["layer"];
  EXPECT_EQ(inner["class_name"], "GRU");
  EXPECT_EQ(inner["module"], "keras.layers");
  EXPECT_TRUE(inner.contains("registered_name") && inner["registered_name"].is_null());
  EXPECT_FALSE(inner["config"].contains("module"));
  // And Strata reads it back.
  EXPECT_NO_THROW(io::model_from_config(c, {.keras_major = 2}));
}

TEST(RecurrentConfig, EmbeddingIgnoresKeras2InputLength) {
  io::json e = {{"class_name", "Embedding"},
                {"config",
                 {{"name", "embedding_1"},
                  {"input_dim", 10},
                  {"output_dim", 4},
                  {"input_length", 7},
                  {"mask_zero", true},
                  {"batch_input_shape", {nullptr, 7}},
                  {"dtype", "int32"}}}};
  Layer l = io::layer_from_config(e, {.keras_major = 2});
  const auto& emb = static_cast<const layers::EmbeddingImpl&>(l.impl());
  EXPECT_EQ(emb.input_dim, 10);
  EXPECT_EQ(emb.output_dim, 4);
  EXPECT_TRUE(emb.options.mask_zero);
}

// The real Keras files with recurrent layers, saved again by Strata, load back the same.
TEST(RecurrentConfig, RealKerasFilesRoundTripThroughStrataFiles) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  for (const std::string id :
       {"bigru_tf27", "gru_embed_k204", "lstm_stacked_k224", "lstm_stacked_k341_zip"}) {
    SCOPED_TRACE(id);
    const auto golden = testing::real_goldens_dir() + "/" + id;
    const std::string ext = id.ends_with("_zip") ? ".keras" : ".h5";
    Model m = models::load_model(testing::real_models_dir() + "/" + id + ext);
    testing::ScratchDir dir;
    // Keras 2's hard_sigmoid (both Keras 2.0-2.2 files) has no Keras 3 name: a .keras file
    // would be read back with Keras 3's hard_sigmoid; .h5 (the Keras 2 layout) keeps it.
    const bool keras2_hard_sigmoid = id == "lstm_stacked_k224" || id == "gru_embed_k204";
    for (const std::string out : {".h5", ".keras"}) {
      if (out == ".keras" && keras2_hard_sigmoid) continue;
      m.save(dir.file("again" + out));
      Model again = models::load_model(dir.file("again" + out));
      expect_same_predictions(m, again, testing::load_numbered(golden, "input")[0]);
    }
  }
}

TEST(RecurrentConfig, Keras3ZipOptimizerStateOfAnLstmModelIsRestored) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  // Keras orders optimizer slots by trainable variables, which for an RNN live on its cell.
  const std::string path = testing::real_models_dir() + "/lstm_stacked_k341_zip.keras";
  Model m = models::load_model(path);
  ASSERT_TRUE(m.compiled());
  const optimizers::Optimizer& opt = m.model().compiled->optimizer();
  testing::ScratchDir dir;
  testing::write_bytes(dir.file("w.h5"), io::ZipReader(path).read("model.weights.h5"));
  io::h5::File w(dir.file("w.h5"), io::h5::File::Mode::read);
  const auto vars = opt.variables();
  ASSERT_EQ(w.open_group("optimizer/vars").children().size(), vars.size());
  EXPECT_GT(opt.iterations(), 0);
  for (std::size_t i = 2; i < vars.size(); ++i) {
    Tensor stored = w.open_dataset("optimizer/vars/" + std::to_string(i)).read(DType::float32);
    EXPECT_EQ(stored.to_vector<float>(), vars[i].value().to_vector<float>()) << vars[i].path();
  }
}

}  // namespace
}  // namespace strata::recurrent_configs_test
