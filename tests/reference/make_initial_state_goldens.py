#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for recurrent layers called with
initial_state=[...] in a functional model (issue #38 point 2): Keras's seq2seq shape (an
encoder LSTM's return_state into a decoder LSTM's initial_state), GRU given one bare
tensor, SimpleRNN, ConvLSTM2D and Bidirectional (its forward states, then its backward
ones) given lists, a Masking layer before a decoder given
initial states (Keras 3 then gives the layer no mask: its call has two tensor arguments),
and a mask passed as mask= with the states (applied: masked steps keep the states and
repeat the previous output, zeros before any).

Writes, in tests/data/initial_state/, for each model <name>:
  <name>.keras, <name>.h5          the model saved by Keras (seeded weights; .keras only
                                   where Keras cannot load its own .h5: KERAS_ONLY)
  <name>.input<i>.npy              its inputs
  <name>.output<i>.npy             Keras's predictions

The C++ suite (tests/io/initial_state_files_test.cc) reads these files; it never runs
Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_initial_state_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(ROOT, "tests", "data", "initial_state")
rng = np.random.default_rng(20263839)


def randn(*shape):
    return rng.standard_normal(shape).astype("float32")


def seq2seq():
    enc_in = keras.Input((5, 3), name="encoder_in")
    dec_in = keras.Input((4, 2), name="decoder_in")
    _, h, c = L.LSTM(4, return_state=True, name="encoder")(enc_in)
    dec = L.LSTM(4, return_sequences=True, name="decoder")(dec_in, initial_state=[h, c])
    y = L.Dense(3, activation="softmax", name="out")(dec)
    return keras.Model([enc_in, dec_in], y, name="seq2seq"), [randn(3, 5, 3), randn(3, 4, 2)]


def gru_bare_state():
    x = keras.Input((4, 3), name="x")
    h0 = keras.Input((5,), name="h0")
    y = L.GRU(5, return_sequences=True, return_state=True, name="gru")(x, initial_state=h0)
    return keras.Model([x, h0], y, name="gru_bare_state"), [randn(2, 4, 3), randn(2, 5)]


def simple_rnn_list_state():
    x = keras.Input((3, 2), name="x")
    h0 = keras.Input((3,), name="h0")
    y = L.SimpleRNN(3, go_backwards=True, name="simple_rnn")(x, initial_state=[h0])
    return keras.Model([x, h0], y, name="simple_rnn_list_state"), [randn(2, 3, 2), randn(2, 3)]


def conv_lstm_state():
    x = keras.Input((3, 5, 5, 2), name="frames")
    h0 = keras.Input((5, 5, 2), name="h0")
    c0 = keras.Input((5, 5, 2), name="c0")
    y = L.ConvLSTM2D(2, 3, padding="same", return_sequences=True, name="conv_lstm")(x, initial_state=[h0, c0])
    return keras.Model([x, h0, c0], y, name="conv_lstm_state"), [randn(2, 3, 5, 5, 2), randn(2, 5, 5, 2),
                                                                  randn(2, 5, 5, 2)]


def masking_then_state():
    # Keras 3 fills a call's mask from its input only when the call has one tensor
    # argument: with initial_state there are two, and the LSTM runs unmasked.
    x = keras.Input((5, 3), name="x")
    h0 = keras.Input((4,), name="h0")
    c0 = keras.Input((4,), name="c0")
    m = L.Masking(0.0, name="masking")(x)
    y = L.LSTM(4, return_sequences=True, name="lstm")(m, initial_state=[h0, c0])
    xs = randn(3, 5, 3)
    xs[0, :2] = 0
    xs[2, 4] = 0
    return keras.Model([x, h0, c0], y, name="masking_then_state"), [xs, randn(3, 4), randn(3, 4)]


def mask_argument_and_state():
    # mask= given with the states: masked steps keep h and c and output the previous
    # output, zeros before any (not the initial h).
    x = keras.Input((5, 3), name="x")
    h0 = keras.Input((4,), name="h0")
    c0 = keras.Input((4,), name="c0")
    mask = keras.ops.any(keras.ops.not_equal(x, 0.0), axis=-1)
    seq, h, c = L.LSTM(4, return_sequences=True, return_state=True, name="lstm")(x, initial_state=[h0, c0], mask=mask)
    g = L.GRU(4, name="gru")(x, initial_state=[h], mask=mask)
    xs = randn(3, 5, 3)
    xs[0, :2] = 0
    xs[1, 2] = 0
    xs[2, 4] = 0
    return keras.Model([x, h0, c0], [seq, h, c, g], name="mask_argument_and_state"), [xs, randn(3, 4), randn(3, 4)]


def bidirectional_state():
    # Bidirectional's initial_state: the forward layer's states, then the backward's.
    x = keras.Input((4, 3), name="x")
    states = [keras.Input((3,), name=n) for n in ("fh", "fc", "bh", "bc")]
    y = L.Bidirectional(L.LSTM(3, return_sequences=True, return_state=True), name="bidirectional")(
        x, initial_state=states)
    return keras.Model([x] + states, y, name="bidirectional_state"), [randn(2, 4, 3)] + [randn(2, 3) for _ in range(4)]


def bidirectional_masking_then_state():
    # As masking_then_state: two tensor arguments, so no mask from Masking reaches it.
    x = keras.Input((5, 2), name="x")
    states = [keras.Input((2,), name=n) for n in ("fh", "bh")]
    m = L.Masking(0.0, name="masking")(x)
    y = L.Bidirectional(L.GRU(2, return_sequences=True), merge_mode="sum", name="bidirectional")(
        m, initial_state=states)
    xs = randn(3, 5, 2)
    xs[0, :2] = 0
    xs[1, 4] = 0
    return keras.Model([x] + states, y, name="bidirectional_masking_then_state"), [xs, randn(3, 2), randn(3, 2)]


def masked_last_output():
    # return_sequences=False under mask= with initial states: the last processed step's
    # output, zeros for a row whose steps are all masked (not the initial h), and with
    # zero_output_for_mask zeros where the last processed step is masked; also backwards.
    x = keras.Input((4, 3), name="x")
    h0 = keras.Input((3,), name="h0")
    c0 = keras.Input((3,), name="c0")
    mask = keras.ops.any(keras.ops.not_equal(x, 0.0), axis=-1)
    a = L.LSTM(3, name="lstm")(x, initial_state=[h0, c0], mask=mask)
    b = L.GRU(3, zero_output_for_mask=True, name="gru_zero_output")(x, initial_state=[h0], mask=mask)
    c = L.SimpleRNN(3, go_backwards=True, zero_output_for_mask=True, name="simple_rnn_backwards")(
        x, initial_state=[h0], mask=mask)
    d = L.LSTM(3, go_backwards=True, name="lstm_backwards")(x, initial_state=[h0, c0], mask=mask)
    xs = randn(4, 4, 3)
    xs[0] = 0         # every step masked
    xs[1, 3] = 0      # the last step masked
    xs[2, 0] = 0      # the first step masked (the last processed backwards)
    return keras.Model([x, h0, c0], [a, b, c, d], name="masked_last_output"), [xs, randn(4, 3), randn(4, 3)]


# Keras 3.15 cannot load its own .h5 of a model with keras.ops nodes (its legacy loader
# knows no 'NotEqual' layer): that model is written as .keras only.
KERAS_ONLY = {"mask_argument_and_state", "masked_last_output"}

MODELS = [seq2seq, gru_bare_state, simple_rnn_list_state, conv_lstm_state, masking_then_state,
          mask_argument_and_state, bidirectional_state, bidirectional_masking_then_state, masked_last_output]


def main():
    keras.utils.set_random_seed(39)
    os.makedirs(OUT_DIR, exist_ok=True)
    for build in MODELS:
        keras.backend.clear_session()
        m, xs = build()
        for layer in m.layers:
            if layer.weights:
                layer.set_weights([rng.uniform(-0.6, 0.6, size=tuple(w.shape)).astype("float32")
                                   for w in layer.weights])
        base = os.path.join(OUT_DIR, m.name)
        m.save(base + ".keras")
        paths = [base + ".keras"]
        if m.name not in KERAS_ONLY:
            m.save(base + ".h5")
            paths.append(base + ".h5")
        ys = m.predict(xs, verbose=0)
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        for i, x in enumerate(xs):
            np.save("%s.input%d.npy" % (base, i), x)
        for i, y in enumerate(ys):
            np.save("%s.output%d.npy" % (base, i), np.asarray(y, "float32"))
        for path in paths:
            again = keras.saving.load_model(path).predict(xs, verbose=0)
            again = list(again) if isinstance(again, (list, tuple)) else [again]
            assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(ys, again)), path
        print(m.name, [x.shape for x in xs], "->", [np.asarray(y).shape for y in ys])


if __name__ == "__main__":
    main()
