#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for the attention and
normalization layers Attention, AdditiveAttention, UnitNormalization and
GroupNormalization.

Writes
  tests/data/attention_golden.json          cases (config, inputs, masks, call keyword
                                            arguments, weights, outputs, gradients) and
                                            the errors Keras raises for bad settings
  tests/data/attention/<name>.keras         two small functional models saved by Keras
  tests/data/attention/<name>.h5            (attention_block, attention_scores), with a
  tests/data/attention/<name>.input0.npy    seeded input (batch 3) and Keras's
  tests/data/attention/<name>.output<i>.npy predictions (output1 = attention scores of
                                            attention_scores)

Each case: seeded standard-normal float32 inputs ([query, value] or [query, value, key]
for the attention layers), optional masks passed as mask=[query_mask, value_mask], the
call's keyword arguments (use_causal_mask, return_attention_scores), the layer's weights
set to seeded random values (standard normal * 0.5, not the initializer's), its outputs
([output] or [output, attention_scores]) and the gradients (TF GradientTape) of
sum_i sum(outputs[i] * projections[i]) w.r.t. every input and every trainable weight
(layer.trainable_variables order); projections are fixed seeded arrays stored with the
case. Every call uses training=False (dropout inactive).

Arrays are {"shape": [...], "values": [...]} with "dtype" only when not float32; float
values are the shortest decimal that reads back as the same float32; bools are JSON
booleans.

The C++ suite reads the JSON and the saved files; it never runs Python. Regenerate with
exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 tf_keras==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_attention_goldens.py
"""
import json
import os
import re
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
OUT = os.path.join(DATA, "attention_golden.json")
MODELS_DIR = os.path.join(DATA, "attention")
rng = np.random.default_rng(20261420)


# ------------------------------------------------------------------- helpers
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


def make_input(shape, scale=1.0, shift=0.0):
    return (rng.standard_normal(shape) * scale + shift).astype("float32")


def make_mask(shape, p_true=0.6, min_true_per_row=1):
    """Seeded bool mask of shape (batch, T) with at least min_true_per_row True per row."""
    m = rng.uniform(size=shape) < p_true
    for b in range(shape[0]):
        while m[b].sum() < min_true_per_row:
            m[b, int(rng.integers(0, shape[1]))] = True
        if m[b].all():  # keep some False entries so the mask does something
            m[b, int(rng.integers(0, shape[1]))] = False
    return m


def randomize_weights(layer):
    vals = [(rng.standard_normal(tuple(w.shape)) * 0.5).astype("float32") for w in layer.weights]
    layer.set_weights(vals)


def run_case(name, layer, xs, *, masks=None, call_arguments=None, randomize=True, extra=None):
    """xs: list of float32 arrays. masks: None or [query_mask or None, value_mask or None]."""
    call_arguments = dict(call_arguments or {})
    kw = dict(call_arguments)
    kw["training"] = False
    if masks is not None:
        kw["mask"] = [None if m is None else tf.constant(m) for m in masks]
    single = len(xs) == 1
    tins = [tf.constant(a) for a in xs]
    layer(tins[0] if single else tins, **kw)  # builds
    if randomize and layer.weights:
        randomize_weights(layer)
    weights = [np.asarray(w) for w in layer.weights]
    tvars = list(layer.trainable_variables)
    with tf.GradientTape(persistent=True) as tape:
        for t in tins:
            tape.watch(t)
        y = layer(tins[0] if single else tins, **kw)
        ys = list(y) if isinstance(y, (list, tuple)) else [y]
        ys_np = [np.asarray(t) for t in ys]
        projs = [rng.standard_normal(a.shape).astype("float32") for a in ys_np]
        loss = tf.add_n([tf.reduce_sum(tf.cast(t, "float32") * p) for t, p in zip(ys, projs)])
    gx = tape.gradient(loss, tins)
    gw = tape.gradient(loss, tvars) if tvars else []
    del tape
    for o in ys_np:
        assert np.all(np.isfinite(o)), name
    case = {
        "name": name,
        "class_name": layer.__class__.__name__,
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
    if extra:
        case.update(extra)
    return case


# --------------------------------------------------------------------- cases
def attention_cases():
    c = []
    B = 2
    q34, v54 = (B, 3, 4), (B, 5, 4)
    c.append(run_case("attention_default", L.Attention(), [make_input(q34), make_input(v54)]))
    c.append(run_case("attention_with_key", L.Attention(),
                      [make_input(q34), make_input((B, 5, 6)), make_input(v54)]))
    c.append(run_case("attention_use_scale", L.Attention(use_scale=True), [make_input(q34), make_input(v54)]))
    c.append(run_case("attention_concat", L.Attention(score_mode="concat"), [make_input(q34), make_input(v54)]))
    c.append(run_case("attention_concat_use_scale", L.Attention(score_mode="concat", use_scale=True),
                      [make_input(q34), make_input(v54)]))
    c.append(run_case("attention_causal", L.Attention(), [make_input((B, 4, 4)), make_input((B, 4, 4))],
                      call_arguments={"use_causal_mask": True}))
    c.append(run_case("attention_value_mask", L.Attention(), [make_input(q34), make_input(v54)],
                      masks=[None, make_mask((B, 5))]))
    qm = make_mask((B, 3))
    c.append(run_case("attention_query_value_masks", L.Attention(), [make_input(q34), make_input(v54)],
                      masks=[qm, make_mask((B, 5))]))
    # value mask keeps position 0 in every row so each causal row has something to attend to
    vm = make_mask((B, 4))
    vm[:, 0] = True
    c.append(run_case("attention_causal_value_mask", L.Attention(), [make_input((B, 4, 4)), make_input((B, 4, 4))],
                      masks=[None, vm], call_arguments={"use_causal_mask": True}))
    c.append(run_case("attention_return_scores", L.Attention(), [make_input(q34), make_input(v54)],
                      call_arguments={"return_attention_scores": True}))
    c.append(run_case("attention_return_scores_scale_masks", L.Attention(use_scale=True),
                      [make_input(q34), make_input(v54)], masks=[make_mask((B, 3)), make_mask((B, 5))],
                      call_arguments={"return_attention_scores": True}))
    c.append(run_case("attention_dropout0.3_inference", L.Attention(dropout=0.3),
                      [make_input(q34), make_input(v54)]))
    return c


def additive_attention_cases():
    c = []
    B = 2
    q34, v54 = (B, 3, 4), (B, 5, 4)
    c.append(run_case("additive_default", L.AdditiveAttention(), [make_input(q34), make_input(v54)]))
    c.append(run_case("additive_no_scale", L.AdditiveAttention(use_scale=False),
                      [make_input(q34), make_input(v54)]))
    c.append(run_case("additive_with_key", L.AdditiveAttention(),
                      [make_input(q34), make_input((B, 5, 6)), make_input(v54)]))
    c.append(run_case("additive_masks", L.AdditiveAttention(), [make_input(q34), make_input(v54)],
                      masks=[make_mask((B, 3)), make_mask((B, 5))]))
    c.append(run_case("additive_causal", L.AdditiveAttention(), [make_input((B, 4, 4)), make_input((B, 4, 4))],
                      call_arguments={"use_causal_mask": True}))
    c.append(run_case("additive_return_scores", L.AdditiveAttention(), [make_input(q34), make_input(v54)],
                      call_arguments={"return_attention_scores": True}))
    return c


def unit_normalization_cases():
    c = []
    for nm, axis in [("unit_norm_axis_-1", -1), ("unit_norm_axis_1_2", [1, 2]), ("unit_norm_axis_1", 1)]:
        x = make_input((2, 3, 4))
        x = np.where(np.abs(x) < 0.05, 0.5, x).astype("float32")  # no tiny entries, no zero vectors
        c.append(run_case(nm, L.UnitNormalization(axis=axis), [x]))
    return c


def group_normalization_cases():
    c = []
    c.append(run_case("group_norm_groups2", L.GroupNormalization(groups=2), [make_input((2, 5, 6))]))
    # groups=-1 means one group per channel; Keras resolves it in build(), so the config read
    # after the call already says groups=6.
    c.append(run_case("group_norm_groups-1", L.GroupNormalization(groups=-1), [make_input((2, 5, 6))],
                      extra={"constructor_arguments": {"groups": -1}}))
    c.append(run_case("group_norm_groups1", L.GroupNormalization(groups=1), [make_input((2, 5, 6))]))
    c.append(run_case("group_norm_groups3_4d", L.GroupNormalization(groups=3), [make_input((2, 3, 3, 6))]))
    c.append(run_case("group_norm_groups2_no_center_no_scale",
                      L.GroupNormalization(groups=2, center=False, scale=False), [make_input((2, 5, 6))]))
    c.append(run_case("group_norm_groups3_eps1e-5_scaled_shifted", L.GroupNormalization(groups=3, epsilon=1e-5),
                      [make_input((2, 4, 6), scale=3.0, shift=1.0)],
                      extra={"input_note": "standard normal * 3 + 1"}))
    c.append(run_case("group_norm_axis1_groups2", L.GroupNormalization(groups=2, axis=1), [make_input((2, 4, 3))]))
    return c


def error_cases():
    errs = []

    def attempt(what, class_name, config, fn):
        try:
            fn()
            errs.append({"what": what, "class_name": class_name, "config": config, "raises": None, "message": None})
        except Exception as e:
            msg = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
            errs.append({"what": what, "class_name": class_name, "config": config,
                         "raises": type(e).__name__, "message": msg[:600]})

    x6 = np.ones((2, 5, 6), "float32")
    attempt("GroupNormalization(groups=4) on input (2,5,6): channels not divisible by groups",
            "GroupNormalization", {"groups": 4}, lambda: L.GroupNormalization(groups=4)(x6))
    attempt("GroupNormalization(groups=8) on input (2,5,6): more groups than channels",
            "GroupNormalization", {"groups": 8}, lambda: L.GroupNormalization(groups=8)(x6))
    attempt("Attention(score_mode='bad')", "Attention", {"score_mode": "bad"},
            lambda: L.Attention(score_mode="bad"))
    attempt("Attention()(q) called with a single input tensor (2,3,4)", "Attention", {},
            lambda: L.Attention()(np.ones((2, 3, 4), "float32")))
    return errs


# --------------------------------------------------------------- saved models
def attention_block():
    keras.backend.clear_session()
    keras.utils.set_random_seed(15)
    x = keras.Input((5, 8), name="x")
    q = L.Dense(8, name="q")(x)
    a = L.Attention(use_scale=True, name="self_attention")([q, x], use_causal_mask=True)
    b = L.AdditiveAttention(name="additive")([a, x])
    g = L.GroupNormalization(groups=2, name="group_norm")(b)
    u = L.UnitNormalization(name="unit_norm")(g)
    f = L.Flatten()(u)
    y = L.Dense(3, name="out")(f)
    m = keras.Model(x, y, name="attention_block")
    m.get_layer("self_attention").set_weights([np.asarray(0.7, "float32")])
    gn = m.get_layer("group_norm")
    gn.set_weights([(1.0 + rng.standard_normal(tuple(w.shape)) * 0.5).astype("float32") if "gamma" in w.path
                    else (rng.standard_normal(tuple(w.shape)) * 0.5).astype("float32") for w in gn.weights])
    return m


def attention_scores():
    keras.backend.clear_session()
    keras.utils.set_random_seed(15)
    x = keras.Input((4, 6), name="x")
    out, scores = L.Attention(name="att")([x, x], return_attention_scores=True)
    y = L.Dense(2, name="proj")(out)
    return keras.Model(x, [y, scores], name="attention_scores")


def print_inbound_nodes(model, h5_path, names):
    cfg = model.get_config()
    for l in cfg["layers"]:
        if l["name"] in names:
            print("--- model.get_config() %s inbound_nodes:" % l["name"])
            print(json.dumps(jsonable(l["inbound_nodes"]), indent=1))
    with h5py.File(h5_path, "r") as f:
        mc = f.attrs["model_config"]
        mc = json.loads(mc.decode() if isinstance(mc, bytes) else mc)
    for l in mc["config"]["layers"]:
        if l["name"] in names:
            print("--- %s model_config attr %s inbound_nodes:" % (os.path.basename(h5_path), l["name"]))
            print(json.dumps(l["inbound_nodes"], indent=1))


def saved_models_section():
    os.makedirs(MODELS_DIR, exist_ok=True)
    written = []
    for name, build, att_names in [("attention_block", attention_block, ("self_attention", "additive")),
                                   ("attention_scores", attention_scores, ("att",))]:
        m = build()
        x = rng.standard_normal((3,) + tuple(m.inputs[0].shape[1:])).astype("float32")
        ys = m.predict(x, verbose=0)
        ys = ys if isinstance(ys, (list, tuple)) else [ys]
        base = os.path.join(MODELS_DIR, name)
        m.save(base + ".keras")
        m.save(base + ".h5")
        np.save(base + ".input0.npy", x)
        for i, y in enumerate(ys):
            np.save(base + ".output%d.npy" % i, np.asarray(y, "float32"))
        # The .keras file reloads in Keras and predicts the same.
        check = [keras.saving.load_model(base + ".keras")]
        # Keras 3.15.1 cannot reload Attention from its own .h5: the legacy loader turns any
        # string config value that names a registered function into that function, so
        # score_mode "dot" becomes keras.ops.dot and Attention.__init__ raises. Check the .h5
        # weights instead by loading them into a freshly built model of the same structure.
        try:
            keras.saving.load_model(base + ".h5")
            print("--- %s.h5 reloads with keras.saving.load_model" % name)
        except Exception as e:
            print("--- %s.h5 does NOT reload in Keras %s: %s: %s"
                  % (name, keras.__version__, type(e).__name__, str(e).splitlines()[-1]))
        fresh = build()
        fresh.load_weights(base + ".h5")
        check.append(fresh)
        for r in check:
            ys2 = r.predict(x, verbose=0)
            ys2 = ys2 if isinstance(ys2, (list, tuple)) else [ys2]
            for y, y2 in zip(ys, ys2):
                assert np.allclose(y, y2, atol=1e-6), name
        written.append(base)
        print_inbound_nodes(m, base + ".h5", att_names)
        if name == "attention_block":
            print("--- %s.h5 datasets:" % name)
            with h5py.File(base + ".h5", "r") as f:
                f.visititems(lambda p, o: print("  ", p, o.shape, o.dtype) if isinstance(o, h5py.Dataset) else None)
            print("--- model.weights paths:", [w.path for w in m.weights])
    return written


def main():
    keras.utils.set_random_seed(1)
    doc = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__}
    cases = []
    cases += attention_cases()
    cases += additive_attention_cases()
    cases += unit_normalization_cases()
    cases += group_normalization_cases()
    doc["cases"] = cases
    doc["errors"] = error_cases()
    saved_models_section()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(cases), "cases,", len(doc["errors"]), "errors")


if __name__ == "__main__":
    main()
