#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for issue #38's table of
broadcasting rules over ranks 1 to 5 (the batch axis counted). The merge layers' rule (the
batch axes lined up, a lower rank widened right after its batch axis) has its own table,
make_merge_broadcast_goldens.py; this one holds the others:

  ops_*        keras.ops binary operations (and where, matmul) in functional models: NumPy's
               rule, from the right, the batch axis included: a lower-rank input's batch
               axis lines up with an axis of the other, so each case's batch is the size
               that axis needs (Keras's symbolic shape leaves it None); constants of other
               ranks too
  einsum_*     EinsumDense equations from rank 2 to 5, Keras's two ellipsis forms among them
  mha_*        MultiHeadAttention's attention_mask of each rank Keras takes (T, S),
               (batch, T, S), (batch, heads, T, S), with size-1 axes broadcasting; and
               inputs of rank 4 and 5 over attention_axes, their masks of rank 4 to 7

Writes
  tests/data/broadcast_table/<case>.keras   the functional model (and <case>.h5 for the
                                            layer cases), seeded weights
  tests/data/broadcast_table_golden.json    per case: file, batch, inputs (masks among
                                            them, float 0/1), Keras's output, a projection,
                                            the gradients of sum(output * projection) with
                                            respect to the float inputs that are not masks
                                            and to the trainable weights (TF GradientTape)
  errors: shapes Keras refuses when the model is built, with its message

The C++ suite (tests/io/broadcast_table_test.cc) reads the files; it never runs Python.
Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_broadcast_table_goldens.py
"""
import json
import os
import shutil
import sys
import zlib

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402
from keras import ops as K  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import arr  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "broadcast_table_golden.json")
DIR = os.path.join(DATA, "broadcast_table")
rng = np.random.default_rng(20261129)

# ------------------------------------------------------------ keras.ops, NumPy's rule
# name -> (input shapes without the batch axis, batch). Different ranks line the lower
# rank's batch axis up with an axis of the other: the batch is that axis's size.
SHAPE_SETS = {
    "r2_r2_ones": ([(1,), (3,)], 2),                  # (B, 1) against (B, 3)
    "r3_r3_ones": ([(1, 4), (3, 1)], 2),              # size-1 axes on both sides
    "r4_r4_ones": ([(2, 1, 3), (1, 4, 1)], 2),
    "r5_r5_ones": ([(2, 1, 3, 1), (1, 4, 1, 5)], 3),
    "r1_r2": ([(), (3,)], 3),                         # (B,) against (B, 3): B meets the 3
    "r2_r3": ([(4,), (3, 4)], 3),                     # Keras's merge layers differ here
    "r3_r2": ([(3, 4), (4,)], 3),
    "r3_r4": ([(3, 4), (2, 1, 1)], 2),                # (B, 3, 4) against (B, 2, 1, 1)
    "r1_r5": ([(), (2, 3, 4, 1)], 1),                 # batch 1 broadcasts anywhere
    "r2_r5": ([(5,), (2, 3, 4, 5)], 4),
}
BINARY = {
    "add": K.add, "subtract": K.subtract, "multiply": K.multiply, "divide": K.divide,
    "maximum": K.maximum, "minimum": K.minimum,
}
# More operations, on a few of the sets
MORE = {
    "power": (lambda x: K.power(K.abs(x[0]) + 0.5, x[1]), ["r3_r3_ones", "r2_r3", "r5_r5_ones"]),
    "where": (lambda x: K.where(K.greater(x[0], x[1]), x[0], x[1] * 2.0), ["r3_r3_ones", "r3_r4"]),
    "greater": (lambda x: K.cast(K.greater(x[0], x[1]), "float32") * x[1], ["r2_r3", "r4_r4_ones"]),
    "logaddexp": (lambda x: K.logaddexp(x[0], x[1]), ["r3_r2", "r1_r5"]),
    "arctan2": (lambda x: K.arctan2(x[0], x[1]), ["r4_r4_ones"]),
}
# Constants of other ranks against a (batch, 3, 4) input: the constant's leading axes go
# before the batch axis when it has more axes than the input.
CONSTANTS = {
    "const_r1": np.linspace(-1.0, 1.0, 4),
    "const_r2": np.linspace(-1.0, 1.0, 3).reshape(3, 1),
    "const_r3": np.linspace(0.5, 1.5, 12).reshape(1, 3, 4),
    "const_r4": np.linspace(-2.0, 2.0, 8).reshape(2, 1, 1, 4),
    "const_r5": np.linspace(-2.0, 2.0, 6).reshape(2, 3, 1, 1, 1),
}
# matmul: the last two axes multiply, the ones before broadcast by NumPy's rule
MATMUL = {
    "matmul_r3_r3": ([(3, 4), (4, 5)], 2),
    "matmul_r4_r3": ([(2, 3, 4), (4, 5)], 2),         # (B, 2, 3, 4) @ (B, 4, 5): B meets the 2
    "matmul_r4_r4_ones": ([(1, 3, 4), (2, 4, 5)], 2),
    "matmul_r5_r4": ([(2, 1, 3, 4), (1, 4, 5)], 2),
    "matmul_r2_r3": ([(4,), (4, 5)], 3),              # a matrix (B, 4) against a stack of B
}
OP_ERRORS = {
    "add_mismatch": ([(4,), (4, 3)], K.add),          # 4 against 3 at the right
    "multiply_r5_mismatch": ([(2, 3, 4, 5), (3, 3, 1, 5)], K.multiply),
    "matmul_inner_mismatch": ([(3, 4), (5, 2)], K.matmul),
}

# ------------------------------------------------------------ EinsumDense
# name -> (equation, output_shape, bias_axes, input shape without the batch axis)
EINSUM = {
    "einsum_r2": ("ab,bc->ac", 5, "c", (4,)),
    "einsum_r3": ("abc,cd->abd", (3, 5), "d", (3, 4)),
    "einsum_r4": ("abcd,de->abce", (2, 3, 5), "e", (2, 3, 4)),
    "einsum_r5": ("abcde,ef->abcdf", (2, 2, 3, 5), "f", (2, 2, 3, 4)),
    "einsum_r3_heads": ("abc,cde->abde", (3, 2, 5), "de", (3, 4)),
    "einsum_r4_merge_heads": ("abcd,cde->abe", (3, 5), "e", (3, 2, 4)),
    "einsum_r4_transposed": ("abcd,de->aecb", (5, 3, 2), "b", (2, 3, 4)),
    "einsum_leading_r2": ("...b,bc->...c", 5, "c", (4,)),
    "einsum_leading_r3": ("...b,bc->...c", 5, "c", (3, 4)),
    "einsum_leading_r4": ("...b,bc->...c", 5, None, (2, 3, 4)),
    "einsum_leading_r5": ("...b,bc->...c", 5, "c", (2, 2, 3, 4)),
    "einsum_leading_two_letters_r4": ("...bc,cd->...bd", (3, 5), "bd", (2, 3, 4)),
    "einsum_trailing_r3": ("ab...,bc->ac...", 5, "c", (4, 3)),
    "einsum_trailing_r4": ("ab...,bc->ac...", 5, "c", (4, 3, 2)),
    "einsum_trailing_r5": ("abc...,cd->abd...", (3, 5), "d", (3, 4, 2, 2)),
}
EINSUM_ERRORS = {
    "einsum_middle_ellipsis": ("a...b,bc->a...c", 5, None, (2, 4)),
    "einsum_output_mismatch": ("abc,cd->abd", (4, 5), None, (3, 4)),
}

# ------------------------------------------------------------ attention masks
# name -> (attention_mask shape, with "B" for the batch axis; the query (B, 3, 4), the
# value (B, 5, 4), two heads of key_dim 2)
MHA_MASKS = {
    "mha_mask_t_s": (3, 5),                    # (T, S): the same for every sample
    "mha_mask_b_t_s": ("B", 3, 5),
    "mha_mask_b_1_s": ("B", 1, 5),             # one row for every query position
    "mha_mask_b_t_1": ("B", 3, 1),
    "mha_mask_b_h_t_s": ("B", 2, 3, 5),        # one per head
    "mha_mask_b_1_t_s": ("B", 1, 3, 5),
}
MHA_BATCH = 3
# Inputs of rank 4 and 5 over attention_axes: name -> (query shape, value shape,
# attention_axes, attention_mask shape or None, return_attention_scores)
MHA_AXES = {
    "mha_r4_default_axes": ((2, 3, 4), (2, 5, 4), None, ("B", 2, 3, 2, 5), False),
    "mha_r4_axis2": ((2, 3, 4), (2, 5, 4), (2,), ("B", 2, 3, 5), False),
    "mha_r4_axis2_mask_broadcast": ((2, 3, 4), (2, 5, 4), (2,), ("B", 1, 3, 5), True),
    "mha_r4_axis1": ((3, 2, 4), (5, 2, 4), (1,), ("B", 2, 3, 5), True),
    "mha_r4_axis_negative": ((2, 3, 4), (2, 5, 4), (-2,), None, False),
    "mha_r5_axes23": ((2, 3, 2, 4), (2, 2, 3, 4), (2, 3), ("B", 2, 3, 2, 2, 3), False),
    "mha_r5_axes13_heads_mask": ((3, 2, 2, 4), (2, 2, 2, 4), (1, 3), ("B", 2, 2, 3, 2, 2, 2), True),
}


def fresh(name):
    keras.backend.clear_session()
    keras.utils.set_random_seed(zlib.crc32(name.encode()))


def seeded_weights(model):
    for w in model.weights:
        w.assign(rng.standard_normal(tuple(w.shape)).astype("float32") * 0.5)


def run_case(name, model, xs, mask_inputs=(), h5=False, batch=None):
    """Saves the model, runs it on xs under a tape, returns the case's JSON."""
    path = os.path.join(DIR, name + ".keras")
    model.save(path)
    if h5:
        model.save(os.path.join(DIR, name + ".h5"))
    tins = [tf.constant(x) for x in xs]
    watched = [t for i, t in enumerate(tins) if i not in mask_inputs]
    weights = [w.value for w in model.trainable_weights]
    with tf.GradientTape() as tape:
        for t in watched:
            tape.watch(t)
        y = model(tins if len(tins) > 1 else tins[0])
        projection = rng.uniform(-1.0, 1.0, tuple(y.shape)).astype("float32")
        loss = tf.reduce_sum(y * projection)
    grads = tape.gradient(loss, watched + weights, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    y = np.asarray(y)
    again = keras.saving.load_model(path)
    np.testing.assert_array_equal(np.asarray(again(xs if len(xs) > 1 else xs[0])), y)
    assert all(np.isfinite(np.asarray(g)).all() for g in grads), name
    symbolic = list(model.output.shape)
    return {
        "name": name,
        "file": "tests/data/broadcast_table/%s.keras" % name,
        # Keras 3.15.1 declares the dims a leading ellipsis stands for in reverse order
        # ("...b,bc->...c" on (None, 2, 3, 4) declares (None, 3, 2, 5) and computes
        # (None, 2, 3, 5)): whether its declared shape agrees with what it computes
        "symbolic_agrees": all(d is None or d == e for d, e in zip(symbolic, y.shape)),
        "h5": h5,
        "symbolic_output_shape": symbolic,
        "inputs": [arr(x) for x in xs],
        "masks": sorted(mask_inputs),
        "output": arr(y),
        "projection": arr(projection),
        "input_grads": [arr(np.asarray(g)) for g in grads[: len(watched)]],
        "weight_grads": [arr(np.asarray(g)) for g in grads[len(watched):]],
        "weight_names": [w.path for w in model.trainable_weights],
    }


def normal(shape):
    return rng.standard_normal(shape).astype("float32")


def binary_model(name, fn, shapes, batch):
    fresh(name)
    ins = [keras.Input(s, name="x%d" % i) for i, s in enumerate(shapes)]
    model = keras.Model(ins if len(ins) > 1 else ins[0], fn(ins), name=name)
    return run_case(name, model, [normal((batch,) + s) for s in shapes], batch=batch)


def ops_cases():
    out = []
    for op, fn in BINARY.items():
        for set_name, (shapes, batch) in SHAPE_SETS.items():
            out.append(binary_model("ops_%s_%s" % (op, set_name), lambda x, fn=fn: fn(x[0], x[1]), shapes, batch))
    for op, (fn, sets) in MORE.items():
        for set_name in sets:
            shapes, batch = SHAPE_SETS[set_name]
            out.append(binary_model("ops_%s_%s" % (op, set_name), fn, shapes, batch))
    for const_name, c in CONSTANTS.items():
        c = c.astype("float32")
        for op in ("add", "multiply"):
            name = "ops_%s_%s" % (op, const_name)
            out.append(binary_model(name, lambda x, c=c, op=op: BINARY[op](x[0], c), [(3, 4)], 2))
    for name, (shapes, batch) in MATMUL.items():
        out.append(binary_model("ops_" + name, lambda x: K.matmul(x[0], x[1]), shapes, batch))
    return out


def ops_errors():
    out = []
    for name, (shapes, fn) in OP_ERRORS.items():
        fresh(name)
        try:
            fn(*[keras.Input(s) for s in shapes])
        except ValueError as e:
            out.append({"name": "ops_" + name, "operation": fn.__name__, "shapes": [list(s) for s in shapes],
                        "keras_error": str(e).splitlines()[0]})
            continue
        raise AssertionError("Keras accepted %s" % name)
    return out


def einsum_cases():
    out = []
    for name, (equation, output_shape, bias_axes, shape) in EINSUM.items():
        fresh(name)
        x = keras.Input(shape, name="x")
        layer = L.EinsumDense(equation, output_shape, bias_axes=bias_axes, activation="tanh", name="dense")
        model = keras.Model(x, layer(x), name=name)
        seeded_weights(model)
        case = run_case(name, model, [normal((2,) + shape)], h5=True)
        case["config"] = json.loads(json.dumps(layer.get_config()))
        out.append(case)
    return out


def einsum_errors():
    out = []
    for name, (equation, output_shape, bias_axes, shape) in EINSUM_ERRORS.items():
        fresh(name)
        try:
            L.EinsumDense(equation, output_shape, bias_axes=bias_axes)(keras.Input(shape))
        except ValueError as e:
            out.append({"name": name, "equation": equation, "output_shape": output_shape, "shape": list(shape),
                        "keras_error": str(e).splitlines()[0]})
            continue
        raise AssertionError("Keras accepted %s" % name)
    return out


def mha_cases():
    out = []
    for name, mask_shape in MHA_MASKS.items():
        fresh(name)
        q = keras.Input((3, 4), name="query")
        v = keras.Input((5, 4), name="value")
        batched = mask_shape[0] == "B"
        m = keras.Input(mask_shape[1:], name="mask") if batched else None
        layer = L.MultiHeadAttention(2, 2, name="mha")
        if batched:
            y = layer(q, v, attention_mask=m)
            ins = [q, v, m]
        else:
            # a mask the same for every sample: a constant (T, S) in the model
            const = (np.arange(15).reshape(3, 5) % 3 != 0)
            y = layer(q, v, attention_mask=const)
            ins = [q, v]
        model = keras.Model(ins, y, name=name)
        seeded_weights(model)
        xs = [normal((MHA_BATCH, 3, 4)), normal((MHA_BATCH, 5, 4))]
        masks = ()
        if batched:
            shape = (MHA_BATCH,) + tuple(mask_shape[1:])
            mask = (rng.uniform(size=shape) > 0.35).astype("float32")
            mask.reshape(-1)[0] = 1.0
            xs.append(mask)
            masks = (2,)
        case = run_case(name, model, xs, mask_inputs=masks, h5=batched)
        # Strata refuses an array given with the call (saved in the node): the test checks
        # that it says so
        case["refused"] = not batched
        out.append(case)
    return out


def mha_axes_cases():
    out = []
    for name, (q_shape, v_shape, axes, mask_shape, scores) in MHA_AXES.items():
        fresh(name)
        q = keras.Input(q_shape, name="query")
        v = keras.Input(v_shape, name="value")
        layer = L.MultiHeadAttention(2, 2, attention_axes=axes, name="mha")
        ins = [q, v]
        kwargs = {"return_attention_scores": scores}
        if mask_shape is not None:
            m = keras.Input(mask_shape[1:], name="mask")
            ins.append(m)
            kwargs["attention_mask"] = m
        y = layer(q, v, **kwargs)
        model = keras.Model(ins, y[1] if scores else y, name=name)  # the scores, where returned
        seeded_weights(model)
        xs = [normal((MHA_BATCH,) + q_shape), normal((MHA_BATCH,) + v_shape)]
        masks = ()
        if mask_shape is not None:
            mask = (rng.uniform(size=(MHA_BATCH,) + tuple(mask_shape[1:])) > 0.35).astype("float32")
            xs.append(mask)
            masks = (2,)
        case = run_case(name, model, xs, mask_inputs=masks, h5=True)
        case["config"] = json.loads(json.dumps(layer.get_config()))
        out.append(case)
    return out


def main():
    if os.path.isdir(DIR):
        shutil.rmtree(DIR)
    os.makedirs(DIR)
    cases = ops_cases() + einsum_cases() + mha_cases() + mha_axes_cases()
    errors = ops_errors() + einsum_errors()
    doc = {
        "generator": "tests/reference/make_broadcast_table_goldens.py",
        "keras": keras.__version__,
        "tensorflow": tf.__version__,
        "cases": cases,
        "errors": errors,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print("wrote %d cases, %d errors to %s" % (len(cases), len(errors), OUT))


if __name__ == "__main__":
    main()
