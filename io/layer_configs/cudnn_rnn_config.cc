// CuDNNLSTM / CuDNNGRU (tf.keras 2's GPU-only recurrent layers) <-> LSTM / GRU. Keras
// loads their files on a CPU into the equivalent LSTM (tanh, sigmoid) and
// GRU(reset_after=True), converting the weights (io/cudnn_weights.h); Strata builds
// those layers here, so a loaded model saves back as LSTM / GRU.
#include <set>

#include "core/error.h"
#include "io/keras_class_config.h"
#include "io/layer_config.h"
#include "layers/recurrent/gru.h"
#include "layers/recurrent/lstm.h"
#include "layers/recurrent/rnn.h"
#include "layers/recurrent/simple_rnn.h"

namespace strata::io {
namespace {

// The keys tf.keras writes for the two classes; any other is refused naming it, as for
// every described class (io/keras_class_config.cc), and so are regularizers and
// constraints set (Strata's LSTM and GRU would have them, but these files are read only
// for inference-equivalent twins, and nothing here converts them).
void check_keys(const json& c, const std::string& where, bool lstm) {
  static const std::set<std::string> kRead{"units",            "kernel_initializer", "recurrent_initializer",
                                           "bias_initializer", "return_sequences",   "return_state",
                                           "go_backwards",     "stateful",           "time_major"};
  static const std::set<std::string> kNullOnly{"kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
                                               "kernel_constraint",  "recurrent_constraint",  "bias_constraint"};
  for (auto it = c.begin(); it != c.end(); ++it) {
    const std::string& key = it.key();
    if (read_for_every_layer(key) || kRead.count(key) || (lstm && key == "unit_forget_bias")) continue;
    if (kNullOnly.count(key)) {
      if (!it.value().is_null()) {
        throw NotImplementedError(where + ": '" + key + "' = " + it.value().dump() + " is not supported");
      }
      continue;
    }
    throw NotImplementedError(where + ": config key '" + key + "' = " + it.value().dump() +
                              " is not one Strata reads for this class");
  }
}

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
  check_keys(c, where, true);
  auto o = common_options<layers::LSTMOptions>(c, where);
  o.unit_forget_bias = c.value("unit_forget_bias", true);
  return layers::LSTM(positive_int(c, "units", where), o);
}

Layer gru_from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("CuDNNGRU", c);
  check_keys(c, where, false);
  auto o = common_options<layers::GRUOptions>(c, where);
  o.reset_after = true;  // cuDNN's GRU applies the reset gate after the matrix product
  return layers::GRU(positive_int(c, "units", where), o);
}

json never_written(const LayerImpl&) {
  throw NotImplementedError("CuDNNLSTM / CuDNNGRU are read as LSTM / GRU and never written");
}

const bool cudnn_rnn_config_registered = [] {
  register_layer_config({"CuDNNLSTM", "keras.layers", never_written, lstm_from_config, nullptr});
  register_layer_config({"CuDNNGRU", "keras.layers", never_written, gru_from_config, nullptr});
  return true;
}();

}  // namespace
}  // namespace strata::io
