#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for the 3-D and 1-D-transposed
convolution family: Conv3D, Conv1DTranspose, Conv3DTranspose (and Conv2DTranspose's
output_padding), MaxPooling3D,
AveragePooling3D, GlobalMaxPooling3D, GlobalAveragePooling3D, ZeroPadding3D, Cropping3D
and UpSampling3D.

Writes
  tests/data/conv3d_golden.json: per case Keras's config, inputs, weights, outputs and
      the gradients (TF GradientTape) of sum(output * projection) for every input and
      trainable weight, in the format tests/layers/layer_golden_case.h reads;
  tests/data/keras_golden/conv3d_block.{keras,h5} and conv1d_transpose_seq.{keras,h5},
      small models saved by Keras in both formats, with an input (.input0.npy) and
      Keras's prediction (.output0.npy).
The C++ suites (tests/layers/conv3d_golden_test.cc, tests/io/conv3d_files_test.cc) read
them; they never run Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_conv3d_goldens.py

The generator versions are recorded in the JSON under "generator".
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
from golden_json import arr, jsonable  # noqa: E402 (tests/reference/golden_json.py)

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "conv3d_golden.json")
MODELS = os.path.join(DATA, "keras_golden")
rng = np.random.default_rng(20261124)


def run_case(name, layer, input_shape):
    x = rng.standard_normal(input_shape).astype("float32")
    tx = tf.constant(x)
    layer(tx)  # builds
    if layer.weights:
        layer.set_weights([(rng.standard_normal(tuple(w.shape)) * 0.5).astype("float32") for w in layer.weights])
    weights = [np.asarray(w) for w in layer.weights]
    tvars = list(layer.trainable_variables)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(tx)
        y = layer(tx)
        proj = rng.standard_normal(tuple(y.shape)).astype("float32")
        loss = tf.reduce_sum(y * proj)
    gx = tape.gradient(loss, tx)
    gw = tape.gradient(loss, tvars) if tvars else []
    del tape
    assert np.all(np.isfinite(np.asarray(y))), name
    print("%-34s %-22s in %s out %s" % (name, layer.__class__.__name__, input_shape, tuple(y.shape)))
    return {
        "name": name,
        "class_name": layer.__class__.__name__,
        "config": jsonable(layer.get_config()),
        "inputs": [arr(x)],
        "masks": None,
        "call_arguments": {},
        "weights": [arr(w) for w in weights],
        "weight_names": [w.path for w in layer.weights],
        "outputs": [arr(y)],
        "projections": [arr(proj)],
        "input_grads": [arr(gx)],
        "weight_grads": [arr(g) for g in gw],
    }


def cases():
    c = []
    # Conv3D
    c.append(run_case("conv3d_valid", L.Conv3D(3, 2), (2, 3, 4, 4, 2)))
    c.append(run_case("conv3d_same_strides_2_1_2", L.Conv3D(3, 3, strides=(2, 1, 2), padding="same"),
                      (2, 4, 5, 4, 2)))
    c.append(run_case("conv3d_same_even_kernel", L.Conv3D(2, (2, 3, 4), padding="same"), (1, 3, 4, 5, 2)))
    c.append(run_case("conv3d_dilation_1_2_1_relu", L.Conv3D(2, (2, 3, 2), dilation_rate=(1, 2, 1),
                                                              activation="relu"), (2, 3, 6, 4, 2)))
    c.append(run_case("conv3d_groups2_tanh", L.Conv3D(4, 2, groups=2, activation="tanh"), (2, 3, 3, 3, 4)))
    # Keras 3.15.1 on TensorFlow 2.21 adds a channels_first Conv3D's bias along the last
    # axis when that axis has `filters` elements (input (2, 2, 3, 4, 3), 3 filters): widths
    # here avoid it.
    c.append(run_case("conv3d_channels_first", L.Conv3D(3, 2, padding="same", data_format="channels_first"),
                      (2, 2, 3, 4, 5)))
    c.append(run_case("conv3d_no_bias", L.Conv3D(2, (1, 2, 2), use_bias=False), (2, 2, 3, 3, 3)))
    # Conv3DTranspose
    c.append(run_case("conv3d_transpose_valid_s2", L.Conv3DTranspose(2, 2, strides=2), (2, 2, 3, 2, 3)))
    c.append(run_case("conv3d_transpose_same_k3_s_2_1_2",
                      L.Conv3DTranspose(2, 3, strides=(2, 1, 2), padding="same"), (1, 2, 3, 3, 2)))
    c.append(run_case("conv3d_transpose_valid_k3_s2_output_padding1",
                      L.Conv3DTranspose(2, 3, strides=2, output_padding=1), (1, 2, 2, 3, 2)))
    c.append(run_case("conv3d_transpose_same_k3_s2_output_padding_1_0_1",
                      L.Conv3DTranspose(2, 3, strides=2, padding="same", output_padding=(1, 0, 1)),
                      (1, 2, 2, 3, 2)))
    c.append(run_case("conv3d_transpose_channels_first_sigmoid",
                      L.Conv3DTranspose(2, (2, 3, 2), strides=(1, 2, 2), padding="same",
                                        data_format="channels_first", activation="sigmoid"), (2, 3, 2, 2, 3)))
    c.append(run_case("conv3d_transpose_dilation2", L.Conv3DTranspose(2, 2, dilation_rate=2), (1, 3, 3, 3, 2)))
    # Conv1DTranspose
    c.append(run_case("conv1d_transpose_valid_k3_s2", L.Conv1DTranspose(3, 3, strides=2), (2, 4, 3)))
    c.append(run_case("conv1d_transpose_same_k4_s2", L.Conv1DTranspose(3, 4, strides=2, padding="same"),
                      (2, 4, 3)))
    c.append(run_case("conv1d_transpose_same_k3_s2_output_padding1",
                      L.Conv1DTranspose(2, 3, strides=2, padding="same", output_padding=1), (2, 5, 3)))
    c.append(run_case("conv1d_transpose_valid_k2_s3_no_bias", L.Conv1DTranspose(2, 2, strides=3, use_bias=False),
                      (2, 3, 2)))
    c.append(run_case("conv1d_transpose_same_k3_dilation2", L.Conv1DTranspose(2, 3, padding="same", dilation_rate=2),
                      (2, 5, 2)))
    c.append(run_case("conv1d_transpose_channels_first", L.Conv1DTranspose(2, 3, strides=2, padding="same",
                                                                           data_format="channels_first"),
                      (2, 3, 4)))
    # Pooling
    c.append(run_case("max_pool3d_default", L.MaxPooling3D(), (2, 4, 5, 4, 2)))
    c.append(run_case("max_pool3d_3_s2_same", L.MaxPooling3D(3, strides=2, padding="same"), (2, 5, 4, 5, 2)))
    c.append(run_case("max_pool3d_channels_first", L.MaxPooling3D(data_format="channels_first"), (2, 2, 4, 4, 4)))
    c.append(run_case("avg_pool3d_default", L.AveragePooling3D(2), (2, 4, 5, 4, 2)))
    c.append(run_case("avg_pool3d_3_s2_same", L.AveragePooling3D(3, strides=2, padding="same"), (2, 5, 4, 5, 2)))
    c.append(run_case("avg_pool3d_2_3_1_s_1_2_1", L.AveragePooling3D((2, 3, 1), strides=(1, 2, 1)),
                      (2, 3, 5, 2, 2)))
    c.append(run_case("global_max_pool3d", L.GlobalMaxPooling3D(), (2, 3, 4, 2, 3)))
    c.append(run_case("global_avg_pool3d_keepdims", L.GlobalAveragePooling3D(keepdims=True), (2, 3, 4, 2, 3)))
    c.append(run_case("global_avg_pool3d_channels_first", L.GlobalAveragePooling3D(data_format="channels_first"),
                      (2, 3, 4, 2, 3)))
    # Padding, cropping, upsampling
    c.append(run_case("zero_padding3d", L.ZeroPadding3D(((1, 0), (0, 2), (1, 1))), (2, 2, 3, 2, 2)))
    c.append(run_case("zero_padding3d_channels_first", L.ZeroPadding3D((1, 0, 2), data_format="channels_first"),
                      (2, 2, 2, 3, 2)))
    c.append(run_case("cropping3d", L.Cropping3D(((1, 0), (0, 1), (1, 1))), (2, 3, 4, 4, 2)))
    c.append(run_case("cropping3d_channels_first", L.Cropping3D(1, data_format="channels_first"), (2, 2, 3, 4, 3)))
    c.append(run_case("upsampling3d_2_1_3", L.UpSampling3D((2, 1, 3)), (2, 2, 3, 2, 2)))
    c.append(run_case("upsampling3d_channels_first", L.UpSampling3D(data_format="channels_first"), (2, 2, 2, 3, 2)))
    # Conv2DTranspose's output_padding (added last: the cases above keep their random draws; the
    # models saved after the cases draw anew)
    c.append(run_case("conv2d_transpose_valid_k3_s_2_3_output_padding_1_2",
                      L.Conv2DTranspose(2, 3, strides=(2, 3), output_padding=(1, 2)), (2, 3, 2, 2)))
    c.append(run_case("conv2d_transpose_same_k3_s2_output_padding1_channels_first",
                      L.Conv2DTranspose(3, 3, strides=2, padding="same", output_padding=1,
                                        data_format="channels_first"), (2, 2, 3, 4)))
    return c


def conv3d_block():
    keras.utils.set_random_seed(31)
    x = keras.Input((6, 6, 6, 2), name="volume")
    h = L.Conv3D(4, 3, padding="same", activation="relu", name="conv")(x)
    h = L.MaxPooling3D(2, name="pool")(h)                                      # (3, 3, 3, 4)
    h = L.ZeroPadding3D(1, name="pad")(h)                                      # (5, 5, 5, 4)
    h = L.Conv3DTranspose(3, 3, strides=2, padding="same", name="deconv")(h)   # (10, 10, 10, 3)
    h = L.Cropping3D(((1, 1), (2, 0), (0, 2)), name="crop")(h)                 # (8, 8, 8, 3)
    h = L.AveragePooling3D(2, name="avg")(h)                                   # (4, 4, 4, 3)
    h = L.UpSampling3D((1, 2, 1), name="up")(h)                                # (4, 8, 4, 3)
    h = L.Conv3D(3, (2, 3, 2), strides=(1, 2, 1), data_format="channels_first", name="conv_cf")(h)  # (3, 7, 1, 2)
    g1 = L.GlobalAveragePooling3D(name="gap")(h)
    g2 = L.GlobalMaxPooling3D(name="gmp")(h)
    y = L.Concatenate(name="concat")([g1, g2])
    y = L.Dense(3, activation="softmax", name="out")(y)
    return keras.Model(x, y, name="conv3d_block"), (2, 6, 6, 6, 2)


def conv1d_transpose_seq():
    keras.utils.set_random_seed(32)
    m = keras.Sequential([
        keras.Input((7, 3), name="steps"),
        L.Conv1DTranspose(4, 3, strides=2, padding="same", output_padding=1, activation="relu", name="up"),
        L.Conv1DTranspose(2, 2, dilation_rate=2, name="dilated"),
        L.Flatten(name="flat"),
        L.Dense(2, name="out"),
    ], name="conv1d_transpose_seq")
    return m, (3, 7, 3)


def save_model(make):
    keras.backend.clear_session()
    m, shape = make()
    for layer in m.layers:  # non-zero biases
        if layer.weights:
            layer.set_weights([np.asarray(w) if "kernel" in w.path else
                               (rng.standard_normal(tuple(w.shape)) * 0.3).astype("float32") for w in layer.weights])
    x = rng.standard_normal(shape).astype("float32")
    y = np.asarray(m.predict(x, verbose=0), dtype="float32")
    base = os.path.join(MODELS, m.name)
    m.save(base + ".keras")
    m.save(base + ".h5")
    np.save(base + ".input0.npy", x)
    np.save(base + ".output0.npy", y)
    print("wrote", base + ".{keras,h5}", "prediction", y.shape)


def main():
    data = {
        "generator": {"keras": keras.__version__, "tensorflow": tf.__version__, "backend": "tensorflow",
                      "python": platform.python_version(), "script": "tests/reference/make_conv3d_goldens.py"},
        "cases": cases(),
    }
    with open(OUT, "w") as f:
        json.dump(data, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, len(data["cases"]), "cases")
    save_model(conv3d_block)
    save_model(conv1d_transpose_seq)


if __name__ == "__main__":
    main()
