#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for the layer classes of issue #13
point 3: ReLU, LeakyReLU, PReLU, ELU, Softmax, Identity, every keras.activations name
through the Activation layer, Rescaling, Normalization, Resizing, CenterCrop, the
keras.applications extras (LayerScale, StochasticDepth) and Keras 3's op layers.

Writes
  tests/data/layer_classes_golden.json      cases (config, inputs, weights, output,
                                            gradients), errors Keras raises, the layer
                                            classes keras.applications models use, the
                                            serialized form of op layers
  tests/data/op_layers/<name>.keras         one small functional model per keras.ops call,
  tests/data/op_layers/<name>.input<i>.npy  with its inputs and Keras's output
  tests/data/op_layers/<name>.output0.npy   (dtype as Keras produced it: float32/int32/bool)
  tests/data/layer_classes/all_new.{keras,h5}       Keras 3, all new classes in one model
  tests/data/layer_classes/all_new.tf.h5            tf_keras 2.x, same classes
  tests/data/layer_classes/all_new[.tf].input0.npy / .output0.npy

Each case: inputs (seeded, with negative values, zeros and values at and near the
layer's thresholds placed first in the flattened array), the layer's weights set to
seeded random values (not the initializer's), its output, and the gradients (TF
GradientTape) of sum(output * projection) w.r.t. every float input and every trainable
weight; projection is a fixed seeded array of the output's shape stored with the case.

The C++ suite reads the JSON; it never runs Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 tf_keras==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_layer_class_goldens.py
"""
import collections
import json
import math
import os
import platform
import re
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402
from keras import ops  # noqa: E402
from keras.src.activations import ALL_OBJECTS_DICT as ACTIVATIONS  # noqa: E402
from keras.src.applications.convnext import LayerScale, StochasticDepth  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "layer_classes_golden.json")
OPS_DIR = os.path.join(DATA, "op_layers")
MODELS_DIR = os.path.join(DATA, "layer_classes")
rng = np.random.default_rng(20261313)


def fnum(v):
    """Shortest decimal that reads back as the same float32 (or the int / bool)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    f = np.float32(v)
    if not np.isfinite(f):
        return str(f)  # "nan", "inf", "-inf" (none expected in these goldens)
    return float(str(f))


def arr(a):
    a = np.asarray(a)
    out = {"shape": list(a.shape)}
    dt = str(a.dtype)
    if dt != "float32":
        out["dtype"] = dt
    if a.dtype == np.bool_:
        out["values"] = [bool(v) for v in a.reshape(-1)]
    elif np.issubdtype(a.dtype, np.integer):
        out["values"] = [int(v) for v in a.reshape(-1)]
    else:
        out["values"] = [fnum(v) for v in a.astype("float32").reshape(-1)]
    return out


def jsonable(obj):
    """Config -> JSON exactly as Keras's json.dumps would write it (tuples -> lists)."""
    return json.loads(json.dumps(obj, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def make_input(shape, specials=(), scale=1.0, positive=False):
    x = rng.standard_normal(shape).astype("float32") * scale
    if positive:
        x = np.abs(x) + 0.05
    flat = x.reshape(-1)
    n = min(len(specials), flat.size)
    flat[:n] = np.asarray(specials[:n], dtype="float32")
    return flat.reshape(shape)


def randomize_weights(layer, kind=None):
    vals = []
    for w in layer.weights:
        shape = tuple(w.shape)
        if "variance" in w.path:
            v = rng.uniform(0.25, 2.0, shape).astype("float32")
        elif "count" in w.path:
            v = np.asarray(int(rng.integers(5, 50)), dtype=str(np.asarray(w).dtype)).reshape(shape)
        else:
            v = (rng.standard_normal(shape) * 0.5).astype("float32")
        vals.append(v)
    layer.set_weights(vals)


def run_case(name, layer, x, *, mask=None, randomize=True, training=False, extra=None):
    xs = x if isinstance(x, list) else [x]
    call_in = xs if len(xs) > 1 else xs[0]
    kw = {}
    if mask is not None:
        kw["mask"] = tf.constant(mask)
    if training:
        kw["training"] = True
    layer(tf.constant(call_in) if not isinstance(call_in, list) else [tf.constant(a) for a in call_in], **kw)  # builds
    if randomize and layer.weights:
        randomize_weights(layer)
    weights = [np.asarray(w) for w in layer.weights]
    tins = [tf.constant(a) for a in xs]
    tvars = list(layer.trainable_variables)
    with tf.GradientTape(persistent=True) as tape:
        for t in tins:
            tape.watch(t)
        y = layer(tins if len(tins) > 1 else tins[0], **kw)
        y_np = np.asarray(y)
        proj = rng.standard_normal(y_np.shape).astype("float32")
        loss = tf.reduce_sum(tf.cast(y, "float32") * proj)
    try:
        gx = tape.gradient(loss, tins)
        gw = tape.gradient(loss, tvars) if tvars else []
        no_grad = None
    except LookupError as e:  # TF registers no gradient for this op (ResizeArea)
        gx, gw, no_grad = [None] * len(tins), [], str(e)
    del tape
    case = {
        "name": name,
        "class_name": layer.__class__.__name__,
        "config": jsonable(layer.get_config()),
        "training": training,
        "inputs": [arr(a) for a in xs],
        "weights": [arr(w) for w in weights],
        "weight_names": [w.path for w in layer.weights],
        "weight_trainable": [bool(w.trainable) for w in layer.weights],
        "output": arr(y_np),
        "projection": arr(proj),
        "input_grads": [arr(g) if g is not None else None for g in gx],
        "weight_grads": [arr(g) for g in gw],
    }
    mod = type(layer).__module__
    if not mod.startswith("keras.src.layers"):
        ser = keras.saving.serialize_keras_object(layer)
        case["module"] = ser.get("module")
        case["registered_name"] = ser.get("registered_name")
    if mask is not None:
        case["inputs"].append(arr(mask))
        case["input_grads"].append(None)
        case["input_roles"] = ["inputs", "mask"]
    if no_grad:
        case["no_gradient"] = no_grad
    if extra:
        case.update(extra)
    return case


# --------------------------------------------------------------------------- cases
def activation_layer_cases():
    c = []
    S = (2, 3, 4)
    specials = [0.0, -0.0, 1e-3, -1e-3, 0.5, -0.5, 3.0, -3.0, 6.0, 2.5, -2.5, 1.0, -1.0, 7.0, -7.0]
    # ReLU
    c.append(run_case("relu_default", L.ReLU(), make_input(S, specials, 2.0)))
    c.append(run_case("relu_max6", L.ReLU(max_value=6.0),
                      make_input(S, [0.0, 6.0, 5.999, 6.001, -1.0, 8.0, -8.0], 4.0)))
    c.append(run_case("relu_slope0.1", L.ReLU(negative_slope=0.1), make_input(S, specials, 2.0)))
    c.append(run_case("relu_threshold0.5", L.ReLU(threshold=0.5),
                      make_input(S, [0.0, 0.5, 0.499, 0.501, -0.5, 1.0, -1.0], 1.0)))
    # Keras 3 refuses threshold < 0 (see "errors"); the combined case uses threshold=1.0.
    c.append(run_case("relu_max6_slope0.2_threshold1", L.ReLU(max_value=6.0, negative_slope=0.2, threshold=1.0),
                      make_input(S, [0.0, 1.0, 0.999, 1.001, 6.0, 5.999, 6.001, -1.0, 8.0, -8.0, 0.5], 4.0)))
    c.append(run_case("relu_slope0.2_threshold1", L.ReLU(negative_slope=0.2, threshold=1.0),
                      make_input(S, [0.0, 1.0, 0.999, 1.001, -1.0, 0.5], 2.0)))
    c.append(run_case("relu_max6_threshold1", L.ReLU(max_value=6.0, threshold=1.0),
                      make_input(S, [0.0, 1.0, 0.999, 1.001, 6.0, 6.001, -1.0, 8.0], 4.0)))
    # LeakyReLU
    c.append(run_case("leaky_relu_default", L.LeakyReLU(), make_input(S, specials, 2.0)))
    c.append(run_case("leaky_relu_0.01", L.LeakyReLU(negative_slope=0.01), make_input(S, specials, 2.0)))
    # PReLU
    c.append(run_case("prelu_default", L.PReLU(), make_input(S, specials, 2.0)))
    c.append(run_case("prelu_shared_1_3d", L.PReLU(shared_axes=[1]), make_input(S, specials, 2.0)))
    c.append(run_case("prelu_shared_1_2_4d", L.PReLU(shared_axes=[1, 2]), make_input((2, 3, 4, 3), specials, 2.0)))
    c.append(run_case("prelu_constant_init_0.25", L.PReLU(alpha_initializer=keras.initializers.Constant(0.25)),
                      make_input((2, 5), specials, 2.0), randomize=False,
                      extra={"weights_from_initializer": True}))
    # ELU
    c.append(run_case("elu_default", L.ELU(), make_input(S, specials, 2.0)))
    c.append(run_case("elu_alpha0.5", L.ELU(alpha=0.5), make_input(S, specials, 2.0)))
    # Softmax
    c.append(run_case("softmax_default", L.Softmax(), make_input(S, [0.0, 0.0, 0.0, 0.0, 50.0, -50.0], 2.0)))
    c.append(run_case("softmax_axis1", L.Softmax(axis=1), make_input(S, [], 2.0)))
    c.append(run_case("softmax_axis_1_2", L.Softmax(axis=[1, 2]), make_input(S, [], 2.0)))
    m = rng.uniform(size=S) > 0.35
    m[0, 0, :] = False  # a fully masked row: Keras outputs zeros there
    m[0, 1, :] = True
    c.append(run_case("softmax_mask_bool", L.Softmax(), make_input(S, [], 2.0), mask=m))
    mb = np.array([[[1, 0, 1, 1]], [[0, 1, 1, 0]]], dtype=bool)  # (2, 1, 4): broadcast over axis 1
    c.append(run_case("softmax_mask_broadcast", L.Softmax(), make_input(S, [], 2.0), mask=mb))
    mf = np.where(rng.uniform(size=S) > 0.3, 1.0, 0.0).astype("float32")
    mf[1, 0, :] = [0.5, 0.51, 0.49, 1.0]  # float masks keep positions > 0.5
    c.append(run_case("softmax_mask_float", L.Softmax(), make_input(S, [], 2.0), mask=mf))
    c.append(run_case("softmax_axis1_mask", L.Softmax(axis=1), make_input(S, [], 2.0), mask=m))
    # Identity
    c.append(run_case("identity", L.Identity(), make_input(S, specials, 2.0)))
    return c


def activation_name_cases():
    c = []
    S = (2, 3, 4)
    specials = [0.0, -0.0, 1e-3, -1e-3, 0.5, -0.5, 1.0, -1.0, 3.0, -3.0, 6.0, 2.5, -2.5, 7.0, -7.0]
    for name in sorted(ACTIVATIONS):
        if name == "threshold":
            continue  # needs positional threshold/default_value: Activation("threshold") fails (see errors)
        x = make_input(S, specials, 2.5)
        case = run_case("activation_" + name, L.Activation(name), x)
        case["activation_name_given"] = name
        c.append(case)
    # gelu with approximate=True is not reachable by an activation name; keras.ops.gelu defaults
    # to approximate=True and its op layer "Gelu" stores it (see op_layers/gelu_op*.keras).
    x = tf.constant(make_input(S, specials, 2.5))
    with tf.GradientTape() as t:
        t.watch(x)
        y = keras.activations.gelu(x, approximate=True)
        proj = rng.standard_normal(y.shape).astype("float32")
        loss = tf.reduce_sum(y * proj)
    g = t.gradient(loss, x)
    c.append({"name": "function_gelu_approximate", "class_name": None,
              "function": "keras.activations.gelu", "function_kwargs": {"approximate": True},
              "config": None, "training": False, "inputs": [arr(x)], "weights": [], "weight_names": [],
              "weight_trainable": [], "output": arr(y), "projection": arr(proj), "input_grads": [arr(g)],
              "weight_grads": []})
    return c


def preprocessing_cases():
    c = []
    img = lambda shape: make_input(shape, [0.0, 255.0, 127.5, -1.0], 60.0) + 100.0  # noqa: E731
    S4 = (2, 3, 4, 3)
    c.append(run_case("rescaling_1_255", L.Rescaling(1.0 / 255), img(S4)))
    c.append(run_case("rescaling_1_127.5_offset_-1", L.Rescaling(1.0 / 127.5, offset=-1.0), img(S4)))
    c.append(run_case("rescaling_list_per_channel", L.Rescaling([0.5, 1.0, 2.0], offset=[0.0, -1.0, 1.0]), img(S4)))
    c.append(run_case("rescaling_numpy_scale", L.Rescaling(np.array([0.25, 0.5, 4.0], dtype="float32")), img(S4)))

    # Normalization
    S2 = (4, 3)
    c.append(run_case("normalization_mean_var_ctor", L.Normalization(mean=[1.0, -2.0, 0.5], variance=[4.0, 0.25, 1.0]),
                      make_input(S2, [1.0, -2.0, 0.5, 0.0], 2.0)))
    c.append(run_case("normalization_zero_variance", L.Normalization(mean=[0.0, 1.0, 2.0], variance=[0.0, 1e-16, 9.0]),
                      make_input(S2, [1e-6, 1.0, 2.0, -1e-6], 1e-5)))
    c.append(run_case("normalization_invert", L.Normalization(mean=[1.0, -2.0, 0.5], variance=[4.0, 0.25, 1.0], invert=True),
                      make_input(S2, [0.0], 1.0)))
    c.append(run_case("normalization_scalar_mean_axis_none", L.Normalization(axis=None, mean=2.0, variance=9.0),
                      make_input((2, 3, 4), [2.0], 3.0)))
    for nm, kw, data_shape, x_shape in [
        ("normalization_adapted_axis_-1", {}, (20, 5), (3, 5)),
        ("normalization_adapted_axis_none", {"axis": None}, (10, 4), (3, 4)),
        ("normalization_adapted_axis_1_3d", {"axis": 1}, (8, 3, 4), (2, 3, 4)),
        ("normalization_adapted_axes_1_2_4d", {"axis": (1, 2)}, (6, 2, 3, 2), (2, 2, 3, 2)),
        ("normalization_adapted_invert", {"invert": True}, (20, 5), (3, 5)),
    ]:
        layer = L.Normalization(**kw)
        data = (rng.standard_normal(data_shape) * rng.uniform(0.5, 3.0, data_shape[-1]) + 1.5).astype("float32")
        layer.adapt(data)
        c.append(run_case(nm, layer, make_input(x_shape, [0.0], 2.0), randomize=False,
                          extra={"adapt_data": arr(data), "adapt_note": "layer.adapt(adapt_data) with a numpy array "
                                 "(np.mean / np.var over the reduced axes, population variance); weights are "
                                 "the adapted state"}))
    # adapt from a batched dataset: Keras merges per-batch mean/var (float32 running formula)
    layer = L.Normalization()
    data = (rng.standard_normal((25, 3)) * 2 + 1).astype("float32")
    layer.adapt(tf.data.Dataset.from_tensor_slices(data).batch(8))
    c.append(run_case("normalization_adapted_dataset_batches_of_8", layer, make_input((3, 3), [0.0], 2.0),
                      randomize=False, extra={"adapt_data": arr(data), "adapt_note":
                                              "layer.adapt(tf.data.Dataset.from_tensor_slices(adapt_data).batch(8))"}))

    # Resizing on (2, 5, 7, 3); tf.image.resize with antialias=False, half-pixel centers.
    S = (2, 5, 7, 3)
    for nm, kw in [
        ("resizing_3x4_bilinear", dict(height=3, width=4)),
        ("resizing_8x10_bilinear", dict(height=8, width=10)),
        ("resizing_5x7_bilinear_same_size", dict(height=5, width=7)),
        ("resizing_3x4_nearest", dict(height=3, width=4, interpolation="nearest")),
        ("resizing_8x10_nearest", dict(height=8, width=10, interpolation="nearest")),
        ("resizing_4x4_crop_bilinear", dict(height=4, width=4, crop_to_aspect_ratio=True)),
        ("resizing_8x6_crop_bilinear", dict(height=8, width=6, crop_to_aspect_ratio=True)),
        ("resizing_2x9_crop_nearest", dict(height=2, width=9, crop_to_aspect_ratio=True, interpolation="nearest")),
        ("resizing_4x4_pad", dict(height=4, width=4, pad_to_aspect_ratio=True)),
        ("resizing_6x14_pad_fill_0.5", dict(height=6, width=14, pad_to_aspect_ratio=True, fill_value=0.5)),
        ("resizing_6x3_pad_odd_difference", dict(height=6, width=3, pad_to_aspect_ratio=True)),
        ("resizing_8x8_pad_nearest", dict(height=8, width=8, pad_to_aspect_ratio=True, interpolation="nearest")),
        ("resizing_4x6_bicubic", dict(height=4, width=6, interpolation="bicubic")),
        ("resizing_3x4_area", dict(height=3, width=4, interpolation="area")),
        ("resizing_3x4_bilinear_antialias", dict(height=3, width=4, antialias=True)),
    ]:
        c.append(run_case(nm, L.Resizing(**kw), make_input(S, [], 1.0)))
    # CenterCrop on (2, 5, 7, 3)
    for nm, kw in [
        ("center_crop_3x4", dict(height=3, width=4)),
        ("center_crop_2x7", dict(height=2, width=7)),
        ("center_crop_5x2", dict(height=5, width=2)),
        ("center_crop_8x10_larger", dict(height=8, width=10)),
        ("center_crop_4x9_mixed", dict(height=4, width=9)),
        ("center_crop_6x3_mixed", dict(height=6, width=3)),
    ]:
        c.append(run_case(nm, L.CenterCrop(**kw), make_input(S, [], 1.0)))
    return c


def applications_extra_cases():
    c = []
    c.append(run_case("layer_scale", LayerScale(1e-6, 4, name="layer_scale"), make_input((2, 3, 4), [0.0], 1.0)))
    c.append(run_case("stochastic_depth_inference", StochasticDepth(0.1, name="stochastic_depth"),
                      make_input((2, 3, 4), [0.0], 1.0)))
    c.append(run_case("multiply_se_broadcast", L.Multiply(), [make_input((2, 3, 3, 4), [0.0], 1.0),
                                                              make_input((2, 1, 1, 4), [], 1.0)]))
    c.append(run_case("reshape_1x1xc", L.Reshape((1, 1, 4)), make_input((2, 4), [0.0], 1.0)))
    c.append(run_case("dense_on_4d", L.Dense(5), make_input((2, 2, 3, 4), [0.0], 1.0)))
    c.append(run_case("gap_keepdims", L.GlobalAveragePooling2D(keepdims=True), make_input((2, 3, 3, 4), [], 1.0)))
    c.append(run_case("layer_norm_eps1e-6", L.LayerNormalization(epsilon=1e-6), make_input((2, 3, 4), [], 1.0)))
    return c


def error_cases():
    errs = []

    def attempt(name, fn):
        try:
            fn()
            errs.append({"name": name, "raises": None})
        except Exception as e:
            msg = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
            errs.append({"name": name, "raises": type(e).__name__, "message": msg[:600]})

    x3 = np.ones((2, 3, 4), "float32")
    attempt("ReLU(threshold=-1)", lambda: L.ReLU(threshold=-1.0))
    attempt("ReLU(max_value=6, negative_slope=0.2, threshold=-1)",
            lambda: L.ReLU(max_value=6.0, negative_slope=0.2, threshold=-1.0))
    attempt("ReLU(max_value=-1)", lambda: L.ReLU(max_value=-1.0))
    attempt("ReLU(negative_slope=-0.1)", lambda: L.ReLU(negative_slope=-0.1))
    attempt("LeakyReLU(negative_slope=-0.1)", lambda: L.LeakyReLU(negative_slope=-0.1))
    attempt("Activation('threshold')(x)", lambda: L.Activation("threshold")(x3))
    attempt("Activation('nope')", lambda: L.Activation("nope"))
    attempt("Activation('glu')(x with odd last dim 3)", lambda: L.Activation("glu")(np.ones((2, 3), "float32")))
    attempt("PReLU(shared_axes=[1,2]) on 3-D input (axis 2 out of range)",
            lambda: L.PReLU(shared_axes=[1, 2])(np.ones((2, 3), "float32")))
    attempt("PReLU built on (2,3,4) then called on (2,3,5)",
            lambda: (lambda l: (l(x3), l(np.ones((2, 3, 5), "float32"))))(L.PReLU()))
    attempt("Softmax mask with more dims than inputs",
            lambda: L.Softmax()(np.ones((3, 4), "float32"), mask=np.ones((2, 3, 4), bool)))
    attempt("Softmax mask not broadcastable (2,3,2) vs (2,3,4)",
            lambda: L.Softmax()(x3, mask=np.ones((2, 3, 2), bool)))
    attempt("Normalization(mean=[1,2]) without variance", lambda: L.Normalization(mean=[1.0, 2.0]))
    attempt("Normalization(mean shape (2,), variance shape (3,))",
            lambda: L.Normalization(mean=[1.0, 2.0], variance=[1.0, 1.0, 1.0]))
    attempt("Normalization(axis=-1, mean shape (2,2)) rank > number of axes",
            lambda: L.Normalization(mean=[[1.0, 2.0], [1.0, 2.0]], variance=[[1.0, 2.0], [1.0, 2.0]]))
    attempt("Normalization(axis=5) on 3-D input", lambda: L.Normalization(axis=5, mean=0.0, variance=1.0)(x3))
    attempt("Normalization() called without adapt (weights default mean 0, var 1)",
            lambda: L.Normalization()(x3))
    attempt("Resizing(crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)(x)",
            lambda: L.Resizing(3, 3, crop_to_aspect_ratio=True, pad_to_aspect_ratio=True)(np.ones((1, 4, 4, 1), "float32")))
    attempt("Resizing(interpolation='cubic')(x)", lambda: L.Resizing(3, 3, interpolation="cubic")(np.ones((1, 4, 4, 1), "float32")))
    attempt("Resizing on 2-D input", lambda: L.Resizing(3, 3)(np.ones((4, 4), "float32")))
    attempt("CenterCrop on 2-D input", lambda: L.CenterCrop(3, 3)(np.ones((4, 4), "float32")))
    attempt("keras.Model with ops.reshape(x, (ops.shape(x)[0], -1)) called",
            lambda: (lambda i: keras.Model(i, ops.reshape(i, (ops.shape(i)[0], -1))))(keras.Input((3, 4)))(x3))
    attempt("Rescaling(scale=[1,2]) on 3 channels", lambda: L.Rescaling([1.0, 2.0])(np.ones((1, 2, 2, 3), "float32")))
    return errs


# ------------------------------------------------------------------ applications
def applications_report():
    A = keras.applications
    builders = [
        ("MobileNetV3Small", lambda: A.MobileNetV3Small(weights=None, input_shape=(32, 32, 3))),
        ("EfficientNetB0", lambda: A.EfficientNetB0(weights=None, input_shape=(32, 32, 3))),
        ("EfficientNetV2B0", lambda: A.EfficientNetV2B0(weights=None, input_shape=(32, 32, 3))),
        ("ConvNeXtTiny", lambda: A.ConvNeXtTiny(weights=None, input_shape=(32, 32, 3))),
        ("MobileNetV2", lambda: A.MobileNetV2(weights=None, input_shape=(32, 32, 3), alpha=0.35)),
    ]
    report = {}
    all_classes = collections.Counter()
    examples = {}
    for name, fn in builders:
        m = fn()
        counts = collections.Counter()
        acts = collections.Counter()

        def walk(layers, prefix=""):
            for l in layers:
                key = "%s%s|%s" % (prefix, l.get("module"), l["class_name"])
                counts[key] += 1
                cfg = l["config"]
                if "activation" in cfg and isinstance(cfg["activation"], str):
                    acts["%s:%s" % (l["class_name"], cfg["activation"])] += 1
                if l["class_name"] in ("Sequential", "Functional"):
                    walk(cfg["layers"], prefix="(nested in %s) " % l["class_name"])
                ex_key = "%s|%s" % (l.get("module"), l["class_name"])
                if ex_key not in examples and l["class_name"] not in ("Conv2D", "Dense", "BatchNormalization",
                                                                      "DepthwiseConv2D", "InputLayer"):
                    e = dict(l)
                    if l["class_name"] == "Sequential":
                        e = json.loads(json.dumps(e, default=list))
                    examples[ex_key] = jsonable(e)
        walk(m.get_config()["layers"])
        for k, v in counts.items():
            all_classes[k] += v
        report[name] = {"layer_classes": dict(sorted(counts.items())), "activations": dict(sorted(acts.items()))}
        keras.backend.clear_session()
    return {"models": report, "all_classes": sorted(all_classes),
            "note": "keys are 'module|class_name'; modules keras.src.ops.* are op layers (Add/Multiply from x + 3.0, "
                    "x * (1/6), inputs + layer(x)), keras.src.applications.convnext is the custom LayerScale",
            "serialized_examples": examples}


# -------------------------------------------------------------------- op layers
def op_models():
    """name -> (number of inputs, fn(inputs) -> output, input kinds)."""
    K = ops
    return {
        "not_equal_0": (1, lambda x: K.not_equal(x[0], 0)),
        "ones_like": (1, lambda x: K.ones_like(x[0])),
        "zeros_like": (1, lambda x: K.zeros_like(x[0])),
        "full_like_3": (1, lambda x: K.full_like(x[0], 3.0)),
        "cast_float32": (1, lambda x: K.cast(x[0], "float32")),
        "cast_int32": (1, lambda x: K.cast(x[0], "int32")),
        "cast_bool_to_float32": (1, lambda x: K.cast(K.greater(x[0], 0), "float32")),
        "add_const": (1, lambda x: K.add(x[0], 3.0)),
        "add_const_left": (1, lambda x: 3.0 + x[0]),
        "add_numpy_const": (1, lambda x: K.add(x[0], np.array([1.0, 2.0, 3.0, 4.0], dtype="float32"))),
        "add_tensor": (2, lambda x: K.add(x[0], x[1])),
        "add_broadcast": (2, lambda x: K.add(x[0], x[1]), [(3, 4), (1, 4)]),
        "subtract_const": (1, lambda x: K.subtract(x[0], 0.5)),
        "subtract_const_left": (1, lambda x: 1.0 - x[0]),
        "subtract_tensor": (2, lambda x: K.subtract(x[0], x[1])),
        "multiply_const": (1, lambda x: K.multiply(x[0], 1.0 / 6.0)),
        "multiply_tensor": (2, lambda x: x[0] * x[1]),
        "divide_const": (1, lambda x: K.divide(x[0], 4.0)),
        "divide_const_left": (1, lambda x: 1.0 / x[0], "nonzero"),
        "divide_tensor": (2, lambda x: K.divide(x[0], x[1]), "nonzero"),
        "reshape_-1_12": (1, lambda x: K.reshape(x[0], (-1, 12))),
        "reshape_-1_4_3": (1, lambda x: K.reshape(x[0], (-1, 4, 3))),
        "expand_dims_1": (1, lambda x: K.expand_dims(x[0], 1)),
        "expand_dims_-1": (1, lambda x: K.expand_dims(x[0], -1)),
        "squeeze_axis1": (1, lambda x: K.squeeze(x[0], axis=1), [(1, 4)]),
        "squeeze_none": (1, lambda x: K.squeeze(x[0]), [(1, 4)]),
        "transpose_0_2_1": (1, lambda x: K.transpose(x[0], (0, 2, 1))),
        "concatenate_-1": (2, lambda x: K.concatenate([x[0], x[1]], axis=-1)),
        "concatenate_1": (2, lambda x: K.concatenate([x[0], x[1]], axis=1)),
        "stack_1": (2, lambda x: K.stack([x[0], x[1]], axis=1)),
        "sum_axis1": (1, lambda x: K.sum(x[0], axis=1)),
        "sum_axes_1_2": (1, lambda x: K.sum(x[0], axis=(1, 2))),
        "sum_all": (1, lambda x: K.sum(x[0])),
        "mean_-1_keepdims": (1, lambda x: K.mean(x[0], axis=-1, keepdims=True)),
        "max_axis2": (1, lambda x: K.max(x[0], axis=2)),
        "min_axis1": (1, lambda x: K.min(x[0], axis=1)),
        "sqrt": (1, lambda x: K.sqrt(x[0]), "positive"),
        "exp": (1, lambda x: K.exp(x[0])),
        "log": (1, lambda x: K.log(x[0]), "positive"),
        "abs": (1, lambda x: K.abs(x[0])),
        "square": (1, lambda x: K.square(x[0])),
        "negative": (1, lambda x: -x[0]),
        "power_2": (1, lambda x: x[0] ** 2),
        "maximum_tensor": (2, lambda x: K.maximum(x[0], x[1])),
        "maximum_const": (1, lambda x: K.maximum(x[0], 0.0)),
        "minimum_tensor": (2, lambda x: K.minimum(x[0], x[1])),
        "minimum_const": (1, lambda x: K.minimum(x[0], 0.5)),
        "clip": (1, lambda x: K.clip(x[0], -1.0, 1.0)),
        "where": (2, lambda x: K.where(K.greater(x[0], 0), x[0], x[1])),
        "matmul": (2, lambda x: K.matmul(x[0], K.transpose(x[1], (0, 2, 1)))),
        "greater_0": (1, lambda x: K.greater(x[0], 0)),
        "greater_equal_0": (1, lambda x: K.greater_equal(x[0], 0.0)),
        "less_tensor": (2, lambda x: K.less(x[0], x[1])),
        "less_equal_0.5": (1, lambda x: K.less_equal(x[0], 0.5)),
        "equal_0": (1, lambda x: K.equal(x[0], 0)),
        "logical_and": (2, lambda x: K.logical_and(K.greater(x[0], 0), K.less(x[1], 0))),
        "get_item_slice": (1, lambda x: x[0][:, 1]),
        "get_item_range": (1, lambda x: x[0][:, 1:3, ::2]),
        "gelu_op_default": (1, lambda x: K.gelu(x[0])),
        "gelu_op_exact": (1, lambda x: K.gelu(x[0], approximate=False)),
        "relu_op": (1, lambda x: K.relu(x[0])),
        "sigmoid_op": (1, lambda x: K.sigmoid(x[0])),
        "softmax_op_axis1": (1, lambda x: K.softmax(x[0], axis=1)),
        "mobilenetv3_hard_sigmoid": (1, lambda x: L.ReLU(6.0)(x[0] + 3.0) * (1.0 / 6.0)),
        "mobilenetv3_hard_swish": (1, lambda x: L.Multiply()([x[0], L.ReLU(6.0)(x[0] + 3.0) * (1.0 / 6.0)])),
    }


def op_layer_section():
    entries = []
    for name, spec in op_models().items():
        n_in, fn = spec[0], spec[1]
        shapes = [(3, 4)] * n_in
        kind = None
        for s in spec[2:]:
            if isinstance(s, list):
                shapes = s
            else:
                kind = s
        keras.backend.clear_session()
        ins = [keras.Input(s, name="x" if i == 0 else "y") for i, s in enumerate(shapes)]
        out = fn(ins)
        model = keras.Model(ins if n_in > 1 else ins[0], out, name=name.replace(".", "_").replace("-", "m"))
        xs = []
        for s in shapes:
            if kind == "positive":
                xs.append(make_input((2,) + s, [1.0, 0.5, 4.0], 1.0, positive=True))
            elif kind == "nonzero":
                v = make_input((2,) + s, [1.0, -0.5, 4.0], 1.0)
                xs.append(np.where(np.abs(v) < 0.1, 0.5, v).astype("float32"))
            else:
                xs.append(make_input((2,) + s, [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 3.0], 1.5))
        y = model(xs if n_in > 1 else xs[0])
        y = np.asarray(y)
        base = os.path.join(OPS_DIR, name)
        model.save(base + ".keras")
        for i, a in enumerate(xs):
            np.save(base + ".input%d.npy" % i, a)
        np.save(base + ".output0.npy", y)
        # the file reloads in Keras and predicts the same
        re = keras.saving.load_model(base + ".keras")
        y2 = np.asarray(re(xs if n_in > 1 else xs[0]))
        assert y2.dtype == y.dtype and np.array_equal(y2, y), name
        cfg = model.get_config()
        op_entries = [jsonable(l) for l in cfg["layers"] if l["class_name"] != "InputLayer"]
        entries.append({
            "name": name,
            "file": "tests/data/op_layers/%s.keras" % name,
            "inputs": [arr(a) for a in xs],
            "output": arr(y),
            "layers": op_entries,
        })
    return entries


# --------------------------------------------------------------- saved models
def all_new_keras3(adapt_data):
    keras.backend.clear_session()
    keras.utils.set_random_seed(7)
    inp = keras.Input((5, 7, 3), name="image")
    norm = L.Normalization(name="norm_adapted")
    norm.adapt(adapt_data)
    h = L.Rescaling(1.0 / 127.5, offset=-1.0, name="rescaling")(inp)
    h = norm(h)
    h = L.Normalization(mean=[0.1, -0.2, 0.3], variance=[1.5, 0.5, 2.0], name="norm_ctor")(h)
    h = L.Resizing(8, 10, name="resizing")(h)
    h = L.Resizing(6, 6, interpolation="nearest", crop_to_aspect_ratio=True, name="resizing_crop")(h)
    h = L.CenterCrop(4, 5, name="center_crop")(h)
    a = L.ReLU(max_value=6.0, negative_slope=0.1, threshold=0.5, name="relu")(h)
    b = L.LeakyReLU(negative_slope=0.2, name="leaky_relu")(h)
    c = L.PReLU(shared_axes=[1, 2], name="prelu")(h)
    d = L.ELU(alpha=0.5, name="elu")(h)
    e = L.Identity(name="identity")(h)
    h = L.Concatenate(name="concat")([a, b, c, d, e])
    h = L.Activation("hard_silu", name="act_hard_silu")(h)
    h = L.Activation("gelu", name="act_gelu")(h)
    h = L.Softmax(axis=-1, name="softmax")(h)
    m = keras.Model(inp, h, name="all_new")
    m.get_layer("prelu").set_weights([rng.uniform(-0.5, 0.8, (1, 1, 3)).astype("float32")])
    return m


def all_new_tf_keras(adapt_data):
    import tf_keras as tk
    TL = tk.layers
    tk.backend.clear_session()
    inp = tk.Input((5, 7, 3), name="image")
    norm = TL.Normalization(name="norm_adapted")
    norm.adapt(adapt_data)
    h = TL.Rescaling(1.0 / 127.5, offset=-1.0, name="rescaling")(inp)
    h = norm(h)
    h = TL.Normalization(mean=[0.1, -0.2, 0.3], variance=[1.5, 0.5, 2.0], name="norm_ctor")(h)
    h = TL.Resizing(8, 10, name="resizing")(h)
    h = TL.Resizing(6, 6, interpolation="nearest", crop_to_aspect_ratio=True, name="resizing_crop")(h)
    h = TL.CenterCrop(4, 5, name="center_crop")(h)
    a = TL.ReLU(max_value=6.0, negative_slope=0.1, threshold=0.5, name="relu")(h)
    b = TL.LeakyReLU(alpha=0.2, name="leaky_relu")(h)
    c = TL.PReLU(shared_axes=[1, 2], name="prelu")(h)
    d = TL.ELU(alpha=0.5, name="elu")(h)
    e = TL.Identity(name="identity")(h)
    h = TL.Concatenate(name="concat")([a, b, c, d, e])
    h = TL.Activation("gelu", name="act_gelu")(h)
    h = TL.Softmax(axis=-1, name="softmax")(h)
    m = tk.Model(inp, h, name="all_new_tf")
    m.get_layer("prelu").set_weights([rng.uniform(-0.5, 0.8, (1, 1, 3)).astype("float32")])
    return m


def saved_models_section():
    out = []
    adapt_data = (rng.uniform(0, 255, (6, 5, 7, 3)) / 127.5 - 1.0).astype("float32")
    x = rng.uniform(0, 255, (2, 5, 7, 3)).astype("float32")
    base = os.path.join(MODELS_DIR, "all_new")
    m = all_new_keras3(adapt_data)
    y = np.asarray(m(x))
    m.save(base + ".keras")
    m.save(base + ".h5")
    np.save(base + ".input0.npy", x)
    np.save(base + ".output0.npy", y)
    for ext in (".keras", ".h5"):
        y2 = np.asarray(keras.saving.load_model(base + ext)(x))
        assert np.allclose(y, y2, atol=1e-6), ext
    out.append({"files": ["tests/data/layer_classes/all_new.keras", "tests/data/layer_classes/all_new.h5"],
                "input": "tests/data/layer_classes/all_new.input0.npy",
                "output": "tests/data/layer_classes/all_new.output0.npy",
                "saved_by": "keras " + keras.__version__,
                "layer_classes": sorted({type(l).__name__ for l in m.layers}),
                "layers": [[l.name, type(l).__name__] for l in m.layers],
                "weights": {w.path: arr(np.asarray(w)) for w in m.weights},
                "adapt_data_shape": list(adapt_data.shape)})
    import tf_keras as tk
    tm = all_new_tf_keras(adapt_data)
    ty = np.asarray(tm(x))
    tm.save(base + ".tf.h5")
    np.save(base + ".tf.input0.npy", x)
    np.save(base + ".tf.output0.npy", ty)
    ty2 = np.asarray(tk.models.load_model(base + ".tf.h5")(x))
    assert np.allclose(ty, ty2, atol=1e-6)
    out.append({"files": ["tests/data/layer_classes/all_new.tf.h5"],
                "input": "tests/data/layer_classes/all_new.tf.input0.npy",
                "output": "tests/data/layer_classes/all_new.tf.output0.npy",
                "saved_by": "tf_keras " + tk.__version__,
                "layer_classes": sorted({type(l).__name__ for l in tm.layers}),
                "layers": [[l.name, type(l).__name__] for l in tm.layers],
                "weights": {w.name: arr(np.asarray(w)) for w in tm.weights},
                "note": "no Activation('hard_silu') here: tf_keras has no hard_silu/hard_swish activation name; "
                        "tf_keras LeakyReLU's config key is 'alpha' (stored as float32-rounded double), "
                        "tf_keras gelu activation default approximate=False",
                "configs": {l.name: jsonable(l.get_config()) for l in tm.layers}})
    return out


NOTES = [
    "All values are float32 written as the shortest decimal that reads back as the same float32.",
    "input_grads / weight_grads: d sum(output * projection) / d input (weights: trainable ones only, "
    "in layer.trainable_variables order = the order of weight_trainable==true in weights). "
    "A null input_grad is a non-differentiable input (a Softmax mask).",
    "Gradients at exact kinks (x == 0 for ReLU/LeakyReLU/PReLU/ELU, x == threshold, x == max_value) are "
    "TensorFlow's choices; inputs hold such points first in the flattened array on purpose.",
    "TF gradients at kinks recorded here: relu'(0)=0; leaky_relu'(0)=negative_slope; PReLU'(0)=0; elu'(0)=1; "
    "ReLU(threshold=t)'(t)=0 (strict >); ReLU(max_value=6) alone goes through relu6 whose gradient at 6 is 0, "
    "but with threshold or negative_slope set it goes through clip whose gradient at max_value is 1; "
    "celu'(0)=2 (TF computes max(0,x) + min(0, alpha*(exp(x/alpha)-1)) and both sides pass 1); "
    "hard_shrink/soft_shrink'(+-0.5)=0; hard_sigmoid'(+-3)=0; hard_tanh'(+-1)=1.",
    "ReLU (Keras 3): threshold < 0, negative_slope < 0 or max_value < 0 raise ValueError at construction. "
    "Math (keras.activations.relu): if negative_slope != 0 and max_value is None and threshold == 0: "
    "leaky_relu. Otherwise negative_part = relu(-x + threshold) if threshold != 0 else relu(-x) "
    "(only when negative_slope != 0); x = where(x > threshold, x, 0) if threshold != 0 (strict >) "
    "else relu(x) (relu6 when max_value == 6); x = clip(x, 0, max_value) if max_value set; "
    "x -= negative_slope * negative_part. So below threshold the output is negative_slope * (x - threshold), "
    "which jumps at x == threshold from 0 to threshold (discontinuous).",
    "LeakyReLU layer default negative_slope=0.3; activation name 'leaky_relu' default negative_slope=0.2.",
    "PReLU: y = relu(x) - alpha * relu(-x); alpha shape = input_shape[1:] with shared_axes set to 1; "
    "weight path 'prelu/alpha'; default alpha_initializer Zeros.",
    "ELU layer: alpha*(exp(x)-1) for x <= 0 (TF elu), x otherwise; config has 'alpha' (Keras 3 writes it "
    "before 'trainable').",
    "Softmax layer: mask (bool, or float kept where > 0.5) broadcastable to inputs: masked logits become "
    "-1e9 (float32; -3e4 for float16), softmax, then masked outputs set to 0 (a fully masked row gives 0s). "
    "axis may be a list: exp(x - logsumexp(x, axis, keepdims)).",
    "Activation layer config stores keras.activations.serialize(fn): 'swish' is written as 'silu' and "
    "'hard_swish' as 'hard_silu' (activation_name_given vs config.activation). 'threshold' cannot be "
    "used by name. Activation('gelu') is exact (erf); keras.ops.gelu defaults to approximate=True.",
    "hard_sigmoid (Keras 3) = relu6(x + 3) / 6; hard_silu = x * hard_sigmoid(x). "
    "sparse_sigmoid/sparse_plus/squareplus(b=4)/celu(alpha=1)/glu(axis=-1: a * sigmoid(b), a first half)/"
    "hard_shrink(0.5)/soft_shrink(0.5)/log_sigmoid/tanh_shrink/hard_tanh/sparsemax: see keras/src/backend/"
    "tensorflow/nn.py; all are the outputs recorded here.",
    "Rescaling: cast(x) * scale + offset; a list/array scale broadcasts on the last axis (channels_last); "
    "numpy-array scale is serialized as {'class_name': '__numpy__', 'config': {'value': [...], 'dtype': ...}}.",
    "Normalization: (x - mean) / maximum(sqrt(variance), 1e-7) (backend.epsilon(), not added to variance); "
    "invert=True: mean + x * maximum(sqrt(variance), 1e-7). With mean/variance given in the constructor "
    "there are NO weights (config holds them as lists / scalars); otherwise three non-trainable weights "
    "'mean' and 'variance' of shape = kept-axis dims and 'count' (int64 scalar) -- Keras 3.15's adapt() "
    "does NOT update count (it stays 0; tf_keras's adapt sets it to the number of reduced elements, 210 in all_new.tf.h5, and stores the weights as '<layer>/mean:0' etc. directly under model_weights/<layer>/ in its .h5). config 'axis' is a list ([-1], [] for axis=None); "
    "mean/variance null when adapted. Adapt with numpy: np.mean/np.var (population).",
    "Resizing: tf.image.resize(images, (h, w), method=interpolation, antialias=False) -- half-pixel centers "
    "(align_corners=False, half_pixel_centers=True) for bilinear and nearest; nearest rounds "
    "(x+0.5)*scale-0.5 via floor of (dst+0.5)*in/out (TF ResizeNearestNeighbor half_pixel: "
    "src = min(floor((dst + 0.5) * in / out), in - 1)). crop_to_aspect_ratio: crop_h = "
    "max(min(H, int(W * h / w)), 1), crop_w = max(min(W, int(H * w / h)), 1), start = int((H - crop_h) / 2), "
    "then resize. pad_to_aspect_ratio: pad_h = max(H, int(W * h / w)), pad_w = max(W, int(H * w / h)); "
    "Keras pads int((pad_h - H)/2) rows of fill_value on BOTH sides (so an odd difference loses a row: "
    "resizing_6x3_pad_odd_difference pads 5 rows to 13, not 14), "
    "then resizes.",
    "CenterCrop: if H >= h and W >= w: slice [ (H-h)//2 : +h, (W-w)//2 : +w ]; otherwise (either dim "
    "larger) keras.utils.smart_resize: crop the largest centered window with the target aspect ratio "
    "(same formula as Resizing crop_to_aspect_ratio) then bilinear resize -- including the mixed case.",
    "LayerScale (keras.src.applications.convnext, registered_name 'LayerScale'): x * gamma, gamma shape "
    "(projection_dim,), weight created by add_weight without a name.",
    "StochasticDepth (same module): identity at inference; training: x / keep_prob * floor(keep_prob + U[0,1)) "
    "per sample. Not present in ConvNeXtTiny (drop_path_rate 0): Activation('linear') named '*_identity' is used.",
    "Op layers: module 'keras.src.ops.numpy' / 'keras.src.ops.core' / 'keras.src.ops.nn' / "
    "'keras.src.ops.math' / 'keras.src.ops.linalg', registered_name == class_name; config holds "
    "only 'name' plus the Operation's constructor arguments (axis, keepdims, newshape, axes, dtype, ...); "
    "the call's tensor and constant arguments are in inbound_nodes[0].args in call order (a constant "
    "may come first: 3.0 + x), Python scalars inline, numpy arrays as __numpy__, slices as __slice__. "
    "Class names collide with layers (Add, Multiply, Subtract, Maximum, Minimum, Concatenate, Reshape, "
    "Softmax): dispatch on module. ops.reshape's newshape includes the batch axis (-1 or null).",
]


def main():
    os.makedirs(OPS_DIR, exist_ok=True)
    os.makedirs(MODELS_DIR, exist_ok=True)
    keras.utils.set_random_seed(1)
    import tf_keras
    doc = {
        "generator": {"script": "tests/reference/make_layer_class_goldens.py", "keras": keras.__version__,
                      "tensorflow": tf.__version__, "tf_keras": tf_keras.__version__,
                      "numpy": np.__version__, "python": platform.python_version(), "backend": "tensorflow"},
        "notes": NOTES,
        "activation_names": sorted(ACTIVATIONS),
    }
    cases = []
    cases += activation_layer_cases()
    cases += activation_name_cases()
    cases += preprocessing_cases()
    cases += applications_extra_cases()
    doc["cases"] = cases
    doc["errors"] = error_cases()
    doc["applications"] = applications_report()
    doc["op_layers"] = op_layer_section()
    doc["saved_models"] = saved_models_section()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(cases), "cases,", len(doc["op_layers"]), "op models")


if __name__ == "__main__":
    main()
