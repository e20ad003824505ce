// Models whose inputs have None spatial or time dimensions, saved by real Keras 3
// (tests/reference/make_unknown_dims_goldens.py: tests/data/unknown_dims/): fully
// convolutional 1-D, 2-D and 3-D models (conv, pooling and global pooling with "same"
// pads over strides, UpSampling, ZeroPadding, Cropping, BatchNormalization, Dense on the
// last axis, Add and Concatenate), recurrent layers over None time steps (LSTM,
// Bidirectional GRU and LSTM, SimpleRNN, Embedding with None length), Reshape with -1,
// Flatten after a None dim, GroupNormalization, UpSampling2D's interpolating modes and
// Resizing (every interpolation, crop_to_aspect_ratio), TimeDistributed over None time
// steps wrapping layers over None rows and columns, ConvLSTM2D and ConvLSTM1D over None time
// steps (a next-frame model as Keras's example builds it). Each loads from .keras and .h5,
// predicts two sizes in one session (the Program compiled once, shapes inferred per fed
// size) as Keras did, saves and loads again, and the trainable ones fit on one size as
// Keras fitted and then predict the other as the fitted Keras model did.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "io/npy.h"
#include "keras_test_util.h"
#include "optimizers/optimizers.h"
#include "test_util.h"

namespace strata::unknown_dims_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/unknown_dims/";

// Keras's float32 results: |a - e| <= 1e-5 + 1e-5 |e|.
void expect_predicts(Model& model, const std::string& base, const std::string& what) {
  const auto xs = testing::load_numbered(base, "input");
  const auto ys = testing::load_numbered(base, "output");
  ASSERT_FALSE(xs.empty()) << "no " << base << ".input0.npy";
  const auto outs = model.predict(xs);
  ASSERT_EQ(outs.size(), ys.size()) << what;
  for (std::size_t i = 0; i < ys.size(); ++i) {
    testing::expect_close(outs[i], ys[i], what + " output " + std::to_string(i), 1e-5f, 1e-5f);
  }
}

bool has_unknown_non_batch_dim(const Model& model) {
  for (const auto& in : model.inputs()) {
    const auto& dims = in.shape().dims();
    for (std::size_t i = 1; i < dims.size(); ++i) {
      if (dims[i] == kUnknownDim) return true;
    }
  }
  return false;
}

// Size 0, size 1, then size 0 again, compiled once: the second size neither adds graph
// nodes nor disturbs the first.
void expect_predicts_both_sizes(Model& model, const std::string& name, const std::string& what) {
  EXPECT_TRUE(has_unknown_non_batch_dim(model)) << what << ": the inputs should have a None dim";
  model.compile({.optimizer = optimizers::SGD(), .loss = "mse"});
  expect_predicts(model, kDir + name + ".size0", what + " size 0");
  const int nodes = model.graph().num_nodes();
  expect_predicts(model, kDir + name + ".size1", what + " size 1");
  expect_predicts(model, kDir + name + ".size0", what + " size 0 again");
  EXPECT_EQ(model.graph().num_nodes(), nodes) << what << ": a new size added graph nodes";
}

class UnknownDimsFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(UnknownDimsFiles, KerasFilesPredictTwoSizesInOneSession) {
  for (const std::string ext : {".keras", ".h5"}) {
    Model model = models::load_model(kDir + GetParam() + ext);
    expect_predicts_both_sizes(model, GetParam(), GetParam() + ext);
  }
}

TEST_P(UnknownDimsFiles, SavedByStrataTheyComeBackWithTheirNoneDims) {
  testing::ScratchDir scratch;
  Model model = models::load_model(kDir + GetParam() + ".keras");
  for (const std::string ext : {".keras", ".h5"}) {
    model.save(scratch.file("again" + ext));
    Model again = models::load_model(scratch.file("again" + ext));
    expect_predicts_both_sizes(again, GetParam(), "Strata's " + GetParam() + ext);
  }
}

INSTANTIATE_TEST_SUITE_P(Keras3, UnknownDimsFiles,
                         ::testing::Values("fcn_image", "fcn_classifier", "fcn_1d", "fcn_3d", "recurrent",
                                           "embedding_recurrent", "reshape_minus_one", "flatten_unknown",
                                           "group_norm_unknown", "transpose_2d", "transpose_1d", "transpose_3d",
                                           "upsampling_interpolated", "resizing_unknown", "time_distributed_unknown",
                                           "conv_lstm_next_frame", "conv_lstm_1d_last"));

class UnknownDimsTraining : public ::testing::TestWithParam<std::string> {};

// As the generator fitted Keras's model: SGD(0.05), mean squared error, one batch of
// size 0 for three epochs; then size 1 predicted by the fitted model.
TEST_P(UnknownDimsTraining, FitsOnOneSizeAsKerasDidThenPredictsAnother) {
  const std::string base = kDir + GetParam();
  std::ifstream in(base + ".fit.json");
  ASSERT_TRUE(in) << base << ".fit.json";
  const auto keras_loss = nlohmann::json::parse(in).at("loss").get<std::vector<double>>();
  const Tensor x = io::load_npy(base + ".fit.input0.npy"), y = io::load_npy(base + ".fit.target0.npy");
  for (const std::string ext : {".keras", ".h5"}) {
    Model model = models::load_model(base + ext);
    model.compile({.optimizer = optimizers::SGD({.learning_rate = 0.05}), .loss = "mse"});
    History history = model.fit({x}, {y}, {.batch_size = x.shape()[0], .epochs = 3, .verbose = 0, .shuffle = false});
    const auto& loss = history.history.at("loss");
    ASSERT_EQ(loss.size(), keras_loss.size()) << ext;
    for (std::size_t e = 0; e < loss.size(); ++e) {
      EXPECT_NEAR(loss[e], keras_loss[e], 1e-6 + 1e-5 * std::fabs(keras_loss[e])) << GetParam() << ext << " epoch "
                                                                                    << e;
    }
    expect_predicts(model, base + ".trained", GetParam() + ext + " fitted");
  }
}

INSTANTIATE_TEST_SUITE_P(Keras3, UnknownDimsTraining,
                         ::testing::Values("fcn_classifier", "fcn_1d", "fcn_3d", "recurrent", "embedding_recurrent",
                                           "reshape_minus_one", "transpose_2d", "transpose_1d", "transpose_3d",
                                           "upsampling_interpolated", "resizing_unknown", "time_distributed_unknown",
                                           "conv_lstm_next_frame", "conv_lstm_1d_last"));

// TextVectorization's int mode without output_sequence_length (text_ragged.json: strings
// do not go in .npy files): each batch's rows padded to its longest, as Keras's tokens-only
// model gave them, then Embedding, LSTM and Dense as Keras's whole model predicted; one
// session for batches of different longest rows, then the fit and the fitted prediction.
Tensor text_ragged_batch(const nlohmann::json& strings) {
  const auto rows = strings.get<std::vector<std::string>>();
  return Tensor::from_strings({static_cast<std::int64_t>(rows.size()), 1}, rows);
}

void expect_text_ragged_output(const Tensor& got, const nlohmann::json& want, const std::string& what) {
  ASSERT_EQ(got.shape(), Shape(want.at("output_shape").get<std::vector<std::int64_t>>())) << what;
  const auto values = want.at("output").get<std::vector<float>>();
  testing::expect_close(got, Tensor::from_vector<float>(got.shape(), values), what, 1e-5f, 1e-5f);
}

TEST(UnknownDimsText, IntVectorizationPadsEachBatchToItsLongestRowAsKeras) {
  std::ifstream in(kDir + "text_ragged.json");
  ASSERT_TRUE(in) << kDir << "text_ragged.json";
  const auto golden = nlohmann::json::parse(in);
  Model tokens = models::load_model(kDir + "text_ragged_tokens.keras");
  for (const auto& batch : golden.at("batches")) {
    const Tensor ids = tokens.predict(text_ragged_batch(batch.at("input")));
    const auto want = batch.at("tokens").get<std::vector<std::vector<std::int64_t>>>();
    ASSERT_EQ(ids.shape(), (Shape{static_cast<std::int64_t>(want.size()), static_cast<std::int64_t>(want[0].size())}));
    std::vector<std::int64_t> flat;
    for (const auto& row : want) flat.insert(flat.end(), row.begin(), row.end());
    EXPECT_EQ(ids.to_vector<std::int64_t>(), flat);
  }
  for (const std::string ext : {".keras", ".h5"}) {
    Model model = models::load_model(kDir + "text_ragged" + ext);
    model.compile({.optimizer = optimizers::SGD({.learning_rate = 0.05}), .loss = "mse"});
    const auto& batches = golden.at("batches");
    expect_text_ragged_output(model.predict(text_ragged_batch(batches[0].at("input"))), batches[0], ext + " batch 0");
    const int nodes = model.graph().num_nodes();
    expect_text_ragged_output(model.predict(text_ragged_batch(batches[1].at("input"))), batches[1], ext + " batch 1");
    expect_text_ragged_output(model.predict(text_ragged_batch(batches[0].at("input"))), batches[0],
                              ext + " batch 0 again");
    EXPECT_EQ(model.graph().num_nodes(), nodes) << ext << ": a new length added graph nodes";

    const auto& fit = golden.at("fit");
    const Tensor x = text_ragged_batch(fit.at("input"));
    const Tensor y = Tensor::from_vector<float>({x.shape()[0], 2}, fit.at("target").get<std::vector<float>>());
    History history = model.fit({x}, {y}, {.batch_size = x.shape()[0], .epochs = 3, .verbose = 0, .shuffle = false});
    const auto keras_loss = fit.at("loss").get<std::vector<double>>();
    const auto& loss = history.history.at("loss");
    ASSERT_EQ(loss.size(), keras_loss.size()) << ext;
    for (std::size_t e = 0; e < loss.size(); ++e) {
      EXPECT_NEAR(loss[e], keras_loss[e], 1e-6 + 1e-5 * std::fabs(keras_loss[e])) << ext << " epoch " << e;
    }
    const auto& trained = golden.at("trained");
    expect_text_ragged_output(model.predict(text_ragged_batch(trained.at("input"))), trained, ext + " fitted");
  }
}

}  // namespace
}  // namespace strata::unknown_dims_files_test
