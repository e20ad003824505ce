#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for the layer classes of issue #38
point 2: GaussianNoise, GaussianDropout, AlphaDropout, SpatialDropout3D, ActivityRegularization,
RMSNormalization, AdaptiveAveragePooling1D/2D/3D, AdaptiveMaxPooling1D/2D/3D, DepthwiseConv1D
and SeparableConv1D.

Writes
  tests/data/keras_classes_golden.json   cases in the form tests/layers/layer_golden_case.h
                                         reads (config, inputs, weights, outputs, projections,
                                         gradients of sum(output * projection) w.r.t. every
                                         input and trainable weight), one per option that
                                         changes the math; the noise layers' cases are
                                         inference (the identity: training draws are checked
                                         statistically in tests/layers/noise_layers_test.cc)
  tests/data/keras_classes/<model>.{keras,h5}          small models holding the classes, with
  tests/data/keras_classes/<model>.input0.npy          their input and Keras's prediction
  tests/data/keras_classes/<model>.output0.npy

The C++ suites read these; they never run Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_classes_goldens.py
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
OUT = os.path.join(DATA, "keras_classes_golden.json")
MODELS_DIR = os.path.join(DATA, "keras_classes")
rng = np.random.default_rng(20263802)


def randn(shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype("float32")


def run_case(name, layer, x, randomize=True):
    """Builds the layer on x, sets seeded random weights (not the initializer's), and records
    its inference output and the gradients of sum(output * projection)."""
    t = tf.constant(x)
    layer(t)
    if randomize and layer.weights:
        layer.set_weights([randn(tuple(w.shape), 0.5) + (1.0 if "scale" in w.path else 0.0)
                           for w in layer.weights])
    tvars = list(layer.trainable_variables)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(t)
        y = layer(t, training=False)
        y_np = np.asarray(y)
        proj = randn(y_np.shape)
        loss = tf.reduce_sum(y * proj)
    gx = tape.gradient(loss, t)
    gw = tape.gradient(loss, tvars) if tvars else []
    del tape
    assert np.all(np.isfinite(y_np)), name
    return {
        "name": name,
        "class_name": layer.__class__.__name__,
        "config": jsonable(layer.get_config()),
        "inputs": [arr(x)],
        "masks": None,
        "call_arguments": {},
        "weights": [arr(np.asarray(w)) for w in layer.weights],
        "weight_names": [w.path for w in layer.weights],
        "outputs": [arr(y_np)],
        "projections": [arr(proj)],
        "input_grads": [arr(gx) if gx is not None else arr(np.zeros_like(x))],
        "weight_grads": [arr(g) for g in gw],
    }


def regularization_cases():
    c = []
    x = randn((2, 3, 4))
    c.append(run_case("gaussian_noise_inference", L.GaussianNoise(0.3, seed=5), x))
    c.append(run_case("gaussian_dropout_inference", L.GaussianDropout(0.4, seed=5), x))
    c.append(run_case("alpha_dropout_inference", L.AlphaDropout(0.2, noise_shape=(None, 1, 4), seed=5), x))
    c.append(run_case("spatial_dropout3d_inference", L.SpatialDropout3D(0.3, data_format="channels_first"),
                      randn((2, 3, 2, 2, 2))))
    c.append(run_case("activity_regularization_inference", L.ActivityRegularization(l1=0.01, l2=0.02), x))
    return c


def rms_normalization_cases():
    c = []
    c.append(run_case("rms_normalization_default", L.RMSNormalization(), randn((2, 3, 5))))
    c.append(run_case("rms_normalization_epsilon_0.5", L.RMSNormalization(epsilon=0.5), randn((2, 3, 5), 0.3)))
    c.append(run_case("rms_normalization_axis_1_2", L.RMSNormalization(axis=[2, 1]), randn((2, 3, 4))))
    c.append(run_case("rms_normalization_axis_1_on_2d", L.RMSNormalization(axis=1), randn((3, 6))))
    c.append(run_case("rms_normalization_initial_scale", L.RMSNormalization(), randn((2, 4)), randomize=False))
    return c


def adaptive_pooling_cases():
    c = []
    for kind, classes in (("average", (L.AdaptiveAveragePooling1D, L.AdaptiveAveragePooling2D,
                                       L.AdaptiveAveragePooling3D)),
                          ("max", (L.AdaptiveMaxPooling1D, L.AdaptiveMaxPooling2D, L.AdaptiveMaxPooling3D))):
        c1, c2, c3 = classes
        c.append(run_case("adaptive_%s_1d_7_to_3" % kind, c1(3), randn((2, 7, 3))))
        c.append(run_case("adaptive_%s_1d_3_to_5" % kind, c1(5), randn((2, 3, 2))))
        c.append(run_case("adaptive_%s_1d_8_to_4_channels_first" % kind, c1(4, data_format="channels_first"),
                          randn((2, 3, 8))))
        c.append(run_case("adaptive_%s_2d_5x7_to_3x2" % kind, c2((3, 2)), randn((2, 5, 7, 3))))
        # No output size of 1: Keras's TF backend then also pools a window of L + 1 over L
        # (its "big" pool), which TensorFlow's max pool dies on (SIGFPE).
        c.append(run_case("adaptive_%s_2d_4x4_to_2x3" % kind, c2((2, 3)), randn((2, 4, 4, 2))))
        c.append(run_case("adaptive_%s_2d_channels_first_6x5_to_4x3" % kind, c2((4, 3), data_format="channels_first"),
                          randn((2, 2, 6, 5))))
        c.append(run_case("adaptive_%s_3d_5x4x6_to_2x3x4" % kind, c3((2, 3, 4)), randn((2, 5, 4, 6, 2))))
        c.append(run_case("adaptive_%s_3d_channels_first_3x3x3_to_2" % kind, c3(2, data_format="channels_first"),
                          randn((1, 2, 3, 3, 3))))
    return c


def conv1d_cases():
    c = []
    x = randn((2, 9, 3))
    c.append(run_case("depthwise_conv1d_default", L.DepthwiseConv1D(3), x))
    c.append(run_case("depthwise_conv1d_dm2_same_stride2", L.DepthwiseConv1D(3, strides=2, padding="same",
                                                                               depth_multiplier=2), x))
    c.append(run_case("depthwise_conv1d_dilation2_relu", L.DepthwiseConv1D(3, dilation_rate=2, activation="relu"), x))
    c.append(run_case("depthwise_conv1d_no_bias_channels_first", L.DepthwiseConv1D(
        2, use_bias=False, data_format="channels_first", depth_multiplier=3), randn((2, 3, 7))))
    c.append(run_case("separable_conv1d_default", L.SeparableConv1D(4, 3), x))
    c.append(run_case("separable_conv1d_dm2_same_stride2", L.SeparableConv1D(5, 3, strides=2, padding="same",
                                                                               depth_multiplier=2), x))
    c.append(run_case("separable_conv1d_dilation2_tanh", L.SeparableConv1D(2, 3, dilation_rate=2, activation="tanh"),
                      x))
    c.append(run_case("separable_conv1d_no_bias_channels_first", L.SeparableConv1D(
        3, 2, use_bias=False, data_format="channels_first"), randn((2, 3, 7))))
    return c


# --------------------------------------------------------------- saved models
def set_random_weights(model):
    for layer in model.layers:
        if layer.weights:
            layer.set_weights([randn(tuple(w.shape), 0.5) + (1.0 if "scale" in w.path else 0.0)
                               for w in layer.weights])


def models():
    """name -> (model, input). Each model holds one family with non-default options."""
    out = {}
    keras.utils.set_random_seed(3)
    i = keras.Input((2, 3, 4, 3), name="x")
    h = L.GaussianNoise(0.1, seed=3, name="noise")(i)
    h = L.GaussianDropout(0.2, name="gaussian_dropout")(h)
    h = L.AlphaDropout(0.1, noise_shape=(None, 1, 1, 1, 3), seed=4, name="alpha_dropout")(h)
    h = L.SpatialDropout3D(0.3, data_format="channels_first", name="spatial_dropout3d")(h)
    h = L.ActivityRegularization(l1=0.01, l2=0.001, name="activity")(h)
    h = L.Dense(2, name="dense")(h)
    out["regularization"] = (keras.Model(i, h, name="regularization"), randn((2, 2, 3, 4, 3)))

    i = keras.Input((3, 5), name="x")
    h = L.RMSNormalization(name="rms")(i)
    h = L.RMSNormalization(axis=[1, 2], epsilon=1e-3, name="rms_12")(h)
    out["rms_normalization"] = (keras.Model(i, h, name="rms_normalization"), randn((2, 3, 5)))

    i = keras.Input((7, 6, 3), name="x")
    a = L.AdaptiveAveragePooling2D((3, 2), name="avg2d")(i)
    m = L.AdaptiveMaxPooling2D(4, data_format="channels_first", name="max2d")(i)
    r = L.Reshape((7, 6 * 3), name="to_1d")(i)
    a1 = L.AdaptiveAveragePooling1D(4, name="avg1d")(r)
    m1 = L.AdaptiveMaxPooling1D(3, data_format="channels_first", name="max1d")(r)
    r3 = L.Reshape((7, 6, 3, 1), name="to_3d")(i)
    a3 = L.AdaptiveAveragePooling3D((2, 3, 2), name="avg3d")(r3)
    m3 = L.AdaptiveMaxPooling3D(2, name="max3d")(r3)
    flat = [L.Flatten(name="flat_%d" % k)(t) for k, t in enumerate((a, m, a1, m1, a3, m3))]
    out["adaptive_pooling"] = (keras.Model(i, L.Concatenate(name="concat")(flat), name="adaptive_pooling"),
                               randn((2, 7, 6, 3)))

    i = keras.Input((10, 3), name="x")
    h = L.DepthwiseConv1D(3, depth_multiplier=2, padding="same", name="depthwise")(i)
    h = L.SeparableConv1D(4, 3, strides=2, activation="relu", name="separable")(h)
    h = L.DepthwiseConv1D(2, use_bias=False, data_format="channels_first", name="depthwise_cf")(h)
    out["conv1d"] = (keras.Model(i, h, name="conv1d"), randn((2, 10, 3)))
    for m, _ in out.values():
        set_random_weights(m)
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
        reloads = {}
        for ext in (".keras", ".h5"):
            try:
                again = keras.saving.load_model(base + ext)
            except ValueError as e:  # Keras's own .h5 of RMSNormalization(axis=[1, 2]) (see notes)
                reloads[ext] = str(e)[:300]
                continue
            assert np.allclose(np.asarray(again(x, training=False)), y, atol=1e-6), (name, ext)
            reloads[ext] = True
        entry = {"name": name, "layer_classes": sorted({type(l).__name__ for l in m.layers}),
                 "weights": [w.path for w in m.weights], "keras_reloads": reloads}
        if name == "regularization":
            # ActivityRegularization's penalty in Keras's evaluated loss (inference: the noise
            # layers are the identity): mse + (l1 * sum|y| + l2 * sum y^2) / batch.
            target = randn(y.shape)
            np.save(base + ".target0.npy", target)
            m.compile(loss="mse")
            entry["evaluate_mse_loss"] = float(m.evaluate(x, target, batch_size=len(x), verbose=0))
        entries.append(entry)
    return entries


NOTES = [
    "Inference only for the noise layers (GaussianNoise, GaussianDropout, AlphaDropout, SpatialDropout3D): "
    "the identity. Keras: GaussianNoise adds normal(0, stddev); GaussianDropout multiplies by "
    "normal(1, sqrt(rate / (1 - rate))); AlphaDropout keeps where uniform >= rate, "
    "y = a * (x * kept + alpha_p * (1 - kept)) + b with alpha_p = -1.6732632423543772 * 1.0507009873554805, "
    "a = ((1 - rate) * (1 + rate * alpha_p^2))^-0.5, b = -a * alpha_p * rate.",
    "ActivityRegularization: identity; adds (l1 * sum|y| + l2 * sum y^2) / batch_size to the model's losses.",
    "RMSNormalization: x * rsqrt(mean(x^2 over axis) + epsilon) * scale; scale (weight 'scale', ones) has the "
    "shape of the sorted axes' dims and broadcasts against the input as NumPy does (trailing axes). The config's "
    "axis is a list after build. Keras 3.15.1 cannot load its own .h5 of a model holding RMSNormalization(axis=[1, 2]) "
    "after one with axis=-1 (saved_models[].keras_reloads says so); Strata loads it.",
    "Adaptive pooling (TF backend): per spatial axis, output i pools input [floor(i * L / out), "
    "ceil((i + 1) * L / out)), i.e. windows of ceil(L / out) or one more, axis after axis. An output size of 1 "
    "crashes Keras 3.15.1's TF backend (a VALID pool of L + 1 over L: SIGFPE in max pooling), so no case has one.",
]


def main():
    os.makedirs(MODELS_DIR, exist_ok=True)
    keras.utils.set_random_seed(1)
    cases = regularization_cases() + rms_normalization_cases() + adaptive_pooling_cases() + conv1d_cases()
    doc = {
        "generator": {"script": "tests/reference/make_keras_classes_goldens.py", "keras": keras.__version__,
                      "tensorflow": tf.__version__, "numpy": np.__version__,
                      "python": platform.python_version(), "backend": "tensorflow"},
        "notes": NOTES,
        "cases": cases,
        "saved_models": saved_models_section(),
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(cases), "cases")


if __name__ == "__main__":
    main()
