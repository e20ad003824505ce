"""One golden case of a Keras layer, in the format tests/layers/layer_golden_case.h reads,
and a saved-model writer, for the make_*_goldens.py scripts of the layers added for issue
#38 (make_group_query_attention_goldens.py, ...).

A case: the layer's class and config, seeded float32 inputs, optional Keras masks attached
to the inputs ("masks"), the call's flags ("call_arguments") and tensors passed with the
call ("tensor_arguments", in the layer's order), the weights (set to seeded values, not the
initializer's), the outputs, fixed seeded projections, and the gradients (TF GradientTape)
of sum_i sum(outputs[i] * projections[i]) with respect to every input and every trainable
weight (layer.trainable_variables order; the gradient of an integer input, or of a weight the
call does not use, is written as zeros).
Every call uses training=False.
"""
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras.src.backend.common.masking import set_keras_mask  # noqa: E402

from golden_json import arr, jsonable  # noqa: E402


def new(cls, *args, **kwargs):
    """A fresh layer with its default unsuffixed name."""
    keras.backend.clear_session()
    return cls(*args, **kwargs)


def randomize_weights(rng, layer, scale=0.5, trainable_only=False):
    for w in layer.weights:
        if trainable_only and not w.trainable:
            continue
        w.assign((rng.standard_normal(tuple(w.shape)) * scale).astype(w.dtype))


def run_case(rng, name, layer, xs, *, masks=None, call_arguments=None, tensor_arguments=None, randomize=True,
             positional=False, extra=None):
    """xs: float32 (or int) arrays, passed as the call's separate arguments when `positional`
    (layer(q, v, key=k) for the attention layers: the third is `key`), else the one input
    (or a list). masks: Keras masks attached to the inputs (None entries for none).
    tensor_arguments: {name: array or None}, passed by keyword."""
    call_arguments = dict(call_arguments or {})
    tensor_arguments = dict(tensor_arguments or {})
    tins = [tf.constant(a) for a in xs]

    def call():
        for t, m in zip(tins, masks or []):
            set_keras_mask(t, None if m is None else tf.constant(m))
        kw = dict(call_arguments)
        kw.update({k: None if v is None else tf.constant(v) for k, v in tensor_arguments.items()})
        kw["training"] = False
        if positional:
            args = tins[:2]
            if len(tins) > 2:
                kw["key"] = tins[2]
            return layer(*args, **kw)
        return layer(tins[0] if len(tins) == 1 else tins, **kw)

    call()  # builds
    if randomize and layer.weights:
        randomize_weights(rng, layer)
    weights = [np.asarray(w) for w in layer.weights]
    tvars = list(layer.trainable_variables)
    float_inputs = [t for t in tins if t.dtype.is_floating]
    with tf.GradientTape(persistent=True) as tape:
        for t in float_inputs:
            tape.watch(t)
        y = call()
        ys = list(y) if isinstance(y, (list, tuple)) else [y]
        ys_np = [np.asarray(t) for t in ys]
        projs = [rng.standard_normal(a.shape).astype("float32") for a in ys_np]
        loss = tf.add_n([tf.reduce_sum(tf.cast(t, "float32") * p) for t, p in zip(ys, projs)])
    gx = iter(tape.gradient(loss, float_inputs))
    # Integer inputs (token ids) have no gradient: written as zeros, which Strata's is.
    gx = [next(gx) if t.dtype.is_floating else np.zeros(t.shape, "float32") for t in tins]
    gw = tape.gradient(loss, tvars) if tvars else []
    gw = [tf.convert_to_tensor(g) if isinstance(g, tf.IndexedSlices) else g for g in gw]  # an embedding's
    # A weight the call does not use has no gradient: written as zeros, which Strata's is.
    gw = [np.zeros(v.shape, "float32") if g is None else g for g, v in zip(gw, tvars)]
    del tape
    for o in ys_np:
        assert np.all(np.isfinite(o)), name
    case = {
        "name": name,
        "class_name": keras.saving.serialize_keras_object(layer)["class_name"],
        "config": jsonable(layer.get_config()),
        "inputs": [arr(a) for a in xs],
        "masks": None if masks is None else [None if m is None else arr(np.asarray(m, bool)) for m in masks],
        "call_arguments": call_arguments,
        "weights": [arr(w) for w in weights],
        "weight_names": [w.path for w in layer.weights],
        "outputs": [arr(a) for a in ys_np],
        "projections": [arr(p) for p in projs],
        "input_grads": [arr(g) if g is not None else None for g in gx],
        "weight_grads": [arr(g) if g is not None else None for g in gw],
    }
    if tensor_arguments:
        case["tensor_arguments"] = {k: None if v is None else arr(v) for k, v in tensor_arguments.items()}
    if extra:
        case.update(extra)
    return case


def batch_norm_step_case(rng, name, layer, x, *, mask=None, mask_argument=None):
    """One training step of a BatchNormalization `layer` on x (the mask attached to x and/or
    passed with the call) inside a GradientTape, its weights first set to seeded values
    (gamma normal * 0.5 + 1, beta and renorm_mean normal * 0.5, moving_mean normal,
    moving_variance uniform in [0.5, 1.5], renorm's moving_stddev in [0.7, 1.3] and
    renorm_stddev in [0.4, 2.0]); "moving_after": every non-trainable weight after the
    call's update, in layer.non_trainable_weights order; then "inference_outputs" with
    training=False. The format tests/layers/batch_norm_step_golden.h reads."""
    tx = tf.constant(x)
    kwargs = {} if mask_argument is None else {"mask": tf.constant(mask_argument)}

    def attach():
        set_keras_mask(tx, None if mask is None else tf.constant(mask))

    attach()
    layer(tx, training=False, **kwargs)  # builds
    weights = []
    for w in layer.weights:
        shape = tuple(w.shape)
        if w.path.endswith("moving_variance"):
            v = rng.uniform(0.5, 1.5, size=shape)
        elif w.path.endswith("moving_mean"):
            v = rng.standard_normal(shape)
        elif w.path.endswith("moving_stddev"):
            v = rng.uniform(0.7, 1.3, size=shape)
        elif w.path.endswith("renorm_stddev"):
            v = rng.uniform(0.4, 2.0, size=shape)
        elif w.path.endswith("gamma"):
            v = rng.standard_normal(shape) * 0.5 + 1.0
        else:
            v = rng.standard_normal(shape) * 0.5
        v = v.astype("float32")
        w.assign(v)
        weights.append(v)
    tvars = list(layer.trainable_variables)
    with tf.GradientTape() as tape:
        tape.watch(tx)
        attach()
        y = layer(tx, training=True, **kwargs)
        y_np = np.asarray(y)
        proj = rng.standard_normal(y_np.shape).astype("float32")
        loss = tf.reduce_sum(y * proj)
    grads = tape.gradient(loss, [tx] + tvars)
    moving_after = [np.asarray(w) for w in layer.non_trainable_weights]
    attach()
    inference = np.asarray(layer(tx, training=False, **kwargs))
    assert np.all(np.isfinite(y_np)), name
    case = {
        "name": name,
        "class_name": "BatchNormalization",
        "config": jsonable(layer.get_config()),
        "inputs": [arr(x)],
        "masks": None if mask is None else [arr(mask)],
        "call_arguments": {},
        "weights": [arr(w) for w in weights],
        "weight_names": [w.path for w in layer.weights],
        "outputs": [arr(y_np)],
        "projections": [arr(proj)],
        "input_grads": [arr(grads[0])],
        "weight_grads": [arr(g) for g in grads[1:]],
        "moving_after": [arr(v) for v in moving_after],
        "inference_outputs": [arr(inference)],
    }
    if mask_argument is not None:
        case["tensor_arguments"] = {"mask": arr(mask_argument)}
    return case


def save_model(rng, model, base, batch=3):
    """Saves `model` to base.keras and base.h5 with a seeded input per model input and
    Keras's predictions (base.input<i>.npy, base.output<i>.npy); checks that Keras reloads
    both files and predicts the same."""
    xs = []
    for t in model.inputs:
        shape = (batch,) + tuple(t.shape[1:])
        if "int" in str(t.dtype):
            xs.append(rng.integers(0, 10, size=shape).astype(str(t.dtype)))
        else:
            xs.append(rng.standard_normal(shape).astype("float32"))
    ys = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
    ys = ys if isinstance(ys, (list, tuple)) else [ys]
    model.save(base + ".keras")
    model.save(base + ".h5")
    for i, x in enumerate(xs):
        np.save(base + ".input%d.npy" % i, x)
    for i, y in enumerate(ys):
        np.save(base + ".output%d.npy" % i, np.asarray(y, "float32"))
    for ext in (".keras", ".h5"):
        again = keras.saving.load_model(base + ext)
        ys2 = again.predict(xs if len(xs) > 1 else xs[0], verbose=0)
        ys2 = ys2 if isinstance(ys2, (list, tuple)) else [ys2]
        diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in zip(ys, ys2))
        assert diff < 1e-5, (base + ext, diff)
