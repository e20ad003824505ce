#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for options Strata used to refuse
(issue #38 point 2): the recurrent layers and cells with use_bias=False (GRU with
reset_after both ways, inside RNN and Bidirectional too), UpSampling2D's interpolating
modes (bilinear, bicubic, lanczos3, lanczos5, area), Dot on inputs of rank above 3, and
Resizing's area and lanczos modes.

Writes
  tests/data/keras_options_golden.json        cases (config, inputs, weights, outputs,
                                              gradients) in the form
                                              tests/layers/layer_golden_case.h reads
  tests/data/keras_options/<name>.keras       small functional models saved by Keras
  tests/data/keras_options/<name>.h5          (recurrent_no_bias, upsampling_interpolated,
  tests/data/keras_options/<name>.input<i>.npy dot_high_rank), with seeded inputs
  tests/data/keras_options/<name>.output0.npy (batch 3) and Keras's predictions

Each case: seeded standard-normal float32 inputs, the layer's weights set to seeded
values (uniform in [-0.6, 0.6], not the initializer's), its outputs and the gradients (TF
GradientTape) of sum_i sum(outputs[i] * projections[i]) w.r.t. every input and every
trainable weight (layer.trainable_variables order); projections are fixed seeded arrays
stored with the case. Every call uses training=False.

Arrays are {"shape": [...], "values": [...]} with "dtype" only when not float32; float
values are the shortest decimal that reads back as the same float32.

The C++ suites read the JSON and the saved files; they never run Python. Regenerate with
exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_options_goldens.py
"""
import json
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import h5py  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "keras_options_golden.json")
MODELS_DIR = os.path.join(DATA, "keras_options")
rng = np.random.default_rng(20263802)


# ------------------------------------------------------------------- helpers
def fnum(v):
    """Shortest decimal that reads back as the same float32."""
    f = np.float32(v)
    assert np.isfinite(f)
    return float(str(f))


def arr(a):
    a = np.asarray(a, "float32")
    return {"shape": list(a.shape), "values": [fnum(v) for v in a.reshape(-1)]}


def jsonable(obj):
    """Config -> JSON exactly as Keras's json.dumps would write it (tuples -> lists)."""
    return json.loads(json.dumps(obj, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def make_input(shape):
    return rng.standard_normal(shape).astype("float32")


def randomize_weights(layer):
    layer.set_weights([rng.uniform(-0.6, 0.6, size=tuple(w.shape)).astype("float32") for w in layer.weights])


def adjoint_input_grads(layer, xs, projs):
    """The gradient of sum(layer(x) * projection) w.r.t. x for a layer linear in its one
    input, read off Keras's outputs for unit images: TF registers no gradient for
    ResizeArea, which Resizing(interpolation="area") runs."""
    (x,), (p,) = xs, projs
    n = int(np.prod(x.shape[1:]))
    basis = np.eye(n, dtype="float32").reshape((n,) + x.shape[1:])
    jacobian = np.asarray(layer(tf.constant(basis), training=False)).reshape(n, -1)
    return [(p.reshape(p.shape[0], -1) @ jacobian.T).reshape(x.shape)]


def run_case(name, layer, shapes, *, linear_in_input=False):
    xs = [make_input(s) for s in shapes]
    single = len(xs) == 1
    tins = [tf.constant(a) for a in xs]
    layer(tins[0] if single else tins, training=False)  # builds
    if layer.weights:
        randomize_weights(layer)
    weights = [np.asarray(w) for w in layer.weights]
    tvars = list(layer.trainable_variables)
    with tf.GradientTape(persistent=True) as tape:
        for t in tins:
            tape.watch(t)
        y = layer(tins[0] if single else tins, training=False)
        ys = list(y) if isinstance(y, (list, tuple)) else [y]
        ys_np = [np.asarray(t) for t in ys]
        projs = [rng.standard_normal(a.shape).astype("float32") for a in ys_np]
        loss = tf.add_n([tf.reduce_sum(t * p) for t, p in zip(ys, projs)])
    gx = adjoint_input_grads(layer, xs, projs) if linear_in_input else tape.gradient(loss, tins)
    gw = tape.gradient(loss, tvars) if tvars else []
    del tape
    assert all(g is not None for g in list(gx) + list(gw)), name
    case = {
        "name": name,
        "class_name": layer.__class__.__name__,
        "config": jsonable(layer.get_config()),
        "inputs": [arr(a) for a in xs],
        "masks": None,
        "call_arguments": {},
        "weights": [arr(w) for w in weights],
        "weight_names": [w.path for w in layer.weights],
        "outputs": [arr(a) for a in ys_np],
        "projections": [arr(p) for p in projs],
        "input_grads": [arr(g) for g in gx],
        "weight_grads": [arr(g) for g in gw],
    }
    if linear_in_input:
        case["input_grads_note"] = "Keras's linear map's adjoint, from its outputs for unit images (no TF gradient)"
    return case


# --------------------------------------------------------------------- cases
def recurrent_cases():
    c = []
    seq = (2, 5, 3)
    c.append(run_case("simple_rnn_no_bias", L.SimpleRNN(4, use_bias=False, return_sequences=True), [seq]))
    c.append(run_case("lstm_no_bias", L.LSTM(4, use_bias=False, return_sequences=True, return_state=True), [seq]))
    c.append(run_case("lstm_no_bias_backwards", L.LSTM(3, use_bias=False, go_backwards=True), [seq]))
    c.append(run_case("gru_no_bias_reset_after", L.GRU(4, use_bias=False, return_sequences=True), [seq]))
    c.append(run_case("gru_no_bias_reset_before", L.GRU(4, use_bias=False, reset_after=False, return_state=True),
                      [seq]))
    c.append(run_case("rnn_simple_rnn_cell_no_bias", L.RNN(L.SimpleRNNCell(3, use_bias=False)), [seq]))
    c.append(run_case("rnn_lstm_cell_no_bias", L.RNN(L.LSTMCell(3, use_bias=False), return_sequences=True), [seq]))
    c.append(run_case("rnn_gru_cell_no_bias_reset_before",
                      L.RNN(L.GRUCell(3, use_bias=False, reset_after=False), return_sequences=True), [seq]))
    c.append(run_case("rnn_stacked_cells_no_bias",
                      L.RNN([L.GRUCell(3, use_bias=False), L.LSTMCell(2, use_bias=False)], return_sequences=True),
                      [seq]))
    c.append(run_case("bidirectional_lstm_no_bias",
                      L.Bidirectional(L.LSTM(3, use_bias=False, return_sequences=True)), [seq]))
    c.append(run_case("bidirectional_gru_no_bias_reset_before_sum",
                      L.Bidirectional(L.GRU(3, use_bias=False, reset_after=False), merge_mode="sum"), [seq]))
    c.append(run_case("bidirectional_simple_rnn_no_bias",
                      L.Bidirectional(L.SimpleRNN(3, use_bias=False, return_sequences=True), merge_mode="ave"),
                      [seq]))
    return c


def upsampling_cases():
    c = []
    for interpolation in ("bilinear", "bicubic", "lanczos3", "lanczos5"):
        c.append(run_case("upsampling2d_%s_2x2" % interpolation, L.UpSampling2D(2, interpolation=interpolation),
                          [(2, 3, 4, 2)]))
        c.append(run_case("upsampling2d_%s_3x2" % interpolation,
                          L.UpSampling2D((3, 2), interpolation=interpolation), [(2, 3, 4, 2)]))
        c.append(run_case("upsampling2d_%s_channels_first" % interpolation,
                          L.UpSampling2D((2, 3), data_format="channels_first", interpolation=interpolation),
                          [(2, 2, 3, 4)]))
    c.append(run_case("upsampling2d_bilinear_one_pixel", L.UpSampling2D((2, 4), interpolation="bilinear"),
                      [(2, 1, 1, 3)]))
    c.append(run_case("upsampling2d_area_3x2", L.UpSampling2D((3, 2), interpolation="area"), [(2, 3, 4, 2)],
                      linear_in_input=True))
    return c


def dot_cases():
    c = []
    c.append(run_case("dot_rank4_rank4_axes_3_3", L.Dot(axes=(3, 3)), [(2, 3, 2, 4), (2, 2, 3, 4)]))
    c.append(run_case("dot_rank4_rank3_axes_1_2", L.Dot(axes=(1, 2)), [(2, 3, 2, 4), (2, 5, 3)]))
    c.append(run_case("dot_rank2_rank4_axes_1_3", L.Dot(axes=(1, 3)), [(2, 4), (2, 3, 2, 4)]))
    c.append(run_case("dot_rank4_rank2_axes_2_1", L.Dot(axes=(2, 1)), [(2, 3, 4, 2), (2, 4)]))
    c.append(run_case("dot_rank5_rank3_axes_-1", L.Dot(axes=-1), [(2, 2, 3, 2, 4), (2, 3, 4)]))
    c.append(run_case("dot_rank4_rank4_axes_2_1_normalize", L.Dot(axes=(2, 1), normalize=True),
                      [(2, 3, 4, 2), (2, 4, 2, 3)]))
    c.append(run_case("dot_rank3_rank4_axes_-2_-3_normalize", L.Dot(axes=(-2, -3), normalize=True),
                      [(2, 4, 3), (2, 4, 2, 5)]))
    return c


def resizing_cases():
    c = []
    for interpolation in ("area", "lanczos3", "lanczos5", "bicubic"):
        for h, w in ((3, 4), (8, 11), (5, 3)):
            c.append(run_case("resizing_%dx%d_%s" % (h, w, interpolation),
                              L.Resizing(h, w, interpolation=interpolation), [(2, 5, 7, 2)],
                              linear_in_input=interpolation == "area"))
    c.append(run_case("resizing_4x4_crop_lanczos3", L.Resizing(4, 4, interpolation="lanczos3",
                                                                crop_to_aspect_ratio=True), [(2, 5, 7, 2)]))
    c.append(run_case("resizing_2x3_area_channels_first", L.Resizing(2, 3, interpolation="area",
                                                                      data_format="channels_first"), [(2, 2, 5, 7)],
                      linear_in_input=True))
    return c


# --------------------------------------------------------------- saved models
def recurrent_no_bias():
    x = keras.Input((5, 3), name="x")
    h = L.LSTM(4, use_bias=False, return_sequences=True, name="lstm")(x)
    h = L.GRU(4, use_bias=False, reset_after=False, return_sequences=True, name="gru_reset_before")(h)
    h = L.GRU(3, use_bias=False, return_sequences=True, name="gru_reset_after")(h)
    h = L.Bidirectional(L.SimpleRNN(3, use_bias=False), name="bidirectional")(h)
    y = L.Dense(2, name="out")(h)
    return keras.Model(x, y, name="recurrent_no_bias")


def upsampling_interpolated():
    x = keras.Input((3, 4, 2), name="x")
    h = L.UpSampling2D((2, 3), interpolation="bilinear", name="up_bilinear")(x)
    h = L.Conv2D(3, 3, name="conv")(h)
    h = L.UpSampling2D(2, data_format="channels_first", interpolation="bicubic", name="up_bicubic_cf")(h)
    h = L.Flatten()(h)
    y = L.Dense(2, name="out")(h)
    return keras.Model(x, y, name="upsampling_interpolated")


def dot_high_rank():
    a = keras.Input((3, 2, 4), name="a")
    b = keras.Input((2, 3, 4), name="b")
    d = L.Dot(axes=(3, 3), name="dot")([a, b])  # (None, 3, 2, 2, 3)
    e = L.Dot(axes=(-1, 2), normalize=True, name="dot_normalized")([d, b])  # (None, 3, 2, 2, 2, 4)
    y = L.Dense(2, name="out")(L.Flatten()(e))
    return keras.Model([a, b], y, name="dot_high_rank")


def saved_models_section():
    os.makedirs(MODELS_DIR, exist_ok=True)
    for build in (recurrent_no_bias, upsampling_interpolated, dot_high_rank):
        keras.backend.clear_session()
        m = build()
        for layer in m.layers:
            randomize_weights(layer)
        xs = [rng.standard_normal((3,) + tuple(i.shape[1:])).astype("float32") for i in m.inputs]
        y = np.asarray(m.predict(xs if len(xs) > 1 else xs[0], verbose=0), "float32")
        base = os.path.join(MODELS_DIR, m.name)
        m.save(base + ".keras")
        m.save(base + ".h5")
        for i, x in enumerate(xs):
            np.save(base + ".input%d.npy" % i, x)
        np.save(base + ".output0.npy", y)
        for path in (base + ".keras", base + ".h5"):
            again = keras.saving.load_model(path)
            y2 = again.predict(xs if len(xs) > 1 else xs[0], verbose=0)
            assert np.allclose(y, y2, atol=1e-6), path
        with h5py.File(base + ".h5", "r") as f:
            names = []
            f["model_weights"].visititems(lambda p, o: names.append(p) if isinstance(o, h5py.Dataset) else None)
        print("---", m.name + ".h5 weights:", names)


def main():
    keras.utils.set_random_seed(38)
    cases = recurrent_cases() + upsampling_cases() + dot_cases() + resizing_cases()
    doc = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__, "cases": cases}
    saved_models_section()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(cases), "cases")


if __name__ == "__main__":
    main()
