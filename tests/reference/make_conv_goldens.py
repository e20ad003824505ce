#!/usr/bin/env python3
"""Writes tests/data/conv_layers_golden.json from real Keras 3: convolution, pooling,
normalization, reshaping and merge layers — inputs, weights, outputs and gradients.

The C++ suite (tests/layers/conv_golden_test.cc) reads the JSON; it never runs Python.
Regenerate with exactly:

    python3 -m venv /tmp/venv_conv && /tmp/venv_conv/bin/pip install keras jax jaxlib
    KERAS_BACKEND=jax /tmp/venv_conv/bin/python tests/reference/make_conv_goldens.py

Each case: the layer's inputs and weights (random, seeded), its output, and the
gradients (jax.grad) of sum(output * projection) — projection a fixed random array
stored with the case — for every input and every trainable weight. BatchNormalization
in training mode also records the moving statistics after the call.
The generator versions are recorded in the file under "generator".
"""
import inspect
import json
import os
import platform
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

if keras.backend.backend() != "jax":
    sys.exit("run with KERAS_BACKEND=jax (got %s)" % keras.backend.backend())

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "conv_layers_golden.json")
rng = np.random.default_rng(20261122)


def arr(a):
    a = np.asarray(a, dtype="float32")
    return {"shape": list(a.shape), "values": [float(round(float(v), 7)) for v in a.reshape(-1)]}


def run_case(name, layer, input_shapes, training=False, weights=None):
    xs = [rng.standard_normal(s).astype("float32") for s in input_shapes]
    layer(xs if len(xs) > 1 else xs[0])  # builds
    if weights is None:
        # Non-trivial values for every weight (biases and moving statistics included).
        weights = []
        for w in layer.weights:
            v = rng.standard_normal(w.shape).astype("float32") * 0.5
            if "variance" in w.path:
                v = np.abs(v) + 0.5
            weights.append(v)
    layer.set_weights(weights)
    trainable = [v.value for v in layer.trainable_variables]
    non_trainable = [v.value for v in layer.non_trainable_variables]

    kwargs = {"training": training} if "training" in inspect.signature(layer.call).parameters else {}

    def forward(xs_, tv):
        out, new_nt = layer.stateless_call(tv, non_trainable, xs_ if len(xs_) > 1 else xs_[0], **kwargs)
        return out, new_nt

    out, new_nt = forward([jnp.asarray(x) for x in xs], trainable)
    out = np.asarray(out)
    proj = rng.standard_normal(out.shape).astype("float32")

    def loss(xs_, tv):
        return jnp.sum(forward(xs_, tv)[0] * proj)

    gx, gw = jax.grad(loss, argnums=(0, 1))([jnp.asarray(x) for x in xs], trainable)
    case = {
        "name": name,
        "class_name": layer.__class__.__name__,
        "config": {k: v for k, v in layer.get_config().items() if k not in ("dtype",)},
        "training": training,
        "inputs": [arr(x) for x in xs],
        "weights": [arr(w) for w in weights],
        "weight_names": [w.path for w in layer.weights],
        "output": arr(out),
        "projection": arr(proj),
        "input_grads": [arr(g) for g in gx],
        "weight_grads": [arr(g) for g in gw],
    }
    if training and new_nt:
        case["non_trainable_after"] = [arr(v) for v in new_nt]
    return case


def cases():
    c = []
    # Conv2D
    c.append(run_case("conv2d_valid", L.Conv2D(4, 3), [(2, 5, 6, 3)]))
    c.append(run_case("conv2d_same_even_kernel", L.Conv2D(4, (2, 4), padding="same"), [(2, 5, 7, 3)]))
    c.append(run_case("conv2d_same_stride2", L.Conv2D(4, 3, strides=2, padding="same"), [(2, 7, 6, 3)]))
    c.append(run_case("conv2d_valid_strides_2_3", L.Conv2D(3, (3, 2), strides=(2, 3)), [(2, 7, 8, 2)]))
    c.append(run_case("conv2d_dilation2_same", L.Conv2D(4, 3, dilation_rate=2, padding="same"), [(2, 7, 7, 3)]))
    c.append(run_case("conv2d_groups3_tanh", L.Conv2D(6, 3, groups=3, activation="tanh"), [(2, 5, 5, 6)]))
    c.append(run_case("conv2d_channels_first", L.Conv2D(4, 3, padding="same", data_format="channels_first"),
                      [(2, 3, 5, 6)]))
    c.append(run_case("conv2d_1x1_no_bias", L.Conv2D(5, 1, use_bias=False), [(2, 3, 4, 3)]))
    # Conv1D
    c.append(run_case("conv1d_valid", L.Conv1D(4, 3), [(2, 9, 3)]))
    c.append(run_case("conv1d_same_even_kernel", L.Conv1D(4, 4, padding="same"), [(2, 9, 3)]))
    c.append(run_case("conv1d_causal_dilation2", L.Conv1D(3, 3, padding="causal", dilation_rate=2), [(2, 9, 2)]))
    c.append(run_case("conv1d_same_stride2", L.Conv1D(3, 3, strides=2, padding="same"), [(2, 8, 2)]))
    # Conv2DTranspose
    c.append(run_case("conv2d_transpose_valid_s2", L.Conv2DTranspose(3, 3, strides=2), [(2, 3, 4, 2)]))
    c.append(run_case("conv2d_transpose_same_k4_s2", L.Conv2DTranspose(3, 4, strides=2, padding="same"),
                      [(2, 3, 4, 2)]))
    c.append(run_case("conv2d_transpose_same_k3_s1", L.Conv2DTranspose(3, 3, padding="same"), [(2, 3, 4, 2)]))
    c.append(run_case("conv2d_transpose_valid_k2_s3", L.Conv2DTranspose(2, 2, strides=3), [(2, 3, 3, 2)]))
    # Depthwise / separable
    c.append(run_case("depthwise_same_dm2", L.DepthwiseConv2D(3, depth_multiplier=2, padding="same"),
                      [(2, 5, 6, 3)]))
    c.append(run_case("depthwise_valid_stride2", L.DepthwiseConv2D((3, 2), strides=2), [(2, 7, 6, 2)]))
    c.append(run_case("separable_same_dm2", L.SeparableConv2D(4, 3, depth_multiplier=2, padding="same"),
                      [(2, 5, 6, 3)]))
    # Pooling
    c.append(run_case("max_pool2d_default", L.MaxPooling2D(), [(2, 5, 7, 3)]))
    c.append(run_case("max_pool2d_3_s2_same", L.MaxPooling2D(3, strides=2, padding="same"), [(2, 6, 7, 3)]))
    c.append(run_case("max_pool2d_2x3_valid", L.MaxPooling2D((2, 3)), [(2, 6, 7, 2)]))
    c.append(run_case("max_pool2d_channels_first", L.MaxPooling2D(data_format="channels_first"), [(2, 3, 4, 6)]))
    c.append(run_case("avg_pool2d_default", L.AveragePooling2D(2), [(2, 5, 7, 3)]))
    c.append(run_case("avg_pool2d_3_s2_same", L.AveragePooling2D(3, strides=2, padding="same"), [(2, 6, 7, 3)]))
    c.append(run_case("max_pool1d_3_s2_same", L.MaxPooling1D(3, strides=2, padding="same"), [(2, 8, 3)]))
    c.append(run_case("avg_pool1d_3_s2_same", L.AveragePooling1D(3, strides=2, padding="same"), [(2, 8, 3)]))
    c.append(run_case("global_max_pool2d", L.GlobalMaxPooling2D(), [(2, 4, 5, 3)]))
    c.append(run_case("global_avg_pool2d_keepdims", L.GlobalAveragePooling2D(keepdims=True), [(2, 4, 5, 3)]))
    c.append(run_case("global_max_pool1d", L.GlobalMaxPooling1D(), [(2, 6, 3)]))
    c.append(run_case("global_avg_pool1d", L.GlobalAveragePooling1D(), [(2, 6, 3)]))
    # Normalization
    c.append(run_case("batch_norm_inference", L.BatchNormalization(), [(4, 3, 5)]))
    c.append(run_case("batch_norm_training", L.BatchNormalization(), [(4, 3, 5)], training=True))
    c.append(run_case("batch_norm_axis1_training", L.BatchNormalization(axis=1), [(3, 4, 2, 2)], training=True))
    c.append(run_case("layer_norm_default", L.LayerNormalization(), [(3, 4, 5)]))
    c.append(run_case("layer_norm_axes_1_2", L.LayerNormalization(axis=[1, 2]), [(3, 4, 5)]))
    # Padding, cropping, upsampling, permute
    c.append(run_case("zero_padding2d", L.ZeroPadding2D(((1, 2), (0, 3))), [(2, 3, 4, 2)]))
    c.append(run_case("zero_padding1d", L.ZeroPadding1D((1, 2)), [(2, 3, 2)]))
    c.append(run_case("cropping2d", L.Cropping2D(((1, 0), (2, 1))), [(2, 5, 6, 2)]))
    c.append(run_case("cropping1d", L.Cropping1D((1, 2)), [(2, 6, 2)]))
    c.append(run_case("upsampling2d_2x3", L.UpSampling2D((2, 3)), [(2, 3, 2, 2)]))
    c.append(run_case("upsampling1d", L.UpSampling1D(2), [(2, 3, 2)]))
    c.append(run_case("permute_2_1_3", L.Permute((2, 1, 3)), [(2, 3, 4, 2)]))
    # Merge
    c.append(run_case("add3", L.Add(), [(2, 3, 4)] * 3))
    c.append(run_case("subtract", L.Subtract(), [(2, 3, 4)] * 2))
    c.append(run_case("multiply", L.Multiply(), [(2, 3, 4)] * 2))
    c.append(run_case("average", L.Average(), [(2, 3, 4)] * 3))
    c.append(run_case("maximum", L.Maximum(), [(2, 3, 4)] * 2))
    c.append(run_case("minimum", L.Minimum(), [(2, 3, 4)] * 2))
    c.append(run_case("concatenate_last", L.Concatenate(), [(2, 3, 4), (2, 3, 2)]))
    c.append(run_case("concatenate_axis1", L.Concatenate(axis=1), [(2, 3, 4), (2, 2, 4), (2, 1, 4)]))
    c.append(run_case("dot_2d", L.Dot(axes=1), [(3, 5), (3, 5)]))
    c.append(run_case("dot_2d_normalize", L.Dot(axes=1, normalize=True), [(3, 5), (3, 5)]))
    c.append(run_case("dot_3d_axes_2_2", L.Dot(axes=(2, 2)), [(2, 3, 4), (2, 5, 4)]))
    c.append(run_case("dot_3d_axes_1_1", L.Dot(axes=(1, 1)), [(2, 3, 4), (2, 3, 2)]))
    # Conv2D with relu: Strata fuses bias and relu into the conv kernel.
    c.append(run_case("conv2d_relu_stride2_valid", L.Conv2D(5, 3, strides=2, activation="relu"), [(2, 7, 8, 3)]))
    return c


def main():
    payload = {
        "generator": {
            "script": "tests/reference/make_conv_goldens.py",
            "keras": keras.__version__,
            "jax": jax.__version__,
            "numpy": np.__version__,
            "python": platform.python_version(),
            "backend": keras.backend.backend(),
        },
        "cases": cases(),
    }
    with open(OUT, "w") as f:
        json.dump(payload, f, separators=(",", ":"))
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(payload["cases"]), "cases")


if __name__ == "__main__":
    main()
