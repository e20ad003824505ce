#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for the layers outside attention and
the recurrent family whose call takes a mask: Softmax and BatchNormalization.

Writes
  tests/data/mask_consumers_golden.json
    "softmax": cases in the format of keras_layer_case.run_case (layer_golden_case.h reads
      them): seeded standard-normal float32 inputs, Keras masks attached to the inputs
      ("masks", as Embedding(mask_zero) attaches them) and/or a mask passed with the call
      ("tensor_arguments": {"mask": ...}), outputs, and the gradients of
      sum(output * projection) w.r.t. the input. training=False (Softmax has no training
      behaviour).
    "batch_norm": one training step each: the layer built and its four weights set to
      seeded values (gamma, beta standard normal * 0.5 + 1 and * 0.5, moving_mean standard
      normal, moving_variance uniform in [0.5, 1.5]), called with training=True on the
      inputs (mask attached and/or passed) inside a GradientTape: "outputs",
      "moving_after" (moving_mean, moving_variance after the call's update),
      "input_grads" and "weight_grads" (gamma, beta) of sum(output * projection); then
      "inference_outputs", the same layer (moving statistics as updated) called with
      training=False on the same inputs and masks.
  tests/data/mask_consumers/<name>.keras, .h5, .input<i>.npy, .output<i>.npy
      functional models saved by Keras with Keras's predictions:
      softmax_mask_argument    Softmax()(scores, mask=m), m an Input, then a Dense
      embedding_softmax        Embedding(mask_zero) -> Dense(4) -> Softmax -> Dense: the
                               Embedding's (batch, 4) mask against (batch, 4, 4) inputs,
                               broadcast from the right as Keras's numpy.where does (each
                               row of a sample gets the sample's mask over its features);
                               batch 1, as batches other than 1 and 4 fail in Keras
      merge_masks              two Embedding(mask_zero) sequences merged by Add,
                               Concatenate(axis=1) and Concatenate() and each averaged by
                               GlobalAveragePooling1D over the steps the merged mask keeps
                               (Keras's _Merge and Concatenate compute_mask, recorded as
                               operation nodes: LogicalOr, ExpandDims, Concatenate, Any)
      recurrent_masks          Embedding(mask_zero) -> LSTM(return_sequences) ->
                               Bidirectional(GRU) -> Dense: Keras records the mask as both
                               recurrent layers' `mask` argument
      (Keras saves the Embedding's mask as the Softmax's and BatchNormalization's `mask`
      argument, computed by a NotEqual operation node; Keras 3.15.1 cannot load its own
      .h5 of such a model, which Strata can.)
      embedding_batch_norm     Embedding(mask_zero) -> BatchNormalization ->
                               GlobalAveragePooling1D -> Dense, plus "<name>.after.json":
                               the weights after one train_on_batch step (SGD 0.1, mean
                               squared error, the whole batch) on targets
                               <name>.target0.npy, and that step's loss

Masks are bool unless a case says otherwise (float masks check Keras's casts: Softmax keeps
values above 0.5, BatchNormalization every nonzero value).

The C++ suite (tests/layers/mask_consumers_golden_test.cc) reads the JSON and the saved
files; it never runs Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_mask_consumer_goldens.py
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
from keras.src.backend.common.masking import set_keras_mask  # noqa: E402

from golden_json import arr, jsonable  # noqa: E402 (tests/reference/golden_json.py)
from keras_layer_case import batch_norm_step_case, new, run_case  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "mask_consumers_golden.json")
MODELS_DIR = os.path.join(DATA, "mask_consumers")
rng = np.random.default_rng(20261202)


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


# --------------------------------------------------------------------------- Softmax
def softmax_cases():
    c = []
    S = L.Softmax
    # The input's own mask, of the input's shape.
    c.append(run_case(rng, "softmax_input_mask", new(S), [make_input((2, 3, 5))], masks=[make_mask((2, 3, 5))]))
    # Of rank 2: scores (batch, steps) with a (batch, steps) mask, the pooling-attention case.
    c.append(run_case(rng, "softmax_input_mask_rank2", new(S), [make_input((3, 6))], masks=[make_mask((3, 6))]))
    # Attention-style: (batch, 1, S) passed with the call, broadcast over the queries.
    c.append(run_case(rng, "softmax_mask_argument_broadcast", new(S), [make_input((2, 3, 5))],
                      tensor_arguments={"mask": make_mask((2, 1, 5))}))
    # Broadcast over the batch too: (T, S) against (batch, T, S).
    c.append(run_case(rng, "softmax_mask_argument_without_batch", new(S), [make_input((2, 3, 5))],
                      tensor_arguments={"mask": make_mask((3, 5))}))
    # Float values: Keras keeps those above 0.5 (0.5 itself hidden).
    m = rng.choice(np.array([0.0, 0.3, 0.5, 0.7, 1.0, 2.0], "float32"), size=(2, 3, 5)).astype("float32")
    m[:, :, 0] = 1.0
    c.append(run_case(rng, "softmax_mask_argument_float_values", new(S), [make_input((2, 3, 5))],
                      tensor_arguments={"mask": m}))
    # A row hidden entirely: zeros, not a uniform row.
    m = make_mask((2, 2, 3, 4))
    m[1, 0, 2, :] = False
    m[0, 1, :, :] = False
    c.append(run_case(rng, "softmax_mask_argument_hidden_rows_4d", new(S), [make_input((2, 2, 3, 4))],
                      tensor_arguments={"mask": m}))
    # Over a middle axis, the mask (batch, T, 1) broadcast over the last.
    c.append(run_case(rng, "softmax_axis1_mask_argument", new(S, axis=1), [make_input((2, 4, 3))],
                      tensor_arguments={"mask": make_mask((2, 4, 1))}))
    # Several axes: exp(x - logsumexp(x, axes)) after the mask.
    c.append(run_case(rng, "softmax_two_axes_input_mask", new(S, axis=[1, 2]), [make_input((2, 3, 4))],
                      masks=[make_mask((2, 3, 4))]))
    c.append(run_case(rng, "softmax_two_axes_mask_argument_broadcast", new(S, axis=[-2, -1]),
                      [make_input((2, 2, 3, 4))], tensor_arguments={"mask": make_mask((2, 1, 3, 4))}))
    # A one-element axis list: activations.softmax over that axis.
    c.append(run_case(rng, "softmax_axis_list_of_one", new(S, axis=[1]), [make_input((2, 4, 3))],
                      masks=[make_mask((2, 4, 3))]))
    # A mask passed with the call replaces the input's own.
    c.append(run_case(rng, "softmax_mask_argument_replaces_the_inputs", new(S), [make_input((2, 3, 5))],
                      masks=[make_mask((2, 3, 5))], tensor_arguments={"mask": make_mask((2, 3, 5))}))
    return c


# ------------------------------------------------------------------ BatchNormalization
def batch_norm_case(name, layer, x, *, mask=None, mask_argument=None):
    return batch_norm_step_case(rng, name, layer, x, mask=mask, mask_argument=mask_argument)


def batch_norm_cases():
    c = []
    BN = L.BatchNormalization
    # The Embedding case: (batch, steps, features), the steps' mask attached.
    c.append(batch_norm_case("batch_norm_sequence_input_mask", new(BN), make_input((3, 5, 4)),
                             mask=make_mask((3, 5))))
    # Images (batch, H, W, C) with a (batch, H, W) mask passed with the call, momentum 0.9.
    c.append(batch_norm_case("batch_norm_images_mask_argument", new(BN, momentum=0.9, epsilon=1e-2),
                             make_input((2, 3, 4, 3)), mask_argument=make_mask((2, 3, 4))))
    # axis=1: Keras still gives the mask a last axis, so (batch, 4) masks (batch, channel).
    c.append(batch_norm_case("batch_norm_axis1_input_mask", new(BN, axis=1), make_input((3, 4, 2)),
                             mask=make_mask((3, 4))))
    # Neither center nor scale: no trainable weights.
    c.append(batch_norm_case("batch_norm_no_center_no_scale", new(BN, center=False, scale=False),
                             make_input((3, 4, 2)), mask=make_mask((3, 4))))
    # Float values: Keras casts the mask to bool, every nonzero value kept with weight 1.
    m = rng.choice(np.array([0.0, 0.25, 1.0, 3.0, -1.0], "float32"), size=(3, 5)).astype("float32")
    c.append(batch_norm_case("batch_norm_float_mask_values", new(BN), make_input((3, 5, 2)), mask_argument=m))
    # A mask (batch, 1) broadcast over the steps: whole samples left out of the moments.
    c.append(batch_norm_case("batch_norm_mask_broadcast_over_steps", new(BN), make_input((4, 3, 2)),
                             mask_argument=np.array([[True], [False], [True], [False]])))
    # Everything hidden: mean and variance 0 (0 / 1e-7), x / sqrt(epsilon) scaled.
    c.append(batch_norm_case("batch_norm_everything_hidden", new(BN), make_input((2, 3, 2)),
                             mask=np.zeros((2, 3), bool)))
    # The mask passed with the call replaces the input's own.
    c.append(batch_norm_case("batch_norm_mask_argument_replaces_the_inputs", new(BN), make_input((3, 4, 3)),
                             mask=make_mask((3, 4)), mask_argument=make_mask((3, 4))))
    return c


# -------------------------------------------------------------------- saved models
def save(m, xs, extra=None):
    base = os.path.join(MODELS_DIR, m.name)
    ys = m.predict(xs if len(xs) > 1 else xs[0], verbose=0, batch_size=len(xs[0]))
    ys = ys if isinstance(ys, (list, tuple)) else [ys]
    m.save(base + ".keras")
    m.save(base + ".h5")
    for i, x in enumerate(xs):
        np.save(base + ".input%d.npy" % i, x)
    for i, y in enumerate(ys):
        np.save(base + ".output%d.npy" % i, np.asarray(y, "float32"))
    for ext in (".keras", ".h5"):
        try:
            again = keras.saving.load_model(base + ext)
        except ValueError as e:
            # Keras 3 records the mask a layer's call takes (Softmax's, BatchNormalization's)
            # as a tensor in the node's kwargs, computed by an operation node (the
            # Embedding's NotEqual), which Keras 3.15.1's own .h5 loader does not know.
            assert ext == ".h5" and "Unknown layer: 'NotEqual'" in str(e), e
            print("--- Keras 3.15.1 cannot load its own %s: %s" % (os.path.basename(base + ext), str(e)[:60]))
            continue
        ys2 = again.predict(xs if len(xs) > 1 else xs[0], verbose=0, batch_size=len(xs[0]))
        ys2 = ys2 if isinstance(ys2, (list, tuple)) else [ys2]
        diff = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in zip(ys, ys2))
        assert diff < 1e-5, (base + ext, diff)
    return base


def softmax_mask_argument_model():
    keras.backend.clear_session()
    keras.utils.set_random_seed(31)
    scores = keras.Input((3, 5), name="scores")
    mask = keras.Input((1, 5), name="mask")
    p = L.Softmax(name="softmax")(scores, mask=mask)
    y = L.Dense(2, name="head")(p)
    m = keras.Model([scores, mask], y, name="softmax_mask_argument")
    save(m, [make_input((3, 3, 5)), make_mask((3, 1, 5)).astype("float32")])


def embedding_softmax_model():
    keras.backend.clear_session()
    keras.utils.set_random_seed(32)
    ids = keras.Input((4,), dtype="int32", name="ids")
    e = L.Embedding(7, 3, mask_zero=True, name="embed")(ids)
    h = L.Dense(4, name="dense")(e)
    p = L.Softmax(name="softmax")(h)
    y = L.Dense(2, name="head")(p)
    m = keras.Model(ids, y, name="embedding_softmax")
    save(m, [np.array([[3, 0, 5, 0]], "int32")])


def embedding_batch_norm_model():
    keras.backend.clear_session()
    keras.utils.set_random_seed(33)
    ids = keras.Input((5,), dtype="int32", name="ids")
    e = L.Embedding(9, 3, mask_zero=True, name="embed")(ids)
    b = L.BatchNormalization(momentum=0.8, name="bn")(e)
    p = L.GlobalAveragePooling1D(name="pool")(b)
    y = L.Dense(2, name="head")(p)
    m = keras.Model(ids, y, name="embedding_batch_norm")
    ids_x = rng.integers(0, 9, size=(4, 5)).astype("int32")
    ids_x[:, 0] = np.maximum(ids_x[:, 0], 1)
    ids_x[1, 3:] = 0
    base = save(m, [ids_x])
    target = rng.standard_normal((4, 2)).astype("float32")
    np.save(base + ".target0.npy", target)
    m.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
    loss = float(m.train_on_batch(ids_x, target))
    after = {"loss": loss, "weights": {w.path: arr(np.asarray(w)) for w in m.weights}}
    with open(base + ".after.json", "w") as f:
        json.dump(after, f, separators=(",", ":"))
        f.write("\n")


def merge_masks_model():
    keras.backend.clear_session()
    keras.utils.set_random_seed(34)
    a = keras.Input((5,), dtype="int32", name="a")
    b = keras.Input((5,), dtype="int32", name="b")
    ea = L.Embedding(9, 3, mask_zero=True, name="embed_a")(a)
    eb = L.Embedding(9, 3, mask_zero=True, name="embed_b")(b)
    added = L.GlobalAveragePooling1D(name="pool_add")(L.Add(name="add")([ea, eb]))
    steps = L.GlobalAveragePooling1D(name="pool_steps")(L.Concatenate(axis=1, name="cat_steps")([ea, eb]))
    features = L.GlobalAveragePooling1D(name="pool_features")(L.Concatenate(name="cat_features")([ea, eb]))
    m = keras.Model([a, b], [added, steps, features], name="merge_masks")
    ids = [rng.integers(0, 9, size=(4, 5)).astype("int32") for _ in range(2)]
    for x in ids:
        x[:, 0] = np.maximum(x[:, 0], 1)
        x[2, 2:] = 0
    save(m, ids)


def recurrent_masks_model():
    keras.backend.clear_session()
    keras.utils.set_random_seed(35)
    ids = keras.Input((6,), dtype="int32", name="ids")
    e = L.Embedding(9, 4, mask_zero=True, name="embed")(ids)
    h = L.LSTM(3, return_sequences=True, name="lstm")(e)
    h = L.Bidirectional(L.GRU(2), name="bi")(h)
    y = L.Dense(2, name="head")(h)
    m = keras.Model(ids, y, name="recurrent_masks")
    x = rng.integers(0, 9, size=(4, 6)).astype("int32")
    x[:, 0] = np.maximum(x[:, 0], 1)
    x[1, 3:] = 0
    save(m, [x])


def main():
    os.makedirs(MODELS_DIR, exist_ok=True)
    doc = {
        "generator": {"keras": keras.__version__, "tensorflow": tf.__version__, "numpy": np.__version__},
        "softmax": softmax_cases(),
        "batch_norm": batch_norm_cases(),
    }
    softmax_mask_argument_model()
    embedding_softmax_model()
    embedding_batch_norm_model()
    merge_masks_model()
    recurrent_masks_model()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(doc["softmax"]), "Softmax and", len(doc["batch_norm"]),
          "BatchNormalization cases")


if __name__ == "__main__":
    main()
