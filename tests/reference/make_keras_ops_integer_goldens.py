#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for the integer keras.ops operations
of issue #38: bitwise_and, bitwise_or, bitwise_xor, bitwise_not / bitwise_invert, the shifts
(left_shift, right_shift and their bitwise_ names), gcd and lcm, and view (the bytes as another
dtype), one small functional model per case, on int32, int64 and float32 inputs.

Writes
  tests/data/keras_ops/integer/<case>.keras   one functional model per operation case
  tests/data/keras_ops_integer_golden.json    per case as keras_ops_golden.json's cases (the
                                              file, the operation, its saved entries, inputs
                                              with their dtypes, Keras's output with its
                                              dtype, and for a float output a projection and
                                              the gradients of sum(output * projection)
                                              w.r.t. the inputs)
tests/io/keras_ops_test.cc runs the cases of every such file alike, comparing integers exactly.

What Keras 3.15.1 computes (its TensorFlow backend, on the CPU), and so what the cases hold:
- the operands are promoted to one dtype (int32 with int64: int64; a NumPy array keeps its
  dtype, np.array([1, 2]) is int64; a Python int is int32); a float operand makes the saved
  model fail when it is run (tf.bitwise takes integers only; gcd and lcm raise TypeError), and
  bitwise_and/or/xor with a Python int fail when the model is built, so no case has one.
- the shifts clamp the shift to [0, bits - 1] (TensorFlow's left_shift_op / right_shift_op): a
  negative shift leaves x, a shift of bits or more shifts by bits - 1; a left shift wraps, a
  right shift is arithmetic. A Python int shift is converted to x's dtype.
- gcd runs Euclid's steps with floor modulo on |x1|, |x2| (|INT_MIN| wraps to INT_MIN, so
  gcd(INT_MIN, INT_MIN) is INT_MIN and gcd(1, INT_MIN) is -1); lcm is |x1| * (|x2| // gcd),
  0 where the gcd is 0, its product wrapping.
- view reads the bytes as another dtype (tf.bitcast): the shape kept between int32 and float32,
  the last axis doubled from int64 (low word first) and halved to it; TensorFlow registers no
  gradient for Bitcast (asking for one through a float input raises LookupError), so its float
  cases hold none.
- none of them has a gradient: "through_casts" casts a float input to int32 and back around a
  bitwise_and and multiplies by the input: Keras's gradient is the cast value alone.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_integer_goldens.py
"""
import json
import os
import platform
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from golden_json import arr, jsonable  # noqa: E402
from keras import ops as K  # noqa: E402

keras = base.keras
OUT = os.path.join(base.DATA, "keras_ops_integer_golden.json")
OPS_DIR = os.path.join(base.MODELS_DIR, "integer")
rng = np.random.default_rng(20260441)

I32 = np.iinfo(np.int32)
I64 = np.iinfo(np.int64)


def make(shape, kind):
    """Inputs by kind: '<what>32' int32, '<what>64' int64, 'any' float32."""
    if kind == "any":
        return base.away_from(rng.uniform(-2.5, 2.5, shape), [0.0], 0.05)
    dtype = np.int32 if kind.endswith("32") else np.int64
    info = np.iinfo(dtype)
    what = kind[:-2]
    if what == "floatbits":  # floats' bit patterns (views of them as floats hold no NaN)
        words = 1 if dtype == np.int32 else 2
        floats = rng.uniform(-3.0, 3.0, shape[:-1] + (shape[-1] * words,)).astype(np.float32)
        return floats.view(dtype)
    if what == "bits":  # every bit pattern, the extremes first
        x = rng.integers(info.min, info.max, shape, dtype=np.int64, endpoint=True)
        first = [info.min, info.max, -1, 0]
    elif what == "small":
        x = rng.integers(-20, 21, shape)
        first = [0, -1]
    elif what == "shifts":  # negative shifts, shifts of bits - 1, bits and beyond
        bits = 8 * np.dtype(dtype).itemsize
        x = rng.integers(-3, bits + 6, shape)
        first = [0, bits - 1, bits, -1, bits + 5, 1]
    elif what in ("gcd_a", "gcd_b"):  # zeros, signs, |INT_MIN| and a product that wraps
        x = rng.integers(-60, 61, shape)
        first = ([0, 0, 12, -12, info.min, info.min, 1, info.max, 100000, 65536, I32.min, 7]
                 if what == "gcd_a" else
                 [0, 7, -18, 18, info.min, 6, info.min, 3, 99999, 65537, 1, -21])
    else:
        raise ValueError(kind)
    x = np.asarray(x, np.int64).reshape(-1)
    n = min(len(first), x.size)
    x[:n] = first[:n]
    return x.astype(dtype).reshape(shape)


def cases():
    A32 = np.array([6, -1, 0x0F0F0F0F, -2147483648], np.int32)
    A64 = np.array([3, 12, -5, 1 << 40])  # NumPy's default int: int64
    S, B = ("shifts32", (3, 4)), ("bits32", (3, 4))
    S64, B64 = ("shifts64", (3, 4)), ("bits64", (3, 4))
    G32, H32 = ("gcd_a32", (3, 4)), ("gcd_b32", (3, 4))
    G64, H64 = ("gcd_a64", (3, 4)), ("gcd_b64", (3, 4))
    return {
        "bitwise_and": (lambda x: K.bitwise_and(x[0], x[1]), [B, B], "BitwiseAnd"),
        "bitwise_and_int64_with_int32": (lambda x: K.bitwise_and(x[0], x[1]), [B64, B], "BitwiseAnd"),
        "bitwise_and_numpy_int32": (lambda x: K.bitwise_and(x[0], A32), [B], "BitwiseAnd"),
        "bitwise_and_numpy_int64_promotes": (lambda x: K.bitwise_and(A64, x[0]), [B], "BitwiseAnd"),
        "bitwise_or": (lambda x: K.bitwise_or(x[0], x[1]), [B, B], "BitwiseOr"),
        "bitwise_or_int64": (lambda x: K.bitwise_or(x[0], x[1]), [B64, B64], "BitwiseOr"),
        "bitwise_xor": (lambda x: K.bitwise_xor(x[0], x[1]), [B, B], "BitwiseXor"),
        "bitwise_xor_broadcast": (lambda x: K.bitwise_xor(x[0], x[1]), [B, ("bits32", (3, 1))], "BitwiseXor"),
        "bitwise_not": (lambda x: K.bitwise_not(x[0]), [B], "BitwiseNot"),
        "bitwise_invert_int64": (lambda x: K.bitwise_invert(x[0]), [B64], "BitwiseInvert"),
        "left_shift": (lambda x: K.left_shift(x[0], x[1]), [B, S], "LeftShift"),
        "right_shift": (lambda x: K.right_shift(x[0], x[1]), [B, S], "RightShift"),
        "bitwise_left_shift_int64": (lambda x: K.bitwise_left_shift(x[0], x[1]), [B64, S64], "BitwiseLeftShift"),
        "bitwise_right_shift_int64": (lambda x: K.bitwise_right_shift(x[0], x[1]), [B64, S64], "BitwiseRightShift"),
        "left_shift_int32_by_int64": (lambda x: K.left_shift(x[0], x[1]), [B, S64], "LeftShift"),
        "right_shift_broadcast": (lambda x: K.right_shift(x[0], x[1]), [B, ("shifts32", (3, 1))], "RightShift"),
        "left_shift_python_int": (lambda x: K.left_shift(x[0], 3), [B], "LeftShift"),
        "left_shift_python_int_past_the_bits": (lambda x: K.left_shift(x[0], 40), [B], "LeftShift"),
        "right_shift_python_int_negative": (lambda x: K.right_shift(x[0], -2), [B], "RightShift"),
        "bitwise_right_shift_int64_python_int": (lambda x: K.bitwise_right_shift(x[0], 33), [B64],
                                                 "BitwiseRightShift"),
        "gcd": (lambda x: K.gcd(x[0], x[1]), [G32, H32], "Gcd"),
        "gcd_int64": (lambda x: K.gcd(x[0], x[1]), [G64, H64], "Gcd"),
        "gcd_int64_with_int32": (lambda x: K.gcd(x[0], x[1]), [G64, H32], "Gcd"),
        "gcd_python_int": (lambda x: K.gcd(x[0], 6), [G32], "Gcd"),
        "gcd_broadcast": (lambda x: K.gcd(x[0], x[1]), [G32, ("gcd_b32", (3, 1))], "Gcd"),
        "lcm": (lambda x: K.lcm(x[0], x[1]), [G32, H32], "Lcm"),
        "lcm_int64": (lambda x: K.lcm(x[0], x[1]), [G64, H64], "Lcm"),
        "lcm_python_int": (lambda x: K.lcm(x[0], 6), [G32], "Lcm"),
        "lcm_numpy_int64": (lambda x: K.lcm(x[0], np.array([4, -6, 0, 9])), [G32], "Lcm"),
        # no gradient through the integers: d/dx of cast(cast(10x, int32) & 7) * x is the cast value
        "bitwise_and_through_casts": (
            lambda x: K.multiply(K.cast(K.bitwise_and(K.cast(x[0] * 10.0, "int32"), np.array([7, 3, 12, 5], np.int32)),
                                        "float32"), x[0]),
            ["any"], "BitwiseAnd"),
        # keras.ops.view: the bytes as another dtype (tf.bitcast); TensorFlow has no gradient for it
        "view_float32_as_int32": (lambda x: K.view(x[0], "int32"), ["any"], "View"),
        "view_int32_as_float32": (lambda x: K.view(x[0], "float32"), [("floatbits32", (3, 4))], "View"),
        "view_default_dtype": (lambda x: K.view(x[0]), [("floatbits64", (3, 4))], "View"),
        "view_float32_default_dtype": (lambda x: K.view(x[0]) * 2.0, ["any"], "View"),
        "view_int64_as_int32": (lambda x: K.view(x[0], "int32"), [B64], "View"),
        "view_int64_as_float32": (lambda x: K.view(x[0], "float32"), [("floatbits64", (3, 4))], "View"),
        "view_float32_as_int64": (lambda x: K.view(x[0], "int64"), ["any"], "View"),
        "view_int32_as_int64": (lambda x: K.view(x[0], "int64"), [("bits32", (3, 2))], "View"),
    }


def op_cases():
    """As make_keras_ops_goldens.py's op_cases, with each input's dtype from its kind."""
    out = []
    for name, (fn, kinds, op) in cases().items():
        keras.backend.clear_session()
        specs = [k if isinstance(k, tuple) else (k, (3, 4)) for k in kinds]
        xs = [make((2,) + shape, kind) for kind, shape in specs]
        ins = [keras.Input(shape, name="x%d" % i, dtype=str(x.dtype)) for i, ((_, shape), x) in enumerate(zip(specs, xs))]
        model = keras.Model(ins if len(ins) > 1 else ins[0], fn(ins), name=name)
        tins = [tf.constant(a) for a in xs]
        with tf.GradientTape() as tape:
            for t in tins:
                if t.dtype.is_floating:
                    tape.watch(t)
            y = model(tins if len(tins) > 1 else tins[0])
            floating = y.dtype.is_floating
            projection = rng.uniform(-1.0, 1.0, tuple(y.shape)).astype("float32")
            loss = tf.reduce_sum(y * projection) if floating else None
        grads = None
        if floating:
            watched = [t for t in tins if t.dtype.is_floating]
            try:
                found = iter(tape.gradient(loss, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO))
                grads = [next(found) if t.dtype.is_floating else tf.zeros(t.shape) for t in tins]
            except LookupError:  # TensorFlow registers no gradient for Bitcast (view)
                grads = None
        y = np.asarray(y)
        predicted = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)  # predict's (no XLA on the CPU)
        assert predicted.dtype == y.dtype and np.array_equal(predicted, y), name
        path = os.path.join(OPS_DIR, name + ".keras")
        model.save(path)
        again = np.asarray(keras.saving.load_model(path)(xs if len(xs) > 1 else xs[0]))
        assert again.dtype == y.dtype and np.array_equal(again, y), name
        config = model.get_config()
        entries = [jsonable(layer) for layer in config["layers"] if layer["class_name"] != "InputLayer"]
        assert any(e["class_name"] == op for e in entries), (name, [e["class_name"] for e in entries])
        out.append({
            "name": name,
            "operation": op,
            "file": "tests/data/keras_ops/integer/%s.keras" % name,
            "layers": entries,
            "output_index": config["output_layers"][2] if isinstance(config["output_layers"][0], str)
            else config["output_layers"][0][2],
            "inputs": [arr(a) for a in xs],
            "output": arr(y),
            "projection": arr(projection) if grads is not None else None,
            "input_grads": [arr(np.asarray(g)) for g in grads] if grads is not None else None,
        })
    return out


def main():
    os.makedirs(OPS_DIR, exist_ok=True)
    out = op_cases()
    doc = {
        "generator": {"script": "tests/reference/make_keras_ops_integer_goldens.py", "keras": keras.__version__,
                      "tensorflow": tf.__version__, "numpy": np.__version__,
                      "python": platform.python_version(), "backend": "tensorflow"},
        "notes": ["as keras_ops_golden.json's cases; inputs and outputs carry their integer dtypes (int32, int64)"],
        "cases": out,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(out), "cases")


if __name__ == "__main__":
    main()
