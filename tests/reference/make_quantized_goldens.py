#!/usr/bin/env python3
"""Keras 3 files of quantized and mixed-precision models, for Strata's loading tests (issue #39).

Writes tests/data/quantized/<name>.keras and <name>.h5 (where Keras saves the model as
.h5), with a seeded input per model input and Keras's predictions
(<name>.input<i>.npy, <name>.output<i>.npy, float32):

  int8_mlp, int4_mlp, float8_mlp   Input(6) -> Dense(5, relu) -> EinsumDense("ab,bc->ac", 4)
                                   -> Dense(3), after model.quantize(mode)
  int8_tokens, int4_tokens         int ids (4,) -> Embedding(12, 6) -> Dense(5) (on 3-D input)
                                   -> EinsumDense("abc,cde->abde", (4, 2, 3)) with a bias on
                                   "de", after model.quantize(mode)
  mixed_bfloat16_mlp, bfloat16_mlp, float16_mlp
                                   the MLP built under that global dtype policy (every layer's
                                   config carries it; the last Dense is given
                                   dtype="float32", as Keras's guide does for outputs)

No .h5 for float8_mlp and bfloat16_mlp: Keras writes them but cannot load them back.
The weights are drawn from a seeded generator (standard normal * 0.5, biases too), then the
model is quantized; Keras reloads each file and must predict the same (checked here).
For int8 the script also checks Keras's math as Strata reproduces it (docs/precision.md):
per-row abs-max quantization of the inputs, an integer product, one division by the
product of the two scales; the reproduction in NumPy must match Keras bit for bit.

Regenerate with (keras 3.15.1, tensorflow 2.21):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_quantized_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "quantized")
rng = np.random.default_rng(20263901)


def randomize(model):
    for w in model.weights:
        w.assign((rng.standard_normal(tuple(w.shape)) * 0.5).astype(w.dtype))


def mlp(last_dtype=None):
    inp = keras.Input((6,), name="x")
    h = L.Dense(5, activation="relu", name="dense")(inp)
    h = L.EinsumDense("ab,bc->ac", output_shape=4, bias_axes="c", name="einsum_dense")(h)
    out = L.Dense(3, name="out", **({"dtype": last_dtype} if last_dtype else {}))(h)
    return keras.Model(inp, out, name="mlp")


def tokens():
    inp = keras.Input((4,), dtype="int32", name="ids")
    h = L.Embedding(12, 6, name="embedding")(inp)
    h = L.Dense(5, name="dense")(h)
    out = L.EinsumDense("abc,cde->abde", output_shape=(4, 2, 3), bias_axes="de", name="heads")(h)
    return keras.Model(inp, out, name="tokens")


def inputs_for(model, batch=3):
    xs = []
    for t in model.inputs:
        shape = (batch,) + tuple(t.shape[1:])
        if "int" in str(t.dtype):
            xs.append(rng.integers(0, 12, size=shape).astype(str(t.dtype)))
        else:
            xs.append(rng.standard_normal(shape).astype("float32"))
    return xs


def save(model, name, h5=True):
    xs = inputs_for(model)
    y = np.asarray(model.predict(xs[0], verbose=0), "float32")
    base = os.path.join(OUT, name)
    exts = [".keras"] + ([".h5"] if h5 else [])
    for ext in exts:
        model.save(base + ext)
    np.save(base + ".input0.npy", xs[0])
    np.save(base + ".output0.npy", y)
    for ext in exts:
        again = keras.saving.load_model(base + ext)
        y2 = np.asarray(again.predict(xs[0], verbose=0), "float32")
        assert np.array_equal(y, y2), (base + ext, float(np.max(np.abs(y - y2))))
    return xs[0], y


def int8_dense_reference(x, kernel, kernel_scale, bias):
    """Keras's int8 Dense (TensorFlow backend) in NumPy, float32 throughout."""
    x = x.astype(np.float32)
    scale = np.float32(127.0) / (np.max(np.abs(x), axis=-1, keepdims=True) + np.float32(keras.config.epsilon()))
    q = np.clip(np.round(x * scale), -127, 127)  # np.round is round-half-to-even, as tf.round
    acc = (q.astype(np.int64) @ kernel.astype(np.int64)).astype(np.float32)
    return acc / (kernel_scale.astype(np.float32) * scale) + bias


def check_int8_math(model, x):
    """The first Dense's int8 output, reproduced, equals Keras's bit for bit."""
    dense = model.get_layer("dense")
    sub = keras.Model(model.inputs, dense.output)
    got = np.asarray(sub.predict(x, verbose=0))
    vs = {w.path.split("/")[-1]: np.asarray(w) for w in dense.weights}
    want = int8_dense_reference(x, vs["kernel"], vs["kernel_scale"], vs["bias"])
    want = np.maximum(want, 0)  # relu
    assert np.array_equal(got, want), float(np.max(np.abs(got - want)))


def main():
    os.makedirs(OUT, exist_ok=True)
    for mode in ("int8", "int4", "float8"):
        keras.backend.clear_session()
        model = mlp()
        randomize(model)
        model.quantize(mode)
        x, _ = save(model, mode + "_mlp", h5=mode != "float8")  # Keras cannot reload its float8 .h5
        if mode == "int8":
            check_int8_math(model, x)
        if mode == "float8":
            continue  # Keras's float8 layers are Dense and EinsumDense only
        keras.backend.clear_session()
        model = tokens()
        randomize(model)
        model.quantize(mode)
        save(model, mode + "_tokens")
    for policy in ("mixed_bfloat16", "bfloat16", "float16"):
        keras.backend.clear_session()
        keras.config.set_dtype_policy(policy)
        try:
            model = mlp(last_dtype="float32")
            randomize(model)
            save(model, policy + "_mlp", h5=policy != "bfloat16")  # Keras cannot reload bfloat16 .h5 weights
        finally:
            keras.config.set_dtype_policy("float32")
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
