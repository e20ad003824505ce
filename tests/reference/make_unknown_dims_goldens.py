#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for models whose inputs have None
spatial or time dimensions (issue #38 point 3): fully convolutional image models (Conv,
pooling, global pooling, UpSampling, ZeroPadding/Cropping, BatchNormalization, Dense on
the last axis, merge layers) in 1-D, 2-D and 3-D, recurrent layers over None time steps
(LSTM, GRU, SimpleRNN, Bidirectional, Embedding with None length), Reshape with -1
and Flatten after a None dim, GroupNormalization over None spatial dims,
Conv1D/2D/3DTranspose (each padding, output_padding, dilation) over None spatial dims,
UpSampling2D's interpolating modes and Resizing (every interpolation, crop_to_aspect_ratio)
over None rows and columns, TimeDistributed over None time steps and None per-step dims,
ConvLSTM1D/2D over None time steps (a next-frame model as Keras's example builds it), and
TextVectorization's int mode without output_sequence_length (text_ragged: each batch
padded to its longest row; its strings and results in text_ragged.json, see text_ragged).

Writes, for each model <name>, in tests/data/unknown_dims/:
  <name>.keras, <name>.h5                the model saved by Keras (seeded weights)
  <name>.size<k>.input<i>.npy            inputs of two different sizes (k = 0, 1)
  <name>.size<k>.output<i>.npy           Keras's predictions for them
and for the models that train (one output, mean squared error):
  <name>.fit.input0.npy, .fit.target0.npy  one batch of size 0, fitted for three epochs
                                         with SGD(learning_rate=0.05), batch_size = the
                                         batch, shuffle=False
  <name>.fit.json                        {"loss": Keras's loss after each epoch}
  <name>.trained.input0.npy, .trained.output0.npy  size 1's inputs, and what the fitted
                                         model predicts for them

The C++ suite (tests/io/unknown_dims_files_test.cc) reads these files; it never runs
Python. Regenerate with exactly (model names after the script write only those: see
OWN_SEED):

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_unknown_dims_goldens.py
"""
import json
import os
import sys
import zlib

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(ROOT, "tests", "data", "unknown_dims")
rng = np.random.default_rng(20263803)


def randomize_weights(layer):
    """Seeded weights in [-0.6, 0.6]; BatchNormalization's moving variance in [0.5, 1.5]."""
    values = []
    for w in layer.weights:
        if w.path.endswith("moving_variance"):
            values.append(rng.uniform(0.5, 1.5, size=tuple(w.shape)).astype("float32"))
        else:
            values.append(rng.uniform(-0.6, 0.6, size=tuple(w.shape)).astype("float32"))
    layer.set_weights(values)


# ------------------------------------------------------------------- models
def fcn_image():
    x = keras.Input((None, None, 3), name="image")
    h = L.Conv2D(4, 3, strides=2, padding="same", activation="relu", name="conv_stride2")(x)
    h = L.MaxPooling2D(2, padding="same", name="max_pool_same")(h)
    h = L.Conv2D(5, 3, padding="same", dilation_rate=2, name="conv_dilated")(h)
    h = L.BatchNormalization(name="bn")(h)
    branch = L.Conv2D(5, 1, name="branch")(h)
    h = L.Add(name="add")([h, branch])
    h = L.Concatenate(name="concat")([h, L.Conv2D(2, 1, name="side")(h)])
    h = L.DepthwiseConv2D(3, strides=2, padding="same", name="depthwise")(h)
    h = L.UpSampling2D(2, name="up")(h)
    h = L.ZeroPadding2D(((1, 0), (2, 1)), name="pad")(h)
    h = L.Cropping2D(((0, 1), (1, 1)), name="crop")(h)
    h = L.AveragePooling2D(3, strides=2, padding="same", name="avg_pool_same")(h)
    h = L.SeparableConv2D(4, 3, padding="same", name="separable")(h)
    per_pixel = L.Dense(3, name="per_pixel")(h)
    pooled = L.GlobalMaxPooling2D(name="global_max")(h)
    return keras.Model(x, [per_pixel, pooled], name="fcn_image"), [(2, 13, 11, 3), (3, 8, 16, 3)]


def fcn_classifier():
    x = keras.Input((None, None, 2), name="image")
    h = L.Conv2D(4, 3, padding="same", activation="relu", name="conv")(x)
    h = L.MaxPooling2D(2, name="pool")(h)
    h = L.Conv2D(6, 3, strides=2, padding="same", name="conv_stride2")(h)
    h = L.BatchNormalization(name="bn")(h)
    h = L.Activation("relu", name="relu")(h)
    h = L.AveragePooling2D(2, padding="same", name="avg_pool")(h)
    h = L.GlobalAveragePooling2D(name="global_avg")(h)
    y = L.Dense(3, activation="softmax", name="out")(h)
    return keras.Model(x, y, name="fcn_classifier"), [(4, 10, 12, 2), (3, 7, 9, 2)]


def fcn_1d():
    x = keras.Input((None, 3), name="steps")
    h = L.Conv1D(4, 3, strides=2, padding="same", activation="relu", name="conv_stride2")(x)
    h = L.MaxPooling1D(2, padding="same", name="max_pool_same")(h)
    h = L.UpSampling1D(2, name="up")(h)
    h = L.ZeroPadding1D((1, 2), name="pad")(h)
    h = L.Cropping1D((2, 0), name="crop")(h)
    h = L.Conv1D(5, 3, padding="causal", dilation_rate=2, name="conv_causal")(h)
    h = L.AveragePooling1D(2, strides=1, padding="same", name="avg_pool")(h)
    h = L.SeparableConv1D(4, 3, padding="same", name="separable")(h)
    y = L.Dense(2, name="per_step")(h)
    return keras.Model(x, y, name="fcn_1d"), [(3, 11, 3), (2, 6, 3)]


def fcn_3d():
    x = keras.Input((None, None, None, 2), name="volume")
    h = L.Conv3D(3, 3, strides=2, padding="same", activation="relu", name="conv_stride2")(x)
    h = L.MaxPooling3D(2, padding="same", name="max_pool_same")(h)
    h = L.UpSampling3D((1, 2, 2), name="up")(h)
    h = L.ZeroPadding3D(1, name="pad")(h)
    h = L.Cropping3D(((1, 0), (0, 1), (1, 1)), name="crop")(h)
    h = L.AveragePooling3D(2, strides=1, padding="same", name="avg_pool")(h)
    h = L.Conv3D(4, 2, name="conv")(h)
    h = L.GlobalAveragePooling3D(name="global_avg")(h)
    y = L.Dense(2, name="out")(h)
    return keras.Model(x, y, name="fcn_3d"), [(2, 7, 6, 9, 2), (3, 5, 10, 4, 2)]


def recurrent():
    x = keras.Input((None, 3), name="steps")
    h = L.LSTM(4, return_sequences=True, name="lstm")(x)
    h = L.Bidirectional(L.GRU(3, return_sequences=True), name="bidirectional")(h)
    h = L.SimpleRNN(3, return_sequences=True, name="simple_rnn")(h)
    y = L.Dense(2, name="per_step")(h)
    return keras.Model(x, y, name="recurrent"), [(3, 7, 3), (2, 4, 3)]


def embedding_recurrent():
    x = keras.Input((None,), dtype="int32", name="tokens")
    h = L.Embedding(12, 4, name="embedding")(x)
    h = L.Bidirectional(L.LSTM(3), name="bidirectional")(h)
    y = L.Dense(2, name="out")(h)
    return keras.Model(x, y, name="embedding_recurrent"), [(3, 6), (2, 9)]


def reshape_minus_one():
    x = keras.Input((None, 6), name="steps")
    h = L.Reshape((-1, 3), name="reshape")(x)  # (None, None, 3): twice the steps
    h = L.Conv1D(4, 2, activation="relu", name="conv")(h)
    pooled = L.GlobalAveragePooling1D(name="global_avg")(h)
    y = L.Dense(2, name="out")(pooled)
    return keras.Model(x, y, name="reshape_minus_one"), [(3, 5, 6), (2, 3, 6)]


def flatten_unknown():
    x = keras.Input((None, 4), name="steps")
    h = L.Conv1D(2, 1, name="conv")(x)
    h = L.Reshape((-1, 2, 1), name="reshape")(h)
    y = L.Flatten(name="flatten")(h)  # (None, None)
    return keras.Model(x, y, name="flatten_unknown"), [(2, 5, 4), (3, 2, 4)]


def group_norm_unknown():
    x = keras.Input((None, None, 4), name="image")
    h = L.GroupNormalization(groups=2, name="group_norm")(x)
    y = L.Conv2D(2, 1, name="conv")(h)
    return keras.Model(x, y, name="group_norm_unknown"), [(2, 3, 5, 4), (3, 6, 2, 4)]


def transpose_2d():
    # an encoder-decoder (U-Net's shape): transposed convolutions of each padding, with
    # output_padding and dilation, whose output sizes follow the input's
    x = keras.Input((None, None, 2), name="image")
    h = L.Conv2D(4, 3, strides=2, padding="same", activation="relu", name="down")(x)
    up = L.Conv2DTranspose(3, 3, strides=2, padding="same", name="up_same")(h)
    h = L.Conv2DTranspose(3, 4, strides=2, padding="valid", activation="relu", name="up_valid")(h)
    h = L.Conv2DTranspose(2, 3, strides=(2, 3), padding="same", output_padding=(1, 2), name="up_same_padded")(h)
    h = L.Conv2DTranspose(2, 2, strides=2, padding="valid", output_padding=1, dilation_rate=1, name="up_valid_padded")(h)
    h = L.Conv2DTranspose(2, 3, padding="same", dilation_rate=2, name="dilated")(h)
    pooled = L.GlobalAveragePooling2D(name="global_avg")(h)
    y = L.Concatenate(name="concat")([pooled, L.GlobalMaxPooling2D(name="global_max")(up)])
    return keras.Model(x, y, name="transpose_2d"), [(2, 6, 5, 2), (3, 4, 7, 2)]


def transpose_1d():
    x = keras.Input((None, 3), name="steps")
    h = L.Conv1DTranspose(4, 3, strides=2, padding="same", activation="relu", name="up_same")(x)
    h = L.Conv1DTranspose(3, 3, strides=3, padding="valid", output_padding=2, name="up_valid_padded")(h)
    h = L.Conv1DTranspose(2, 5, padding="valid", dilation_rate=2, name="dilated")(h)
    y = L.Dense(2, name="per_step")(h)
    return keras.Model(x, y, name="transpose_1d"), [(3, 5, 3), (2, 8, 3)]


def transpose_3d():
    x = keras.Input((None, None, None, 2), name="volume")
    h = L.Conv3DTranspose(3, 3, strides=2, padding="same", activation="relu", name="up_same")(x)
    h = L.Conv3DTranspose(2, 2, strides=(1, 2, 1), padding="valid", name="up_valid")(h)
    h = L.GlobalAveragePooling3D(name="global_avg")(h)
    y = L.Dense(2, name="out")(h)
    return keras.Model(x, y, name="transpose_3d"), [(2, 3, 2, 4, 2), (3, 2, 3, 3, 2)]


def upsampling_interpolated():
    # UpSampling2D's interpolating modes over None rows and columns: each branch behind a
    # convolution of its own, so that fitting takes gradients through every resize
    x = keras.Input((None, None, 2), name="image")
    branches = []
    for mode in ("bilinear", "bicubic", "lanczos3", "lanczos5"):
        h = L.Conv2D(2, 1, name="conv_" + mode)(x)
        branches.append(L.UpSampling2D((2, 3), interpolation=mode, name="up_" + mode)(h))
    h = L.Add(name="add")(branches)
    y = L.Conv2D(2, 3, padding="same", name="out")(h)
    return keras.Model(x, y, name="upsampling_interpolated"), [(2, 5, 4, 2), (3, 3, 6, 2)]


def resizing_unknown():
    # Resizing of None rows and columns to a fixed size, every interpolation, and
    # crop_to_aspect_ratio; area straight on the input (TensorFlow's ResizeArea has no
    # gradient), the others behind convolutions of their own
    x = keras.Input((None, None, 2), name="image")
    branches = [L.Resizing(5, 7, interpolation="area", name="resize_area")(x)]
    for mode in ("bilinear", "nearest", "bicubic", "lanczos3", "lanczos5"):
        h = L.Conv2D(2, 1, name="conv_" + mode)(x)
        branches.append(L.Resizing(5, 7, interpolation=mode, name="resize_" + mode)(h))
    h = L.Conv2D(2, 1, name="conv_crop")(x)
    branches.append(L.Resizing(5, 7, crop_to_aspect_ratio=True, name="resize_crop")(h))
    h = L.Add(name="add")(branches)
    y = L.Conv2D(2, 3, padding="same", name="out")(h)
    return keras.Model(x, y, name="resizing_unknown"), [(2, 9, 6, 2), (3, 4, 11, 2)]


def time_distributed_unknown():
    # TimeDistributed over None time steps, wrapping layers over None rows and columns
    x = keras.Input((None, None, None, 2), name="clips")
    h = L.TimeDistributed(L.Conv2D(3, 2, padding="same", activation="relu", name="conv"), name="td_conv")(x)
    h = L.TimeDistributed(L.MaxPooling2D(2, padding="same", name="pool"), name="td_pool")(h)
    h = L.TimeDistributed(L.GlobalAveragePooling2D(name="global_avg"), name="td_global_avg")(h)
    h = L.LSTM(4, return_sequences=True, name="lstm")(h)
    y = L.TimeDistributed(L.Dense(2, name="dense"), name="td_dense")(h)
    return keras.Model(x, y, name="time_distributed_unknown"), [(2, 4, 6, 5, 2), (3, 3, 4, 7, 2)]


def conv_lstm_next_frame():
    # Keras's next-frame video prediction example in small: ConvLSTM2D over None time steps
    # (every frame's next), BatchNormalization between, a Conv3D head with a sigmoid; and a
    # ConvLSTM1D over None steps ending in its last output, go_backwards
    x = keras.Input((None, 6, 6, 1), name="frames")
    h = L.ConvLSTM2D(4, 3, padding="same", return_sequences=True, activation="relu", name="conv_lstm_a")(x)
    h = L.BatchNormalization(name="bn")(h)
    h = L.ConvLSTM2D(3, (1, 1), padding="same", return_sequences=True, activation="relu", name="conv_lstm_b")(h)
    y = L.Conv3D(1, 3, padding="same", activation="sigmoid", name="frame")(h)
    return keras.Model(x, y, name="conv_lstm_next_frame"), [(2, 5, 6, 6, 1), (3, 3, 6, 6, 1)]


def conv_lstm_1d_last():
    x = keras.Input((None, 7, 2), name="steps")
    h = L.ConvLSTM1D(3, 2, padding="same", go_backwards=True, name="conv_lstm")(x)
    h = L.Flatten(name="flatten")(h)
    y = L.Dense(2, name="out")(h)
    return keras.Model(x, y, name="conv_lstm_1d_last"), [(3, 4, 7, 2), (2, 6, 7, 2)]


MODELS = [fcn_image, fcn_classifier, fcn_1d, fcn_3d, recurrent, embedding_recurrent, reshape_minus_one,
          flatten_unknown, group_norm_unknown, transpose_2d, transpose_1d, transpose_3d, upsampling_interpolated,
          resizing_unknown, time_distributed_unknown, conv_lstm_next_frame, conv_lstm_1d_last]
TRAINED = {"fcn_classifier", "fcn_1d", "fcn_3d", "recurrent", "embedding_recurrent", "reshape_minus_one",
           "transpose_2d", "transpose_1d", "transpose_3d", "upsampling_interpolated", "resizing_unknown",
           "time_distributed_unknown", "conv_lstm_next_frame", "conv_lstm_1d_last"}
# The models added after the first twelve draw from a generator of their own (seeded by
# their name), so that they can be written alone: name them on the command line to write
# only them (the first twelve share one generator in order, so they are written all or
# none).
OWN_SEED = {"upsampling_interpolated", "resizing_unknown", "time_distributed_unknown", "conv_lstm_next_frame",
            "conv_lstm_1d_last", "text_ragged"}
ONLY = set(sys.argv[1:])
if not ONLY <= OWN_SEED:
    sys.exit("only these can be written alone: %s" % sorted(OWN_SEED))


def make_inputs(model, shape):
    if model.inputs[0].dtype == "int32":
        return rng.integers(0, 12, size=shape).astype("int32")
    return rng.standard_normal(shape).astype("float32")


# Keras 3.15's UpSampling2D with an interpolation other than nearest fails when TensorFlow
# traces a model's predict again for a second size (the retrace has None dims, and the
# layer branches on them in Python: OperatorNotAllowedInGraphError). Those models predict
# each size from a copy of their own, loaded from the file just saved, traced once.
ONE_SIZE_PER_SESSION = {"upsampling_interpolated"}


def predict_once(m, x, path):
    if m.name in ONE_SIZE_PER_SESSION:
        return keras.saving.load_model(path).predict(x, verbose=0)
    return m.predict(x, verbose=0)


def as_list(y):
    return [np.asarray(t, "float32") for t in (y if isinstance(y, (list, tuple)) else [y])]


TEXT_BATCHES = [["the cat sat", "a dog", "the dog sat on the mat"], ["cat", "a bird flew over"],
                ["mat sat", "on"]]


def text_ragged():
    """TextVectorization's int mode without output_sequence_length: each batch's rows padded
    to its longest (Keras's ragged rows made dense), then Embedding, LSTM and Dense. Strings
    do not go in .npy files: text_ragged.json holds the inputs, what Keras's tokens-only model
    (text_ragged_tokens.keras) and the whole model predict for each batch, and the fit."""
    global rng
    rng = np.random.default_rng([20263803, zlib.crc32(b"text_ragged")])
    keras.backend.clear_session()
    x = keras.Input((1,), dtype="string", name="text")
    vectorize = L.TextVectorization(vocabulary=["the", "cat", "sat", "dog", "on", "mat"], output_mode="int",
                                    name="vectorize")
    tokens = vectorize(x)
    h = L.Embedding(8, 4, name="embedding")(tokens)
    h = L.LSTM(3, name="lstm")(h)
    y = L.Dense(2, name="out")(h)
    m = keras.Model(x, y, name="text_ragged")
    for layer in m.layers:
        if layer.weights:
            randomize_weights(layer)
    tokens_model = keras.Model(x, tokens, name="text_ragged_tokens")
    base = os.path.join(OUT_DIR, "text_ragged")
    m.save(base + ".keras")
    m.save(base + ".h5")
    tokens_model.save(base + "_tokens.keras")
    golden = {"batches": []}
    for batch in TEXT_BATCHES[:2]:
        strings = tf.constant([[t] for t in batch])
        ids = np.asarray(tokens_model.predict(strings, verbose=0))
        out = np.asarray(m.predict(strings, verbose=0), "float32")
        golden["batches"].append({"input": batch, "tokens": ids.tolist(), "output": out.ravel().tolist(),
                                  "output_shape": list(out.shape)})
        print("text_ragged", batch, "->", ids.shape, out.shape)
    fit_x = tf.constant([[t] for t in TEXT_BATCHES[0]])
    target = rng.standard_normal((len(TEXT_BATCHES[0]), 2)).astype("float32")
    m.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05), loss="mse")
    history = m.fit(fit_x, target, batch_size=len(TEXT_BATCHES[0]), epochs=3, shuffle=False, verbose=0)
    trained = np.asarray(m.predict(tf.constant([[t] for t in TEXT_BATCHES[2]]), verbose=0), "float32")
    golden["fit"] = {"input": TEXT_BATCHES[0], "target": target.ravel().tolist(),
                     "loss": [float(str(np.float32(v))) for v in history.history["loss"]]}
    golden["trained"] = {"input": TEXT_BATCHES[2], "output": trained.ravel().tolist(),
                         "output_shape": list(trained.shape)}
    with open(base + ".json", "w") as f:
        json.dump(golden, f)
        f.write("\n")
    print("text_ragged fit losses", history.history["loss"])


def main():
    keras.utils.set_random_seed(38)
    os.makedirs(OUT_DIR, exist_ok=True)
    for build in MODELS:
        keras.backend.clear_session()
        m, shapes = build()
        if ONLY and m.name not in ONLY:
            continue
        if m.name in OWN_SEED:
            global rng
            rng = np.random.default_rng([20263803, zlib.crc32(m.name.encode())])
        for layer in m.layers:
            if layer.weights:
                randomize_weights(layer)
        base = os.path.join(OUT_DIR, m.name)
        m.save(base + ".keras")
        m.save(base + ".h5")
        xs = [make_inputs(m, s) for s in shapes]
        for k, x in enumerate(xs):
            ys = as_list(predict_once(m, x, base + ".keras"))
            np.save("%s.size%d.input0.npy" % (base, k), x)
            for i, y in enumerate(ys):
                np.save("%s.size%d.output%d.npy" % (base, k, i), y)
            for path in (base + ".keras", base + ".h5"):
                again = as_list(keras.saving.load_model(path).predict(x, verbose=0))
                assert all(np.allclose(a, b, atol=1e-6) for a, b in zip(ys, again)), path
            print(m.name, "size", k, x.shape, "->", [y.shape for y in ys])
        if m.name not in TRAINED:
            continue
        target = rng.standard_normal(as_list(m.predict(xs[0], verbose=0))[0].shape).astype("float32")
        m.compile(optimizer=keras.optimizers.SGD(learning_rate=0.05), loss="mse")
        history = m.fit(xs[0], target, batch_size=len(xs[0]), epochs=3, shuffle=False, verbose=0)
        np.save(base + ".fit.input0.npy", xs[0])
        np.save(base + ".fit.target0.npy", target)
        with open(base + ".fit.json", "w") as f:
            json.dump({"loss": [float(str(np.float32(v))) for v in history.history["loss"]]}, f)
            f.write("\n")
        np.save(base + ".trained.input0.npy", xs[1])
        m.save(base + ".fitted.keras")
        np.save(base + ".trained.output0.npy", as_list(predict_once(m, xs[1], base + ".fitted.keras"))[0])
        os.remove(base + ".fitted.keras")
        print(m.name, "fit losses", history.history["loss"])


if __name__ == "__main__":
    main()
    if not ONLY or "text_ragged" in ONLY:
        text_ragged()
