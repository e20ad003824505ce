// CuDNNLSTM / CuDNNGRU (tf.keras 2's GPU-only recurrent layers) <-> LSTM / GRU. Keras
// loads their files on a CPU into the equivalent LSTM (tanh, sigmoid) and
// GRU(reset_after=True), converting the weights (io/cudnn_weights.h); Strata builds
// those layers here, so a loaded model saves back as LSTM / GRU.
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/recurrent/gru.h"
#include "layers/recurrent/lstm.h"
#include "layers/recurrent/rnn.h"
#include "layers/recurrent/simple_rnn.h"

namespace strata::io {
namespace {

template <typename Options>
Options common_options(const json& c, const std::string& where) {
  if (c.value("time_major", false))
    throw NotImplementedError(where + ": time_major=True is not supported");
  Options o;
  o.name = c.value("name", "");
  o.return_sequences = c.value("return_sequences", false);
  o.return_state = c.value("return_state", false);
  o.go_backwards = c.value("go_backwards", false);
  o.stateful = c.value("stateful", false);
  for (auto [key, member] : {std::pair{"kernel_initializer", &Options::kernel_initializer},
                             std::pair{"recurrent_initializer", &Options::recurrent_initializer},
                             std::pair{"bias_initializer", &Options::bias_initializer}}) {
    if (c.contains(key) && !c[key].is_null()) o.*member = initializer_from_config(c[key], where);
  }
  return o;
}

Layer lstm_from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("CuDNNLSTM", c);
  auto o = common_options<layers::LSTMOptions>(c, where);
  o.unit_forget_bias = c.value("unit_forget_bias", true);
  return layers::LSTM(positive_int(c, "units", where), o);
}

Layer gru_from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("CuDNNGRU", c);
  auto o = common_options<layers::GRUOptions>(c, where);
  o.reset_after = true;  // cuDNN's GRU applies the reset gate after the matrix product
  return layers::GRU(positive_int(c, "units", where), o);
}

json never_written(const LayerImpl&) {
  throw NotImplementedError("CuDNNLSTM / CuDNNGRU are read as LSTM / GRU and never written");
}

const bool registered = [] {
  register_layer_config({"CuDNNLSTM", "keras.layers", never_written, lstm_from_config, nullptr});
  register_layer_config({"CuDNNGRU", "keras.layers", never_written, gru_from_config, nullptr});
  return true;
}();

}  // namespace
}  // namespace strata::io
