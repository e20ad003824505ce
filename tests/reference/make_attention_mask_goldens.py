#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for masks passed as tensors with the
call: MultiHeadAttention's attention_mask=, value_mask=, key_mask=, query_mask= and
Attention's / AdditiveAttention's mask=[query_mask, value_mask].

Writes
  tests/data/attention_mask_golden.json            cases in the format of
                                                    make_multi_head_attention_goldens.py,
                                                    plus "tensor_arguments"
  tests/data/attention_masks/<name>.keras          two functional models saved by Keras
  tests/data/attention_masks/<name>.h5             with masks among their inputs
  tests/data/attention_masks/<name>.input<i>.npy   (mha_attention_mask, attention_masks),
  tests/data/attention_masks/<name>.output<i>.npy  seeded inputs (batch 3) and Keras's
                                                    predictions
  tests/data/attention_masks/tf_keras_mha_attention_mask.h5 (and .npy files): a
                                                    MultiHeadAttention with attention_mask
                                                    from an Input, saved by tf.keras 2

Each case: seeded standard-normal float32 inputs, "tensor_arguments" (an object, in the
order Strata's layer lists them: query_mask, value_mask, key_mask, attention_mask for
MultiHeadAttention; query_mask, value_mask for Attention's mask=[query_mask, value_mask],
a missing one None) passed with the call as tensors, optional "masks" (Keras masks
attached to the [query, value] tensors, as a masked Embedding would attach them), the
call's flags (use_causal_mask, return_attention_scores), seeded weights (standard normal
* 0.5), outputs, and the gradients (TF GradientTape) of sum_i sum(outputs[i] *
projections[i]) w.r.t. every input (not the masks) and every trainable weight. Every call
uses training=False.

Masks are bool unless a case says otherwise (float masks with values other than 0 / 1
check Keras's cast to bool: nonzero is visible).

The C++ suite reads the JSON and the saved files; it never runs Python. Regenerate with
exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 tf_keras==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_attention_mask_goldens.py
"""
import json
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402
from golden_json import arr, jsonable  # noqa: E402 (tests/reference/golden_json.py)
from keras.src.backend.common.masking import set_keras_mask  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "attention_mask_golden.json")
MODELS_DIR = os.path.join(DATA, "attention_masks")
rng = np.random.default_rng(20261124)


def make_input(shape):
    return rng.standard_normal(shape).astype("float32")


def make_mask(shape, p_true=0.6):
    """Bool mask with at least one True and one False along the last axis of every row."""
    m = rng.uniform(size=shape) < p_true
    rows = m.reshape(-1, shape[-1])
    for r in rows:
        if not r.any():
            r[int(rng.integers(0, shape[-1]))] = True
        if r.all():
            r[int(rng.integers(0, shape[-1]))] = False
    return rows.reshape(shape)


def new(cls, *args, **kwargs):
    keras.backend.clear_session()
    return cls(*args, **kwargs)


def run_case(name, layer, xs, tensor_arguments, *, masks=None, call_arguments=None, extra=None):
    """tensor_arguments: {name: array or None}, in Strata's order. For Attention the names
    query_mask / value_mask make mask=[query_mask, value_mask]."""
    call_arguments = dict(call_arguments or {})
    is_mha = isinstance(layer, L.MultiHeadAttention)
    tins = [tf.constant(a) for a in xs]
    targs = {k: (None if v is None else tf.constant(v)) for k, v in tensor_arguments.items()}

    def call():
        kw = dict(call_arguments, training=False)
        if masks is not None:
            for t, m in zip(tins, masks):
                set_keras_mask(t, None if m is None else tf.constant(m))
        if is_mha:
            key = tins[2] if len(tins) > 2 else None
            return layer(tins[0], tins[1], key=key, **kw, **{k: v for k, v in targs.items() if v is not None})
        return layer(tins, mask=[targs.get("query_mask"), targs.get("value_mask")], **kw)

    call()
    vals = [(rng.standard_normal(tuple(w.shape)) * 0.5).astype("float32") for w in layer.weights]
    layer.set_weights(vals)
    tvars = list(layer.trainable_variables)
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
        "masks": None if masks is None else [None if m is None else arr(m) for m in masks],
        "tensor_arguments": {k: (None if v is None else arr(v)) for k, v in tensor_arguments.items()},
        "call_arguments": call_arguments,
        "weights": [arr(w) for w in vals],
        "weight_names": [w.path for w in layer.weights],
        "outputs": [arr(a) for a in ys_np],
        "projections": [arr(p) for p in projs],
        "input_grads": [arr(g) if g is not None else None for g in gx],
        "weight_grads": [arr(g) if g is not None else None for g in gw],
    }
    if extra:
        case.update(extra)
    return case


def mha_cases():
    MHA = L.MultiHeadAttention
    B = 2
    c = []
    q, v = (B, 3, 6), (B, 5, 4)
    # (batch, T, S) on the dot_product_attention path
    c.append(run_case("mha_attention_mask", new(MHA, num_heads=2, key_dim=3), [make_input(q), make_input(v)],
                      {"attention_mask": make_mask((B, 3, 5))}))
    # float values: Keras casts to bool, nonzero visible
    am = make_mask((B, 3, 5)).astype("float32") * rng.choice([0.5, 1.0, -2.0], size=(B, 3, 5)).astype("float32")
    c.append(run_case("mha_attention_mask_float_values", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q), make_input(v)], {"attention_mask": am}))
    # broadcasting: (batch, 1, S) and (T, S)
    c.append(run_case("mha_attention_mask_batch_1_s", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q), make_input(v)], {"attention_mask": make_mask((B, 1, 5))}))
    c.append(run_case("mha_attention_mask_t_s", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q), make_input(v)], {"attention_mask": make_mask((3, 5))}))
    # a query row with every key hidden: equal weights on this path, zeros on the other
    am = make_mask((B, 3, 5))
    am[1, 2, :] = False
    c.append(run_case("mha_attention_mask_hidden_row", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q), make_input(v)], {"attention_mask": am}))
    c.append(run_case("mha_attention_mask_hidden_row_scores", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q), make_input(v)], {"attention_mask": am},
                      call_arguments={"return_attention_scores": True}))
    # with the causal mask and returned scores (Keras's Softmax path)
    x = make_input((B, 4, 6))
    am = make_mask((B, 4, 4))
    am[:, :, 0] = True
    c.append(run_case("mha_attention_mask_causal_scores", new(MHA, num_heads=2, key_dim=3), [x, x.copy()],
                      {"attention_mask": am}, call_arguments={"use_causal_mask": True, "return_attention_scores": True}))
    c.append(run_case("mha_attention_mask_causal", new(MHA, num_heads=2, key_dim=3), [x, x.copy()],
                      {"attention_mask": am}, call_arguments={"use_causal_mask": True}))
    # value_mask and key_mask passed as tensors, with a key and an attention mask
    vm, km = make_mask((B, 5)), make_mask((B, 5))
    c.append(run_case("mha_value_key_masks_and_attention_mask", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q), make_input(v), make_input((B, 5, 5))],
                      {"value_mask": vm, "key_mask": km, "attention_mask": make_mask((B, 3, 5), 0.8)}))
    # the inputs' masks (a query and a value mask attached) combined with an attention mask
    c.append(run_case("mha_input_masks_and_attention_mask", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q), make_input(v)], {"attention_mask": make_mask((B, 3, 5), 0.8)},
                      masks=[make_mask((B, 3), 0.7), make_mask((B, 5), 0.7)],
                      call_arguments={"return_attention_scores": True}))
    # a value_mask passed replaces the value's own mask
    c.append(run_case("mha_value_mask_replaces_the_inputs", new(MHA, num_heads=2, key_dim=3),
                      [make_input(q), make_input(v)], {"value_mask": make_mask((B, 5))},
                      masks=[None, make_mask((B, 5))]))
    # Keras 3.15.1 overwrites a query_mask argument with the query's own mask: no effect
    xs = [make_input(q), make_input(v)]
    layer = new(MHA, num_heads=2, key_dim=3)
    qm = make_mask((B, 3))
    case = run_case("mha_query_mask_argument_has_no_effect", layer, xs, {"query_mask": qm})
    with_mask = np.asarray(layer(xs[0], xs[1], query_mask=tf.constant(qm), training=False))
    without = np.asarray(layer(xs[0], xs[1], training=False))
    case["query_mask_argument_ignored"] = bool(np.array_equal(with_mask, without))
    assert case["query_mask_argument_ignored"]
    c.append(case)
    c.append(run_case("mha_attention_mask_dropout_inference", new(MHA, num_heads=2, key_dim=3, dropout=0.3),
                      [make_input(q), make_input(v)], {"attention_mask": make_mask((B, 3, 5))}))
    return c


def attention_cases():
    B = 2
    c = []
    q, v = (B, 3, 4), (B, 5, 4)
    c.append(run_case("attention_mask_argument", new(L.Attention), [make_input(q), make_input(v)],
                      {"query_mask": make_mask((B, 3)), "value_mask": make_mask((B, 5))}))
    # mask=[None, value_mask] replaces the inputs' masks: the query's is not applied
    c.append(run_case("attention_value_mask_only_replaces_the_inputs", new(L.Attention, use_scale=True),
                      [make_input(q), make_input(v)], {"query_mask": None, "value_mask": make_mask((B, 5))},
                      masks=[make_mask((B, 3)), make_mask((B, 5))]))
    c.append(run_case("attention_concat_float_masks_causal_scores", new(L.Attention, score_mode="concat"),
                      [make_input((B, 4, 4)), make_input((B, 4, 4))],
                      {"query_mask": np.array([[1, 0, 2.5, 1], [0, 1, 1, -1]], "float32"),
                       "value_mask": np.array([[1, 1, 0, 0.5], [1, 0, 1, 1]], "float32")},
                      call_arguments={"use_causal_mask": True, "return_attention_scores": True}))
    c.append(run_case("additive_attention_mask_argument_with_key", new(L.AdditiveAttention),
                      [make_input(q), make_input(v), make_input((B, 5, 4))],
                      {"query_mask": make_mask((B, 3)), "value_mask": make_mask((B, 5))},
                      call_arguments={"return_attention_scores": True}))
    return c


# --------------------------------------------------------------- saved models
def mha_attention_mask_model():
    """Token ids with Embedding(mask_zero) (the inputs' masks), an attention mask from an
    Input, causal self-attention, a residual and a Dense."""
    keras.backend.clear_session()
    keras.utils.set_random_seed(24)
    ids = keras.Input((5,), dtype="int32", name="ids")
    am = keras.Input((5, 5), name="attention_mask")
    e = L.Embedding(7, 8, mask_zero=True, name="embed")(ids)
    a = L.MultiHeadAttention(num_heads=2, key_dim=4, name="mha")(e, e, attention_mask=am, use_causal_mask=True)
    h = L.LayerNormalization(name="norm")(L.Add(name="add")([e, a]))
    y = L.Dense(3, name="head")(L.Flatten(name="flat")(h))
    m = keras.Model([ids, am], y, name="mha_attention_mask")
    ids_x = rng.integers(0, 7, size=(3, 5)).astype("int32")
    ids_x[:, 0] = np.maximum(ids_x[:, 0], 1)
    am_x = make_mask((3, 5, 5), 0.7).astype("float32")
    am_x[:, :, 0] = 1.0
    return m, [ids_x, am_x]


def attention_masks_model():
    """Attention with mask=[q_mask, v_mask], AdditiveAttention with mask=[None, v_mask]
    returning its scores, MultiHeadAttention with value_mask and key_mask tensors."""
    keras.backend.clear_session()
    keras.utils.set_random_seed(25)
    q = keras.Input((4, 6), name="q")
    v = keras.Input((5, 6), name="v")
    qm = keras.Input((4,), name="q_mask")
    vm = keras.Input((5,), name="v_mask")
    a = L.Attention(use_scale=True, name="att")([q, v], mask=[qm, vm])
    b, scores = L.AdditiveAttention(name="add_att")([q, v], mask=[None, vm], return_attention_scores=True)
    c = L.MultiHeadAttention(num_heads=2, key_dim=3, name="mha")(q, v, key=v, value_mask=vm, key_mask=vm)
    y = L.Concatenate(name="cat")([a, b, c])
    m = keras.Model([q, v, qm, vm], [y, scores], name="attention_masks")
    xs = [make_input((3, 4, 6)), make_input((3, 5, 6)), make_mask((3, 4)).astype("float32"),
          make_mask((3, 5)).astype("float32")]
    return m, xs


def saved_models_section():
    os.makedirs(MODELS_DIR, exist_ok=True)
    for build in (mha_attention_mask_model, attention_masks_model):
        m, xs = build()
        ys = m.predict(xs, verbose=0)
        ys = ys if isinstance(ys, (list, tuple)) else [ys]
        base = os.path.join(MODELS_DIR, m.name)
        m.save(base + ".keras")
        m.save(base + ".h5")
        for i, x in enumerate(xs):
            np.save(base + ".input%d.npy" % i, x)
        for i, y in enumerate(ys):
            np.save(base + ".output%d.npy" % i, np.asarray(y, "float32"))
        r = keras.saving.load_model(base + ".keras")
        again = r.predict(xs, verbose=0)
        again = again if isinstance(again, (list, tuple)) else [again]
        print("--- %s.keras reloads in Keras; max |difference| %g" % (
            m.name, max(float(np.max(np.abs(np.asarray(a) - b))) for a, b in zip(again, ys))))


def tf_keras_section():
    """The same kind of call saved by tf.keras 2 (tf_keras): its .h5 writes the mask as a
    ["layer", node, index] triple among the query reference's kwargs. (tf.keras's
    Attention takes bool masks only, which Strata's inputs cannot be, so it has none.)"""
    import tf_keras as K  # noqa: PLC0415
    K.backend.clear_session()
    K.utils.set_random_seed(26)
    x = K.Input((5, 8), name="x")
    v = K.Input((6, 8), name="v")
    am = K.Input((5, 6), name="attention_mask")
    a = K.layers.MultiHeadAttention(2, 4, name="mha")(x, v, attention_mask=am, use_causal_mask=True)
    y = K.layers.Dense(2, name="head")(K.layers.Flatten(name="flat")(a))
    m = K.Model([x, v, am], y, name="tf_keras_mha_attention_mask")
    mha = m.get_layer("mha")
    mha.set_weights([(rng.standard_normal(w.shape) * 0.5).astype("float32") for w in mha.get_weights()])
    am_x = make_mask((3, 5, 6), 0.7).astype("float32")
    am_x[:, :, 0] = 1.0
    xs = [make_input((3, 5, 8)), make_input((3, 6, 8)), am_x]
    y = m.predict(xs, verbose=0)
    base = os.path.join(MODELS_DIR, m.name)
    m.save(base + ".h5")
    for i, x in enumerate(xs):
        np.save(base + ".input%d.npy" % i, x)
    np.save(base + ".output0.npy", np.asarray(y, "float32"))
    print("--- tf.keras %s: wrote %s.h5" % (K.__version__, base))


def main():
    keras.utils.set_random_seed(1)
    doc = {"keras_version": keras.__version__, "tensorflow_version": tf.__version__}
    cases = mha_cases() + attention_cases()
    doc["cases"] = cases
    saved_models_section()
    tf_keras_section()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(cases), "cases")


if __name__ == "__main__":
    main()
