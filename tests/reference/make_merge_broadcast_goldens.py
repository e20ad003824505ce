#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for the merge layers (Add, Subtract,
Multiply, Average, Maximum, Minimum) given inputs of different ranks.

Keras lines the batch axes up and widens each lower-rank input with size-1 axes right after
its batch axis (keras.src.layers.merging.base_merge.Merge.call), then broadcasts; plain
NumPy broadcasting from the right would pair one input's batch axis with another's time
axis. The cases use a batch of 3 with a middle axis of 3 so that the two rules give
different numbers, not only different shapes; ranks 1 to 5 appear.

Writes tests/data/merge_broadcast_golden.json:
  cases:  class_name, config, inputs, output, projection and the gradients of
          sum(output * projection) with respect to each input (TF GradientTape)
  errors: class_name, config, the inputs' shapes without the batch axis, Keras's message, for
          shapes Keras refuses when the layer is called on symbolic inputs

The C++ suite (tests/layers/merge_broadcast_golden_test.cc) reads the JSON; it never runs
Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 tf_keras==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_merge_broadcast_goldens.py
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

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "merge_broadcast_golden.json")
rng = np.random.default_rng(20261128)

CLASSES = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"]
BATCH = 3

# Shapes without the batch axis. Each pair or triple has different ranks.
SHAPE_SETS = [
    ("r2_r3", [(4,), (3, 4)]),           # the reported case: batch 3 against a time axis of 3
    ("r3_r2", [(3, 4), (4,)]),           # the higher rank first
    ("r2_r3_size1", [(1,), (3, 4)]),     # a size-1 feature axis broadcasts too
    ("r1_r3", [(), (3, 2)]),             # one value per sample
    ("r2_r5", [(2,), (3, 2, 3, 2)]),     # rank 2 against rank 5
    ("r3_r4_bcast", [(1, 4), (3, 3, 4)]),  # a size-1 axis beside the inserted one
    ("r2_r3_r4", [(4,), (3, 4), (2, 3, 4)]),  # three inputs, three ranks
]
ERROR_SETS = [
    ("r2_r3_mismatch", [(4,), (4, 3)]),  # right-aligned 4 against 3
    ("r2_r3_middle", [(3,), (3, 4)]),
]


def fnum(v):
    return float(str(np.float32(v)))


def arr(a):
    a = np.asarray(a, dtype="float32")
    return {"shape": list(a.shape), "values": [fnum(v) for v in a.reshape(-1)]}


def case(cls, set_name, shapes):
    layer = getattr(L, cls)()
    xs = [rng.standard_normal((BATCH,) + s).astype("float32") for s in shapes]
    tins = [tf.constant(x) for x in xs]
    with tf.GradientTape() as tape:
        for t in tins:
            tape.watch(t)
        y = layer(tins)
        proj = rng.standard_normal(tuple(y.shape)).astype("float32")
        loss = tf.reduce_sum(y * proj)
    grads = tape.gradient(loss, tins)
    # The same layer on symbolic inputs must give the same output shape.
    symbolic = getattr(L, cls)()([keras.Input(s) for s in shapes])
    assert tuple(symbolic.shape[1:]) == tuple(y.shape[1:]), (cls, shapes, symbolic.shape, y.shape)
    return {
        "name": "%s_%s" % (cls.lower(), set_name),
        "class_name": cls,
        "config": json.loads(json.dumps(layer.get_config())),
        "inputs": [arr(x) for x in xs],
        "output": arr(y),
        "projection": arr(proj),
        "input_grads": [arr(g) for g in grads],
    }


def error(cls, set_name, shapes):
    layer = getattr(L, cls)()
    try:
        layer([keras.Input(s) for s in shapes])
    except ValueError as e:
        return {"name": "%s_%s" % (cls.lower(), set_name), "class_name": cls,
                "config": json.loads(json.dumps(layer.get_config())),
                "shapes": [list(s) for s in shapes], "keras_error": str(e).splitlines()[0]}
    raise AssertionError("Keras accepted %s %s" % (cls, shapes))


def main():
    cases, errors = [], []
    for cls in CLASSES:
        for set_name, shapes in SHAPE_SETS:
            if cls == "Subtract" and len(shapes) != 2:
                continue
            cases.append(case(cls, set_name, shapes))
        for set_name, shapes in ERROR_SETS:
            errors.append(error(cls, set_name, shapes))
    doc = {
        "generator": "tests/reference/make_merge_broadcast_goldens.py",
        "keras": keras.__version__,
        "tensorflow": tf.__version__,
        "batch": BATCH,
        "cases": cases,
        "errors": errors,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote %d cases, %d errors to %s" % (len(cases), len(errors), OUT))


if __name__ == "__main__":
    main()
