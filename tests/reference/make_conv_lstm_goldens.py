#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for ConvLSTM1D, ConvLSTM2D and
ConvLSTM3D (issue #38 point 2).

Writes
  tests/data/conv_lstm_golden.json   cases in the form tests/layers/layer_golden_case.h reads
                                     (config, inputs, weights, outputs, projections, gradients
                                     of sum(output * projection) w.r.t. every input and
                                     trainable weight), one per option that changes the math,
                                     inference mode; and a stateful layer called on two
                                     batches in turn
  tests/data/conv_lstm/<model>.{keras,h5}   small models holding the classes, with their
  tests/data/conv_lstm/<model>.input0.npy   input and Keras's prediction
  tests/data/conv_lstm/<model>.output0.npy

Dropout and recurrent_dropout act in training only, with Keras's random draws; the cases
holding them are inference (where they change nothing) and their training masks are
checked statistically in tests/layers/conv_lstm_test.cc.

The C++ suites read these; they never run Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_conv_lstm_goldens.py
"""
import json
import os
import platform
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import arr, jsonable  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "conv_lstm_golden.json")
MODELS_DIR = os.path.join(DATA, "conv_lstm")
rng = np.random.default_rng(20263838)


def randn(shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype("float32")


def run_case(name, layer, x, initial_state=None):
    """Builds the layer on x, sets seeded random weights (not the initializer's), and records
    its inference outputs and the gradients of sum(output_i * projection_i) w.r.t. x, the
    initial states (when given) and every trainable weight."""
    tins = [tf.constant(x)] + [tf.constant(s) for s in (initial_state or [])]
    kw = {"initial_state": tins[1:]} if initial_state else {}
    layer(tins[0], **kw)
    layer.set_weights([randn(tuple(w.shape), 0.5) for w in layer.weights])
    tvars = list(layer.trainable_variables)
    with tf.GradientTape(persistent=True) as tape:
        for t in tins:
            tape.watch(t)
        ys = layer(tins[0], training=False, **kw)
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        projs = [randn(tuple(y.shape)) for y in ys]
        loss = tf.add_n([tf.reduce_sum(y * p) for y, p in zip(ys, projs)])
    gx = tape.gradient(loss, tins)
    gw = tape.gradient(loss, tvars)
    del tape
    for y in ys:
        assert np.all(np.isfinite(np.asarray(y))), name
    return {
        "name": name,
        "class_name": layer.__class__.__name__,
        "config": jsonable(layer.get_config()),
        "inputs": [arr(np.asarray(t)) for t in tins],
        "masks": None,
        "call_arguments": {},
        "weights": [arr(np.asarray(w)) for w in layer.weights],
        "weight_names": [w.path for w in layer.weights],
        "outputs": [arr(np.asarray(y)) for y in ys],
        "projections": [arr(p) for p in projs],
        "input_grads": [arr(g) for g in gx],
        "weight_grads": [arr(g) for g in gw],
    }


def cases():
    c = []
    x2 = randn((2, 3, 5, 5, 2))
    c.append(run_case("conv_lstm2d_default", L.ConvLSTM2D(3, 3), x2))
    c.append(run_case("conv_lstm2d_same_return_sequences", L.ConvLSTM2D(2, 3, padding="same",
                                                                         return_sequences=True), x2))
    c.append(run_case("conv_lstm2d_even_kernel_same", L.ConvLSTM2D(2, (2, 3), padding="same"), x2))
    c.append(run_case("conv_lstm2d_strides_2", L.ConvLSTM2D(2, 3, strides=(2, 1), padding="same",
                                                             return_sequences=True), x2))
    c.append(run_case("conv_lstm2d_dilation_2", L.ConvLSTM2D(2, 2, dilation_rate=2, return_sequences=True), x2))
    c.append(run_case("conv_lstm2d_channels_first", L.ConvLSTM2D(2, (3, 2), data_format="channels_first",
                                                                  return_sequences=True, return_state=True),
                      randn((2, 3, 2, 5, 4))))
    c.append(run_case("conv_lstm2d_go_backwards", L.ConvLSTM2D(2, 3, padding="same", go_backwards=True,
                                                                return_sequences=True), x2))
    c.append(run_case("conv_lstm2d_return_state", L.ConvLSTM2D(2, 3, return_state=True), x2))
    c.append(run_case("conv_lstm2d_activations", L.ConvLSTM2D(2, 3, activation="relu",
                                                               recurrent_activation="hard_sigmoid",
                                                               return_sequences=True), x2))
    c.append(run_case("conv_lstm2d_no_bias", L.ConvLSTM2D(2, 3, use_bias=False, padding="same"), x2))
    c.append(run_case("conv_lstm2d_dropout_inference", L.ConvLSTM2D(2, 3, dropout=0.3, recurrent_dropout=0.2,
                                                                     return_sequences=True, seed=7), x2))
    c.append(run_case("conv_lstm2d_initial_state", L.ConvLSTM2D(2, 3, padding="same", return_sequences=True),
                      x2, initial_state=[randn((2, 5, 5, 2)), randn((2, 5, 5, 2))]))
    c.append(run_case("conv_lstm2d_initial_state_channels_first",
                      L.ConvLSTM2D(2, 3, data_format="channels_first", return_state=True),
                      randn((2, 2, 2, 5, 5)), initial_state=[randn((2, 2, 3, 3)), randn((2, 2, 3, 3))]))
    x1 = randn((2, 4, 7, 3))
    c.append(run_case("conv_lstm1d_default", L.ConvLSTM1D(3, 3), x1))
    c.append(run_case("conv_lstm1d_same_strides_2", L.ConvLSTM1D(2, 3, strides=2, padding="same",
                                                                  return_sequences=True), x1))
    c.append(run_case("conv_lstm1d_dilation_2_go_backwards", L.ConvLSTM1D(2, 2, dilation_rate=2, go_backwards=True,
                                                                           return_state=True), x1))
    c.append(run_case("conv_lstm1d_channels_first", L.ConvLSTM1D(2, 2, data_format="channels_first",
                                                                  return_sequences=True), randn((2, 3, 3, 6))))
    x3 = randn((2, 2, 4, 3, 4, 2))
    c.append(run_case("conv_lstm3d_default", L.ConvLSTM3D(2, 2), x3))
    c.append(run_case("conv_lstm3d_same_return_sequences", L.ConvLSTM3D(2, (3, 2, 3), padding="same",
                                                                         return_sequences=True), x3))
    c.append(run_case("conv_lstm3d_channels_first_strides", L.ConvLSTM3D(2, 2, strides=(1, 2, 1),
                                                                          data_format="channels_first",
                                                                          return_state=True),
                      randn((1, 2, 2, 4, 4, 3))))
    return c


def stateful_section():
    """A stateful ConvLSTM2D in a model of batch 2, called on two batches in turn: the
    second prediction starts from the first's last states."""
    i = keras.Input((2, 4, 4, 1), batch_size=2, name="x")
    layer = L.ConvLSTM2D(2, 3, padding="same", stateful=True, name="stateful")
    m = keras.Model(i, layer(i))
    layer.set_weights([randn(tuple(w.shape), 0.5) for w in layer.weights])
    a, b = randn((2, 2, 4, 4, 1)), randn((2, 2, 4, 4, 1))
    ya = np.asarray(m.predict(a, batch_size=2, verbose=0))
    yb = np.asarray(m.predict(b, batch_size=2, verbose=0))
    layer.reset_states()
    yb_fresh = np.asarray(m.predict(b, batch_size=2, verbose=0))
    assert not np.allclose(yb, yb_fresh)
    return {"config": jsonable(layer.get_config()), "weights": [arr(np.asarray(w)) for w in layer.weights],
            "first": arr(a), "second": arr(b), "first_output": arr(ya), "second_output": arr(yb),
            "second_output_after_reset": arr(yb_fresh)}


def models():
    """name -> (model, input): the three classes with non-default options."""
    out = {}
    i = keras.Input((3, 6, 6, 1), name="frames")
    h = L.ConvLSTM2D(3, 3, padding="same", return_sequences=True, name="convlstm_a")(i)
    h = L.ConvLSTM2D(2, (2, 3), data_format="channels_first", go_backwards=True, name="convlstm_b")(
        L.Permute((1, 4, 2, 3), name="to_channels_first")(h))
    out["conv_lstm2d"] = (keras.Model(i, h, name="conv_lstm2d"), randn((2, 3, 6, 6, 1)))

    i = keras.Input((4, 8, 2), name="x")
    h = L.ConvLSTM1D(3, 3, strides=2, return_sequences=True, activation="relu", name="c1")(i)
    h = L.ConvLSTM1D(2, 2, dilation_rate=2, padding="same", use_bias=False, name="c2")(h)
    out["conv_lstm1d"] = (keras.Model(i, h, name="conv_lstm1d"), randn((2, 4, 8, 2)))

    i = keras.Input((2, 3, 4, 4, 1), name="x")
    seq, h_last, c_last = L.ConvLSTM3D(2, 2, padding="same", return_sequences=True, return_state=True,
                                       dropout=0.2, name="c3")(i)
    out["conv_lstm3d"] = (keras.Model(i, L.Add(name="add")([h_last, c_last]), name="conv_lstm3d"),
                          randn((2, 2, 3, 4, 4, 1)))
    for m, _ in out.values():
        for layer in m.layers:
            if layer.weights:
                layer.set_weights([randn(tuple(w.shape), 0.5) for w in layer.weights])
    return out


def saved_models_section():
    entries = []
    for name, (m, x) in models().items():
        y = np.asarray(m(x, training=False))
        base = os.path.join(MODELS_DIR, name)
        m.save(base + ".keras")
        m.save(base + ".h5")
        np.save(base + ".input0.npy", x)
        np.save(base + ".output0.npy", y)
        for ext in (".keras", ".h5"):
            again = keras.saving.load_model(base + ext)
            assert np.allclose(np.asarray(again(x, training=False)), y, atol=1e-6), (name, ext)
        entries.append({"name": name, "layer_classes": sorted({type(l).__name__ for l in m.layers}),
                        "weights": [w.path for w in m.weights]})
    return entries


NOTES = [
    "Per step: z = conv(x_t, kernel; strides, padding, dilation_rate) + bias + conv(h, recurrent_kernel; "
    "strides 1, padding 'same', no dilation); gates i, f, c, o in that order along the last kernel axis; "
    "i, f, o = recurrent_activation; c' = f * c + i * activation(z_c); h' = o * activation(c').",
    "go_backwards: the steps run last to first and return_sequences gives the outputs in that order.",
    "Dropout (training only): four masks of the step input's shape and four of the state's, one per gate, "
    "drawn once per call and kept for every step; the cases here are inference.",
]


def main():
    os.makedirs(MODELS_DIR, exist_ok=True)
    keras.utils.set_random_seed(1)
    all_cases = cases()
    doc = {
        "generator": {"script": "tests/reference/make_conv_lstm_goldens.py", "keras": keras.__version__,
                      "tensorflow": tf.__version__, "numpy": np.__version__,
                      "python": platform.python_version(), "backend": "tensorflow"},
        "notes": NOTES,
        "cases": all_cases,
        "stateful": stateful_section(),
        "saved_models": saved_models_section(),
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(all_cases), "cases")


if __name__ == "__main__":
    main()
