// tf.keras's CuDNNLSTM and CuDNNGRU layers (Keras 2 GPU-only classes) save their weights
// in cuDNN's layout: each gate's input kernel in cuDNN's element order, and an input and
// a recurrent bias per gate. Keras loads such files into LSTM / GRU(reset_after=True)
// layers by converting the weights on the way in (its legacy loader's
// _convert_rnn_weights); so does Strata.
#pragma once

#include <vector>

#include "core/tensor.h"

namespace strata::io {

// For each (kernel, recurrent_kernel, bias) triple of `values` (a layer's weights as a
// file holds them) that is in cuDNN's layout where the layer's own `shapes` are LSTM's
// or GRU's, rewrites it in place; other weights are left alone. Returns the number of
// triples converted.
int convert_cudnn_weights(std::vector<Tensor>& values, const std::vector<Shape>& shapes);

}  // namespace strata::io
