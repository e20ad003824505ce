// tf.keras 2's CuDNNLSTM / CuDNNGRU files (tests/data/cudnn, made by
// tests/reference/make_cudnn_goldens.py) load on the CPU as LSTM / GRU with the weights
// converted as Keras converts them, and predict what tf.keras's CPU twin predicts.
#include <gtest/gtest.h>

#include "core/error.h"
#include "io/layer_config.h"
#include "io/npy.h"
#include "io/saving.h"
#include "models/model.h"
#include "tests/io/keras_test_util.h"

using namespace strata;

namespace cudnn_files_test {

namespace {

std::string cudnn_dir() { return STRATA_TEST_DATA "/cudnn/"; }

TEST(CuDNNFiles, LstmAndGruLoadAsTheirCpuTwins) {
  Model model = models::load_model(cudnn_dir() + "cudnn_lstm_gru.h5");
  std::vector<std::string> classes;
  for (const Layer& l : model.layers()) classes.push_back(l.class_name());
  EXPECT_EQ(classes, (std::vector<std::string>{"LSTM", "GRU", "Dense"}));
  strata::testing::expect_close(model.predict(io::load_npy(cudnn_dir() + "cudnn_lstm_gru.input0.npy")),
                                io::load_npy(cudnn_dir() + "cudnn_lstm_gru.output0.npy"), "cudnn_lstm_gru");
}

TEST(CuDNNFiles, BidirectionalCuDNNLstmConvertsBothDirections) {
  Model model = models::load_model(cudnn_dir() + "cudnn_bidirectional.h5");
  strata::testing::expect_close(model.predict(io::load_npy(cudnn_dir() + "cudnn_bidirectional.input0.npy")),
                                io::load_npy(cudnn_dir() + "cudnn_bidirectional.output0.npy"),
                                "cudnn_bidirectional");
}

}  // namespace

namespace {

// A CuDNN layer's config key Strata does not read, or a regularizer it would drop, is
// refused naming the layer, the key and the value (issue #38, "nothing silent").
TEST(CuDNNFiles, KeysNotReadAreRefusedByName) {
  const nlohmann::ordered_json base = {{"name", "cu"}, {"units", 3}, {"return_sequences", false}};
  auto refusal = [&](const char* cls, const nlohmann::ordered_json& extra) -> std::string {
    nlohmann::ordered_json config = base;
    config.update(extra);
    try {
      io::layer_from_config({{"class_name", cls}, {"config", config}}, {});
    } catch (const NotImplementedError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(refusal("CuDNNLSTM", {{"kernel_regularizer", nullptr}, {"unit_forget_bias", true}}), "");
  const std::string unknown = refusal("CuDNNGRU", {{"reset_after", false}});
  EXPECT_NE(unknown.find("'reset_after' = false is not one Strata reads"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("cu"), std::string::npos) << unknown;
  EXPECT_NE(refusal("CuDNNGRU", {{"unit_forget_bias", true}}).find("'unit_forget_bias'"), std::string::npos);
  const std::string regularized =
      refusal("CuDNNLSTM", {{"kernel_regularizer", {{"class_name", "L2"}, {"config", {{"l2", 0.01}}}}}});
  EXPECT_NE(regularized.find("'kernel_regularizer' = {"), std::string::npos) << regularized;
}

}  // namespace

}  // namespace cudnn_files_test
