#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for ConvLSTM1D / ConvLSTM2D given a
mask (issue #38 point 2): the input's Keras mask, or one passed with the call (mask=...).

Writes
  tests/data/conv_lstm_mask_golden.json   cases in the form tests/layers/layer_golden_case.h
                                          reads (config, inputs, masks or tensor arguments,
                                          weights, outputs, projections, gradients of
                                          sum(output * projection) w.r.t. every input and
                                          trainable weight), inference mode
  tests/data/conv_lstm/<model>.{keras,h5}   models whose ConvLSTM layers get masks: from a
  tests/data/conv_lstm/<model>.input*.npy   Masking layer, and from a mask input passed with
  tests/data/conv_lstm/<model>.output0.npy  the call (Keras saves that model's mask as a NotEqual
                                            operation, which its own legacy .h5 reader cannot
                                            load back: Strata reads both files)

What Keras computes (keras/src/backend/tensorflow/rnn.py): a (batch, time) mask masks whole
steps, where h and c keep their values and the output is the step before's (zeros before any
step, or always with zero_output_for_mask); go_backwards runs the mask backwards with the
steps. Masking's mask of a ConvLSTM input is (batch, time, spatial...) (any over channels):
Keras's loop broadcasts each step's mask over the states' filters, so each position keeps its
own states, which fits where the states keep the input's spatial sizes (padding "same",
strides 1) and are channels last.

The C++ suites read these; they never run Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_conv_lstm_mask_goldens.py
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
OUT = os.path.join(DATA, "conv_lstm_mask_golden.json")
MODELS_DIR = os.path.join(DATA, "conv_lstm")
rng = np.random.default_rng(20261202)


def randn(shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype("float32")


def steps_mask(rows):
    """A (batch, time) mask as float32 0/1 (Keras casts it to bool)."""
    return np.array(rows, np.float32)


def run_case(name, layer, x, mask, as_argument, initial_state=None):
    """Builds the layer on x, sets seeded random weights, and records its inference outputs
    with the mask (the input's Keras mask, or passed with the call when as_argument) and the
    gradients of sum(output_i * projection_i) w.r.t. x, the initial states and every weight."""
    tins = [tf.constant(x)] + [tf.constant(s) for s in (initial_state or [])]
    kw = {"initial_state": tins[1:]} if initial_state else {}
    tmask = tf.constant(mask)
    layer(tins[0], mask=tmask, **kw)
    layer.set_weights([randn(tuple(w.shape), 0.5) for w in layer.weights])
    tvars = list(layer.trainable_variables)
    with tf.GradientTape(persistent=True) as tape:
        for t in tins:
            tape.watch(t)
        ys = layer(tins[0], mask=tmask, training=False, **kw)
        ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
        projs = [randn(tuple(y.shape)) for y in ys]
        loss = tf.add_n([tf.reduce_sum(y * p) for y, p in zip(ys, projs)])
    gx = tape.gradient(loss, tins)
    gw = tape.gradient(loss, tvars)
    del tape
    for y in ys:
        assert np.all(np.isfinite(np.asarray(y))), name
    case = {
        "name": name,
        "class_name": layer.__class__.__name__,
        "config": jsonable(layer.get_config()),
        "inputs": [arr(np.asarray(t)) for t in tins],
        "masks": None if as_argument else [arr(mask)] + [None] * (len(tins) - 1),
        "call_arguments": {},
        "weights": [arr(np.asarray(w)) for w in layer.weights],
        "weight_names": [w.path for w in layer.weights],
        "outputs": [arr(np.asarray(y)) for y in ys],
        "projections": [arr(p) for p in projs],
        "input_grads": [arr(g) for g in gx],
        "weight_grads": [arr(g) for g in gw],
    }
    if as_argument:
        case["tensor_arguments"] = {"mask": arr(mask)}
    return case


def cases():
    c = []
    x1 = randn((2, 5, 6, 2))
    inner = steps_mask([[1, 0, 1, 1, 0], [1, 1, 0, 0, 1]])
    trailing = steps_mask([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]])
    leading = steps_mask([[0, 0, 1, 1, 1], [0, 1, 1, 1, 1]])
    c.append(run_case("conv_lstm1d_mask_argument_return_sequences",
                      L.ConvLSTM1D(2, 3, padding="same", return_sequences=True), x1, inner, True))
    c.append(run_case("conv_lstm1d_input_mask_last_output", L.ConvLSTM1D(3, 3), x1, trailing, False))
    c.append(run_case("conv_lstm1d_mask_zero_output_for_mask",
                      L.ConvLSTM1D(2, 2, return_sequences=True, zero_output_for_mask=True), x1, inner, True))
    c.append(run_case("conv_lstm1d_mask_go_backwards_return_state",
                      L.ConvLSTM1D(2, 3, padding="same", go_backwards=True, return_sequences=True, return_state=True),
                      x1, inner, True))
    c.append(run_case("conv_lstm1d_mask_channels_first",
                      L.ConvLSTM1D(2, 2, data_format="channels_first", return_sequences=True),
                      randn((2, 5, 3, 6)), trailing, False))
    # Masking's mask: per position (padding same, strides 1), the first sample's positions 0 and 3 masked at
    # some steps
    spatial = np.ones((2, 5, 6), np.float32)
    spatial[0, 1:3, 0] = 0
    spatial[0, 4, 3] = 0
    spatial[1, 0, :] = 0
    c.append(run_case("conv_lstm1d_positions_mask", L.ConvLSTM1D(2, 3, padding="same", return_sequences=True),
                      x1, spatial, False))
    x2 = randn((2, 4, 5, 5, 2))
    m2 = steps_mask([[1, 0, 1, 0], [1, 1, 1, 0]])
    c.append(run_case("conv_lstm2d_mask_argument", L.ConvLSTM2D(2, 3, return_state=True), x2, m2, True))
    c.append(run_case("conv_lstm2d_mask_initial_state",
                      L.ConvLSTM2D(2, 3, padding="same", return_sequences=True), x2,
                      steps_mask([[0, 1, 1, 0], [0, 0, 1, 1]]), True,
                      initial_state=[randn((2, 5, 5, 2)), randn((2, 5, 5, 2))]))
    c.append(run_case("conv_lstm1d_mask_leading_steps", L.ConvLSTM1D(2, 3, strides=2, padding="same"),
                      x1, leading, False))
    return c


def models():
    """name -> (model, inputs): a Masking layer's mask through two ConvLSTM2D layers, and a mask
    input passed with the call."""
    out = {}
    i = keras.Input((4, 5, 5, 2), name="frames")
    h = L.Masking(name="masking")(i)
    h = L.ConvLSTM2D(3, 3, padding="same", return_sequences=True, name="convlstm_a")(h)
    h = L.ConvLSTM2D(2, 3, padding="same", name="convlstm_b")(h)
    frames = randn((2, 4, 5, 5, 2))
    frames[0, 2:] = 0.0        # the first sample's last two frames masked everywhere
    frames[1, 1, 1:3, 2] = 0.0  # and a few of the second's positions at one step
    out["conv_lstm2d_masking"] = (keras.Model(i, h, name="conv_lstm2d_masking"), [frames])

    i = keras.Input((5, 6, 2), name="x")
    m = keras.Input((5,), name="steps")
    h = L.ConvLSTM1D(3, 3, padding="same", return_sequences=True, go_backwards=True, name="c1")(i, mask=m)
    h = L.ConvLSTM1D(2, 2, name="c2")(h)
    out["conv_lstm1d_mask_input"] = (keras.Model([i, m], h, name="conv_lstm1d_mask_input"),
                                     [randn((2, 5, 6, 2)), steps_mask([[1, 1, 0, 1, 0], [1, 1, 1, 1, 0]])])
    for model, _ in out.values():
        for layer in model.layers:
            if layer.weights:
                layer.set_weights([randn(tuple(w.shape), 0.5) for w in layer.weights])
    return out


def saved_models_section():
    entries = []
    for name, (m, xs) in models().items():
        y = np.asarray(m(xs if len(xs) > 1 else xs[0], training=False))
        base = os.path.join(MODELS_DIR, name)
        m.save(base + ".keras")
        m.save(base + ".h5")
        for k, x in enumerate(xs):
            np.save(base + ".input%d.npy" % k, x)
        np.save(base + ".output0.npy", y)
        cannot_reload = None
        for ext in (".keras", ".h5"):
            try:
                again = keras.saving.load_model(base + ext)
            except ValueError as e:  # Keras 3.15.1's legacy .h5 reader knows no operation layers
                assert ext == ".h5" and "Unknown layer: 'NotEqual'" in str(e), (name, ext, e)
                cannot_reload = "ValueError: " + str(e).split(".")[0]
                continue
            assert np.allclose(np.asarray(again(xs if len(xs) > 1 else xs[0], training=False)), y, atol=1e-6), (
                name, ext)
        entries.append({"name": name, "layer_classes": sorted({type(l).__name__ for l in m.layers}),
                        **({"keras_cannot_reload_h5": cannot_reload} if cannot_reload else {})})
    return entries


NOTES = [
    "A (batch, time) mask: at a masked step h and c keep their values and the output is the step before's "
    "(zeros before the first, or at every masked step with zero_output_for_mask); go_backwards reverses the mask "
    "with the steps; return_sequences passes the mask on.",
    "Masking's (batch, time, spatial...) mask keeps each position's states apart (padding same, strides 1).",
]


def main():
    os.makedirs(MODELS_DIR, exist_ok=True)
    keras.utils.set_random_seed(2)
    doc = {
        "generator": {"script": "tests/reference/make_conv_lstm_mask_goldens.py", "keras": keras.__version__,
                      "tensorflow": tf.__version__, "numpy": np.__version__,
                      "python": platform.python_version(), "backend": "tensorflow"},
        "notes": NOTES,
        "cases": cases(),
        "saved_models": saved_models_section(),
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(doc["cases"]), "cases")


if __name__ == "__main__":
    main()
