// tf.keras 2's CuDNNLSTM / CuDNNGRU files (tests/data/cudnn, made by
// tests/reference/make_cudnn_goldens.py) load on the CPU as LSTM / GRU with the weights
// converted as Keras converts them, and predict what tf.keras's CPU twin predicts.
#include <gtest/gtest.h>

#include "io/npy.h"
#include "io/saving.h"
#include "models/model.h"
#include "tests/io/keras_test_util.h"

using namespace strata;

namespace {

std::string cudnn_dir() { return std::string(STRATA_TEST_DATA) + "/cudnn/"; }

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
