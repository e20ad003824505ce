#!/usr/bin/env python3
"""Keras's model.quantize("int8") on float models, for Strata's Model::quantize tests (issue #39,
point 2; tests/models/quantize_test.cc).

Writes tests/data/quantize_api/, for each model below:

  <name>.float.keras     the float32 model, weights drawn from a seeded generator
  <name>.int8.keras      the same after keras's model.quantize("int8")
  <name>.input0.npy      a seeded input
  <name>.output0.npy     the quantized model's predictions for it
  <name>.train.json      fit after quantize: the quantized model compiled with SGD(0.1) and
                         "mse", then train_on_batch twice on x, y: the losses, every trainable
                         weight after (Keras trains the biases and the float layers; the int8
                         kernels and the scales are not trainable), the predictions after
  mlp.adam.json          (mlp only) quantize between steps: the float model compiled with
                         Adam(0.01), two train_on_batch, quantize("int8"), two more: the losses
                         and the trainable weights after (the optimizer keeps its state)

  mlp     Input(8) -> Dense(16, relu) -> EinsumDense("ab,bc->ac", 6) -> Dense(3, no bias);
          the first Dense's column 0 holds exact rounding ties (its max is 127, so the scale
          is 1 and 2.5, -0.5, ... round half to even) and its column 1 is all zeros
  einsum  Input((5, 6)) -> EinsumDense("abc,cde->abde", (5, 2, 3), bias "de")
          -> Reshape((5, 6)) -> EinsumDense("abc,ced->abde", (5, 2, 3), bias "de": the kernel's
          kept letters in another order than the output's)
  heads   Input((5, 4)) -> EinsumDense("abc,cde->abde", (5, 2, 3), bias "de")
          -> EinsumDense("abcd,cde->abe", (5, 4), bias "e"): MultiHeadAttention's projections,
          the second summing two letters (its kernel_scale (1, 1, 4), its input's scale one per
          (a, b), squeezed by Keras)
  attention  Input((6, 8)) -> MultiHeadAttention(2 heads of 4): attention.float.keras,
          .input0.npy and .output0.npy only (Keras cannot load its own file of the quantized
          layer)
  grouped Input((6, 8)) -> GroupQueryAttention(head_dim 4, 4 query heads, 2 key/value heads):
          as attention
  tokens  ids (4,) -> Embedding(12, 6) -> Dense(5) (on 3-D input) -> LayerNormalization
          (untouched by quantize) -> GlobalAveragePooling1D -> Dense(2)

Regenerate with (keras 3.15.1, tensorflow 2.21):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_quantize_api_goldens.py
"""
import json
import os
import sys
import warnings

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

from golden_json import arr  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "quantize_api")
rng = np.random.default_rng(20263902)


def randomize(model):
    for w in model.weights:
        w.assign((rng.standard_normal(tuple(w.shape)) * 0.5).astype(w.dtype))


def mlp():
    inp = keras.Input((8,), name="x")
    h = L.Dense(16, activation="relu", name="dense")(inp)
    h = L.EinsumDense("ab,bc->ac", output_shape=6, bias_axes="c", name="einsum_dense")(h)
    out = L.Dense(3, use_bias=False, name="out")(h)
    model = keras.Model(inp, out, name="mlp")
    randomize(model)
    kernel = model.get_layer("dense").kernel
    k = np.asarray(kernel)
    k[:, 0] = [127.0, 2.5, -0.5, 3.5, -4.5, 0.5, 1.5, -2.5]
    k[:, 1] = 0.0
    kernel.assign(k)
    return model


def einsum():
    inp = keras.Input((5, 6), name="x")
    h = L.EinsumDense("abc,cde->abde", output_shape=(5, 2, 3), bias_axes="de", name="heads")(inp)
    h = L.Reshape((5, 6), name="merge")(h)
    out = L.EinsumDense("abc,ced->abde", output_shape=(5, 2, 3), bias_axes="de", name="swapped")(h)
    model = keras.Model(inp, out, name="einsum")
    randomize(model)
    return model


def heads():
    inp = keras.Input((5, 4), name="x")
    h = L.EinsumDense("abc,cde->abde", output_shape=(5, 2, 3), bias_axes="de", name="split")(inp)
    out = L.EinsumDense("abcd,cde->abe", output_shape=(5, 4), bias_axes="e", name="merge")(h)
    model = keras.Model(inp, out, name="heads")
    randomize(model)
    return model


def tokens():
    inp = keras.Input((4,), dtype="int32", name="ids")
    h = L.Embedding(12, 6, name="embedding")(inp)
    h = L.Dense(5, name="dense")(h)
    h = L.LayerNormalization(name="norm")(h)
    h = L.GlobalAveragePooling1D(name="pool")(h)
    out = L.Dense(2, name="out")(h)
    model = keras.Model(inp, out, name="tokens")
    randomize(model)
    return model


def input_for(model, batch):
    t = model.inputs[0]
    shape = (batch,) + tuple(t.shape[1:])
    if "int" in str(t.dtype):
        return rng.integers(0, 12, size=shape).astype("int32")
    return rng.standard_normal(shape).astype("float32")


def target_for(model, batch):
    return rng.standard_normal((batch,) + tuple(model.outputs[0].shape[1:])).astype("float32")


def quantize(model):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "Layer InputLayer does not have a `quantize` method implemented."
        model.quantize("int8")


def trainable(model):
    return {w.path: arr(np.asarray(w)) for w in model.trainable_weights}


def write_json(path, obj):
    with open(path, "w") as f:
        json.dump(obj, f)


def make(name, build):
    keras.backend.clear_session()
    model = build()
    base = os.path.join(OUT, name)
    model.save(base + ".float.keras")
    quantize(model)
    model.save(base + ".int8.keras")
    x = input_for(model, 3)
    y = np.asarray(model.predict(x, verbose=0), "float32")
    np.save(base + ".input0.npy", x)
    np.save(base + ".output0.npy", y)
    again = keras.saving.load_model(base + ".int8.keras")
    assert np.array_equal(y, np.asarray(again.predict(x, verbose=0), "float32")), name
    # Quantizing the saved float file gives the same file's weights (nothing but the weights counts).
    reloaded = keras.saving.load_model(base + ".float.keras")
    quantize(reloaded)
    for a, b in zip(reloaded.weights, again.weights):
        assert a.path == b.path and np.array_equal(np.asarray(a), np.asarray(b)), (name, a.path)

    tx, ty = input_for(model, 4), target_for(model, 4)
    again.compile(optimizer=keras.optimizers.SGD(0.1), loss="mse")
    losses = [float(again.train_on_batch(tx, ty)) for _ in range(2)]
    write_json(base + ".train.json", {
        "x": arr(tx), "y": arr(ty), "losses": losses, "trainable": trainable(again),
        "non_trainable": sorted(w.path for w in again.non_trainable_weights),
        "predict_after": arr(np.asarray(again.predict(x, verbose=0), "float32")),
    })


def make_attention():
    """attention: Input((6, 8)) -> MultiHeadAttention(2 heads of 4)(x, x). Keras's quantize
    quantizes its four EinsumDense projections, and Keras 3.15 cannot load its own file of
    the result: only the float file, an input and the quantized model's predictions."""
    keras.backend.clear_session()
    inp = keras.Input((6, 8), name="x")
    out = L.MultiHeadAttention(2, 4, name="mha")(inp, inp)
    model = keras.Model(inp, out, name="attention")
    randomize(model)
    base = os.path.join(OUT, "attention")
    model.save(base + ".float.keras")
    quantize(model)
    x = input_for(model, 3)
    np.save(base + ".input0.npy", x)
    np.save(base + ".output0.npy", np.asarray(model.predict(x, verbose=0), "float32"))


def make_grouped_attention():
    """grouped: Input((6, 8)) -> GroupQueryAttention(head_dim 4, 4 query heads, 2 key/value
    heads)(x, x), as attention above (Keras cannot load its own file of it either)."""
    keras.backend.clear_session()
    inp = keras.Input((6, 8), name="x")
    out = L.GroupQueryAttention(4, 4, 2, name="gqa")(inp, inp)
    model = keras.Model(inp, out, name="grouped")
    randomize(model)
    base = os.path.join(OUT, "grouped")
    model.save(base + ".float.keras")
    quantize(model)
    x = input_for(model, 3)
    np.save(base + ".input0.npy", x)
    np.save(base + ".output0.npy", np.asarray(model.predict(x, verbose=0), "float32"))


def make_adam_between_steps():
    keras.backend.clear_session()
    model = keras.saving.load_model(os.path.join(OUT, "mlp.float.keras"))
    tx, ty = input_for(model, 4), target_for(model, 4)
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    losses = [float(model.train_on_batch(tx, ty)) for _ in range(2)]
    quantize(model)
    losses += [float(model.train_on_batch(tx, ty)) for _ in range(2)]
    write_json(os.path.join(OUT, "mlp.adam.json"), {
        "x": arr(tx), "y": arr(ty), "losses": losses, "trainable": trainable(model),
        "iterations": int(model.optimizer.iterations.numpy()),
    })


def main():
    os.makedirs(OUT, exist_ok=True)
    make("mlp", mlp)
    make("einsum", einsum)
    make("heads", heads)
    make("tokens", tokens)
    make_attention()
    make_grouped_attention()
    make_adam_between_steps()
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
