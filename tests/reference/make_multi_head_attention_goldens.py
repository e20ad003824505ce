#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for EinsumDense and
MultiHeadAttention.

Writes
  tests/data/multi_head_attention_golden.json          cases (config, inputs, masks, call
                                                        keyword arguments, weights, outputs,
                                                        gradients), the errors Keras raises
                                                        for bad settings and the h5 dataset
                                                        paths of a MultiHeadAttention layer
                                                        saved inside a model (file_layouts)
  tests/data/multi_head_attention/<name>.keras         three small functional models saved
  tests/data/multi_head_attention/<name>.h5            by Keras (transformer_block,
  tests/data/multi_head_attention/<name>.input0.npy    mha_scores, einsum_dense), with a
  tests/data/multi_head_attention/<name>.output<i>.npy seeded input (batch 3) and Keras's
                                                        predictions (output1 = attention
                                                        scores of mha_scores)

Each case: seeded standard-normal float32 inputs (one input for EinsumDense; [query, value]
or [query, value, key] for MultiHeadAttention; the self-attention cases list the same array
twice and the gradients are taken w.r.t. each of the two inputs separately), optional masks
[query_mask, value_mask] (bool, (batch, Tq) and (batch, Tv)), the call's keyword arguments
(use_causal_mask, return_attention_scores), the layer's weights set to seeded random values
(standard normal * 0.5, not the initializer's), its outputs ([output] or [output,
attention_scores of shape (batch, heads, Tq, Tv)]) and the gradients (TF GradientTape) of
sum_i sum(outputs[i] * projections[i]) w.r.t. every input and every trainable weight
(layer.trainable_variables order, the same as weight_names); projections are fixed seeded
arrays stored with the case. Every call uses training=False (dropout inactive).

MultiHeadAttention is called as layer(query, value, key=key, query_mask=..., value_mask=...,
key_mask=None, training=False, **call_arguments). Keras 3.15.1's MultiHeadAttention.call
overwrites its query_mask argument with the Keras mask attached to the query tensor, so a
query_mask passed only as an argument does nothing; the query mask recorded in a case is
therefore also attached to the query tensor (as a masked Embedding / Masking layer would in
a model) so that it takes effect. The case with a query mask records
"query_mask_argument_ignored" (whether the argument alone changes nothing).

A query position masked False leaves its whole attention row masked. Keras 3.15.1 gives such
a row uniform weights (1/Tv) when it computes attention with ops.dot_product_attention (no
dropout and return_attention_scores=False), but all-zero weights on its Softmax-layer path
(return_attention_scores=True or dropout > 0). The two masked cases record which one applied
in "fully_masked_query_rows"; partly masked rows agree on both paths.

keras.backend.clear_session() runs before each layer is made, so every case's layer has its
default unsuffixed name (weight_names read "multi_head_attention/query/kernel",
"einsum_dense/kernel", ...).

Arrays are {"shape": [...], "values": [...]} with "dtype" only when not float32; float
values are the shortest decimal that reads back as the same float32; bools are JSON
booleans.

The C++ suite reads the JSON and the saved files; it never runs Python. Regenerate with
exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 tf_keras==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_multi_head_attention_goldens.py
"""
import io
import json
import os
import re
import sys
import tempfile
import zipfile

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import h5py  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402
from keras.src.backend.common.masking import set_keras_mask  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "multi_head_attention_golden.json")
MODELS_DIR = os.path.join(DATA, "multi_head_attention")
rng = np.random.default_rng(20261601)


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


def randomize_weights(layer, scale=0.5):
    vals = [(rng.standard_normal(tuple(w.shape)) * scale).astype("float32") for w in layer.weights]
    layer.set_weights(vals)


def new(cls, *args, **kwargs):
    """A fresh layer with its default unsuffixed name."""
    keras.backend.clear_session()
    return cls(*args, **kwargs)


def mha_call(layer, tins, masks, call_arguments):
    """layer(query, value, key=..., query_mask=..., value_mask=..., key_mask=None, ...)."""
    kw = dict(call_arguments)
    kw["training"] = False
    qm = vm = None
    if masks is not None:
        qm = None if masks[0] is None else tf.constant(masks[0])
        vm = None if masks[1] is None else tf.constant(masks[1])
    # MultiHeadAttention.call reads the query mask from the query tensor's Keras mask (and
    # clears it), so attach it again before every call.
    set_keras_mask(tins[0], qm)
    key = tins[2] if len(tins) > 2 else None
    return layer(tins[0], tins[1], key=key, query_mask=qm, value_mask=vm, key_mask=None, **kw)


def run_case(name, layer, xs, *, masks=None, call_arguments=None, randomize=True, extra=None):
    """xs: list of float32 arrays. masks: None or [query_mask or None, value_mask or None]
    (MultiHeadAttention only)."""
    call_arguments = dict(call_arguments or {})
    is_mha = isinstance(layer, L.MultiHeadAttention)
    tins = [tf.constant(a) for a in xs]

    def call():
        if is_mha:
            return mha_call(layer, tins, masks, call_arguments)
        assert masks is None and len(tins) == 1
        return layer(tins[0], training=False, **call_arguments)

    call()  # builds
    if randomize and layer.weights:
        randomize_weights(layer)
    weights = [np.asarray(w) for w in layer.weights]
    tvars = list(layer.trainable_variables)
    assert [v.path for v in tvars] == [w.path for w in layer.weights], name
    with tf.GradientTape(persistent=True) as tape:
        for t in tins:
            tape.watch(t)
        y = call()
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
    return case, layer


# A query position whose mask is False has every attention weight masked. Keras 3.15.1 treats
# such rows differently on its two attention paths (see the module docstring).
FULLY_MASKED_UNIFORM = ("uniform: ops.dot_product_attention path (no dropout, no attention scores); masked "
                        "logits become -0.7 * float32 max, so the row's weights are 1/Tv over every position")
FULLY_MASKED_ZERO = ("zero: Softmax-layer path (return_attention_scores=True or dropout > 0); the row's "
                     "attention weights are all 0, so the output row is the output projection's bias")


# --------------------------------------------------------------------- cases
def einsum_dense_cases():
    c = []
    ED = L.EinsumDense
    c.append(run_case("einsum_ab_bc_ac", new(ED, "ab,bc->ac", output_shape=4, bias_axes="c"),
                      [make_input((2, 3))])[0])
    case, _ = run_case("einsum_abc_cd_abd_relu",
                       new(ED, "abc,cd->abd", output_shape=(None, 5), bias_axes="d", activation="relu"),
                       [make_input((2, 3, 4))])
    out = np.asarray(case["outputs"][0]["values"])
    assert (out == 0).any() and (out > 0).any(), "relu case needs negative and positive pre-activations"
    c.append(case)
    c.append(run_case("einsum_abc_cde_abde_query_projection",
                      new(ED, "abc,cde->abde", output_shape=(None, 2, 3), bias_axes="de"),
                      [make_input((2, 4, 6))])[0])
    c.append(run_case("einsum_abcd_cde_abe_output_projection",
                      new(ED, "abcd,cde->abe", output_shape=(None, 6), bias_axes="e"),
                      [make_input((2, 4, 2, 3))])[0])
    c.append(run_case("einsum_abc_cd_abd_no_bias", new(ED, "abc,cd->abd", output_shape=(None, 5)),
                      [make_input((2, 3, 4))])[0])
    # Contraction over two axes (b and c) into a rank-2 output; kept only if Keras accepts it.
    try:
        x = make_input((2, 3, 4))
        c.append(run_case("einsum_abc_bcd_ad", new(ED, "abc,bcd->ad", output_shape=5, bias_axes="d"), [x])[0])
    except Exception as e:  # noqa: BLE001
        print("--- EinsumDense('abc,bcd->ad') skipped: %s: %s" % (type(e).__name__, e))
    return c


def mha_cases():
    c = []
    MHA = L.MultiHeadAttention
    B = 2
    q36, v54, v46 = (B, 3, 6), (B, 5, 4), (B, 4, 6)

    x = make_input((B, 4, 6))
    c.append(run_case("mha_self_heads2_key_dim3", new(MHA, num_heads=2, key_dim=3), [x, x.copy()])[0])
    c.append(run_case("mha_cross_heads2_key_dim3", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q36), make_input(v54)])[0])
    c.append(run_case("mha_with_key", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q36), make_input(v54), make_input((B, 5, 5))])[0])
    c.append(run_case("mha_value_dim5_heads3_key_dim2", new(MHA, num_heads=3, key_dim=2, value_dim=5),
                      [make_input(q36), make_input(v46)])[0])
    c.append(run_case("mha_output_shape7", new(MHA, num_heads=2, key_dim=3, output_shape=7),
                      [make_input(q36), make_input(v46)])[0])
    c.append(run_case("mha_no_bias", new(MHA, num_heads=2, key_dim=3, use_bias=False),
                      [make_input(q36), make_input(v54)])[0])
    x = make_input((B, 4, 6))
    c.append(run_case("mha_causal", new(MHA, num_heads=2, key_dim=3), [x, x.copy()],
                      call_arguments={"use_causal_mask": True})[0])

    # query + value masks; also record whether the query_mask argument alone does anything
    qm, vm = make_mask((B, 3)), make_mask((B, 5))
    xs = [make_input(q36), make_input(v54)]
    case, layer = run_case("mha_query_value_masks", new(MHA, num_heads=2, key_dim=3), xs, masks=[qm, vm],
                           extra={"fully_masked_query_rows": FULLY_MASKED_UNIFORM})
    t = [tf.constant(a) for a in xs]
    arg_only = np.asarray(layer(t[0], t[1], query_mask=tf.constant(qm), value_mask=tf.constant(vm), training=False))
    t = [tf.constant(a) for a in xs]
    no_qm = np.asarray(layer(t[0], t[1], value_mask=tf.constant(vm), training=False))
    case["query_mask_argument_ignored"] = bool(np.array_equal(arg_only, no_qm))
    c.append(case)

    # value mask keeps position 0 in every row so each causal row has something to attend to
    vm = make_mask((B, 4))
    vm[:, 0] = True
    x = make_input((B, 4, 6))
    c.append(run_case("mha_causal_value_mask", new(MHA, num_heads=2, key_dim=3), [x, x.copy()],
                      masks=[None, vm], call_arguments={"use_causal_mask": True})[0])
    c.append(run_case("mha_return_scores", new(MHA, num_heads=2, key_dim=3), [make_input(q36), make_input(v54)],
                      call_arguments={"return_attention_scores": True})[0])
    c.append(run_case("mha_return_scores_masks", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q36), make_input(v54)], masks=[make_mask((B, 3)), make_mask((B, 5))],
                      call_arguments={"return_attention_scores": True},
                      extra={"fully_masked_query_rows": FULLY_MASKED_ZERO})[0])
    c.append(run_case("mha_dropout0.2_inference", new(MHA, num_heads=2, key_dim=3, dropout=0.2),
                      [make_input(q36), make_input(v54)])[0])
    return c


def h5_dataset_paths(f):
    paths = []
    f.visititems(lambda p, o: paths.append(p) if isinstance(o, h5py.Dataset) else None)
    return paths


def keras_zip_weight_paths(path):
    with zipfile.ZipFile(path) as z:
        data = z.read("model.weights.h5")
    with h5py.File(io.BytesIO(data), "r") as f:
        return h5_dataset_paths(f)


def file_layouts():
    """Dataset paths of a MultiHeadAttention layer (mha_cross_heads2_key_dim3's settings)
    saved inside a functional model to .keras (model.weights.h5 in the zip) and to .h5."""
    keras.backend.clear_session()
    q = keras.Input((3, 6), name="query")
    v = keras.Input((5, 4), name="value")
    y = L.MultiHeadAttention(num_heads=2, key_dim=3)(q, v)
    m = keras.Model([q, v], y, name="mha_layout")
    with tempfile.TemporaryDirectory() as d:
        m.save(os.path.join(d, "x.keras"))
        m.save(os.path.join(d, "x.h5"))
        kz = keras_zip_weight_paths(os.path.join(d, "x.keras"))
        with h5py.File(os.path.join(d, "x.h5"), "r") as f:
            h5 = h5_dataset_paths(f)
    return {"model": "keras.Model([Input((3, 6), name='query'), Input((5, 4), name='value')], "
                     "MultiHeadAttention(num_heads=2, key_dim=3)(query, value))",
            "weight_names": [w.path for w in m.weights], "keras_zip": kz, "h5": h5}


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

    x234 = np.ones((2, 3, 4), "float32")
    attempt("EinsumDense('abc,cd->abd', output_shape=5) on input (2,3,4): output_shape rank does not match "
            "the output spec", "EinsumDense", {"equation": "abc,cd->abd", "output_shape": 5},
            lambda: new(L.EinsumDense, "abc,cd->abd", output_shape=5)(x234))
    attempt("EinsumDense('ab,bc->ac', output_shape=4, bias_axes='x') on input (2,3): bias axis not in the "
            "output spec", "EinsumDense", {"equation": "ab,bc->ac", "output_shape": 4, "bias_axes": "x"},
            lambda: new(L.EinsumDense, "ab,bc->ac", output_shape=4, bias_axes="x")(np.ones((2, 3), "float32")))
    q, v, k = np.ones((2, 3, 6), "float32"), np.ones((2, 4, 5), "float32"), np.ones((2, 5, 5), "float32")
    attempt("MultiHeadAttention(num_heads=2, key_dim=3) called eagerly on query (2,3,6), value (2,4,5), "
            "key (2,5,5): key and value sequence lengths differ", "MultiHeadAttention",
            {"num_heads": 2, "key_dim": 3},
            lambda: new(L.MultiHeadAttention, num_heads=2, key_dim=3)(q, v, key=k))
    attempt("MultiHeadAttention(num_heads=2, key_dim=3) called on keras.Input query (3,6), value (4,5), "
            "key (5,5): key and value sequence lengths differ (functional model building)",
            "MultiHeadAttention", {"num_heads": 2, "key_dim": 3},
            lambda: new(L.MultiHeadAttention, num_heads=2, key_dim=3)(
                keras.Input((3, 6)), keras.Input((4, 5)), key=keras.Input((5, 5))))
    return errs


# --------------------------------------------------------------- saved models
def transformer_block(randomize=True):
    keras.backend.clear_session()
    keras.utils.set_random_seed(16)
    x = keras.Input((5, 8), name="x")
    a = L.MultiHeadAttention(num_heads=2, key_dim=4, name="mha")(x, x, use_causal_mask=True)
    h = L.Add()([x, a])
    h = L.LayerNormalization(epsilon=1e-6)(h)
    f = L.Dense(16, activation="relu")(h)
    f = L.Dense(8)(f)
    h = L.LayerNormalization(epsilon=1e-6)(L.Add()([h, f]))
    y = L.Dense(3)(L.Flatten()(h))
    m = keras.Model(x, y, name="transformer_block")
    if randomize:
        randomize_weights(m.get_layer("mha"), scale=0.3)
    return m


def mha_scores(randomize=True):
    keras.backend.clear_session()
    keras.utils.set_random_seed(16)
    x = keras.Input((4, 6), name="x")
    out, scores = L.MultiHeadAttention(num_heads=3, key_dim=2, value_dim=3, output_shape=5, name="mha")(
        x, x, return_attention_scores=True)
    return keras.Model(x, [L.Dense(2)(out), scores], name="mha_scores")


def einsum_dense(randomize=True):
    keras.backend.clear_session()
    keras.utils.set_random_seed(16)
    x = keras.Input((4, 6), name="x")
    h = L.EinsumDense("abc,cde->abde", output_shape=(None, 2, 3), bias_axes="de", activation="tanh")(x)
    y = L.EinsumDense("abcd,cde->abe", output_shape=(None, 5), bias_axes="e")(h)
    return keras.Model(x, y, name="einsum_dense")


def print_inbound_nodes(model, h5_path, names):
    cfg = model.get_config()
    for l in cfg["layers"]:
        if l["name"] in names:
            print("--- %s model.get_config() %s inbound_nodes:" % (model.name, l["name"]))
            print(json.dumps(jsonable(l["inbound_nodes"]), indent=1))
    with h5py.File(h5_path, "r") as f:
        mc = f.attrs["model_config"]
        mc = json.loads(mc.decode() if isinstance(mc, bytes) else mc)
    for l in mc["config"]["layers"]:
        if l["name"] in names:
            print("--- %s model_config attr %s inbound_nodes:" % (os.path.basename(h5_path), l["name"]))
            print(json.dumps(l["inbound_nodes"], indent=1))


def reload_check(path, build, x, ys):
    """Reports (does not assert) whether Keras reloads `path` and predicts the same."""
    try:
        r = keras.saving.load_model(path)
        how = "keras.saving.load_model"
    except Exception as e:  # noqa: BLE001
        msg = str(e).strip().splitlines()
        print("--- %s does NOT reload in Keras %s: %s: %s"
              % (os.path.basename(path), keras.__version__, type(e).__name__, msg[-1] if msg else ""))
        if not path.endswith(".h5"):
            return
        try:
            r = build(randomize=False)
            r.load_weights(path)
            how = "load_weights into a freshly built model"
        except Exception as e2:  # noqa: BLE001
            print("--- %s load_weights also fails: %s: %s" % (os.path.basename(path), type(e2).__name__, e2))
            return
    ys2 = r.predict(x, verbose=0)
    ys2 = ys2 if isinstance(ys2, (list, tuple)) else [ys2]
    diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in zip(ys, ys2))
    print("--- %s reloads (%s); max |prediction difference| = %g" % (os.path.basename(path), how, diff))


def saved_models_section():
    os.makedirs(MODELS_DIR, exist_ok=True)
    written = []
    for name, build in [("transformer_block", transformer_block), ("mha_scores", mha_scores),
                        ("einsum_dense", einsum_dense)]:
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
        written.append(base)
        if name == "transformer_block":
            print("--- transformer_block mha.get_config():")
            print(json.dumps(jsonable(m.get_layer("mha").get_config()), indent=1))
        if name != "einsum_dense":
            print_inbound_nodes(m, base + ".h5", ("mha",))
        if name == "transformer_block":
            print("--- transformer_block.h5 datasets:")
            with h5py.File(base + ".h5", "r") as f:
                f.visititems(lambda p, o: print("  ", p, o.shape, o.dtype) if isinstance(o, h5py.Dataset) else None)
            print("--- transformer_block.keras model.weights.h5 datasets:")
            for p in keras_zip_weight_paths(base + ".keras"):
                print("  ", p)
            print("--- model.weights paths:", [w.path for w in m.weights])
        for ext in (".keras", ".h5"):
            reload_check(base + ext, build, x, ys)
    return written


def mha_gate_window(randomize=True):
    keras.backend.clear_session()
    keras.utils.set_random_seed(17)
    x = keras.Input((5, 6), name="x")
    a = L.MultiHeadAttention(num_heads=2, key_dim=3, use_gate=True, sliding_window=2, name="mha")(
        x, x, use_causal_mask=True)
    return keras.Model(x, L.Dense(2)(L.Flatten()(a)), name="mha_gate_window")


def later_cases():
    """use_gate and sliding_window (added later): a generator of their own, so that the
    cases and files above keep their values."""
    global rng
    rng = np.random.default_rng(20263843)
    MHA = L.MultiHeadAttention
    c = []
    x = make_input((2, 5, 6))
    c.append(run_case("mha_sliding_window", new(MHA, num_heads=2, key_dim=3, sliding_window=2), [x, x.copy()])[0])
    x = make_input((2, 6, 6))
    c.append(run_case("mha_sliding_window_causal_masks", new(MHA, num_heads=2, key_dim=3, sliding_window=3),
                      [x, x.copy()], masks=[make_mask((2, 6)), make_mask((2, 6))],
                      call_arguments={"use_causal_mask": True})[0])
    c.append(run_case("mha_gate", new(MHA, num_heads=2, key_dim=3, value_dim=4, use_gate=True),
                      [make_input((2, 3, 6)), make_input((2, 5, 6))])[0])
    c.append(run_case("mha_gate_window_scores", new(MHA, num_heads=3, key_dim=2, use_gate=True, sliding_window=2),
                      [make_input((2, 4, 6)), make_input((2, 4, 6))],
                      call_arguments={"return_attention_scores": True})[0])
    c.append(run_case("mha_gate_rank4_axes", new(MHA, num_heads=2, key_dim=2, use_gate=True, attention_axes=(2,)),
                      [make_input((2, 2, 3, 4)), make_input((2, 2, 5, 4))])[0])
    m = mha_gate_window()
    randomize_weights(m.get_layer("mha"))
    xin = make_input((3, 5, 6))
    base = os.path.join(MODELS_DIR, "mha_gate_window")
    m.save(base + ".keras")
    m.save(base + ".h5")
    np.save(base + ".input0.npy", xin)
    np.save(base + ".output0.npy", np.asarray(m.predict(xin, verbose=0), "float32"))
    for ext in (".keras", ".h5"):
        reload_check(base + ext, mha_gate_window, xin, [m.predict(xin, verbose=0)])
    return c


def main():
    keras.utils.set_random_seed(1)
    doc = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__}
    cases = []
    cases += einsum_dense_cases()
    cases += mha_cases()
    doc["cases"] = cases
    doc["errors"] = error_cases()
    doc["file_layouts"] = file_layouts()
    saved_models_section()
    cases += later_cases()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(cases), "cases,", len(doc["errors"]), "errors")


if __name__ == "__main__":
    main()
