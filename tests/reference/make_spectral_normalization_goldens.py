#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for SpectralNormalization.

Writes
  tests/data/spectral_normalization_golden.json  cases: SpectralNormalization wrapping Dense
                                                 (power_iterations 1 and 3), Conv2D and
                                                 Embedding, each with its config, input,
                                                 weights (layer.weights order: the inner
                                                 layer's kernel, vector_u, the rest) set to
                                                 seeded values, then one call with
                                                 training=True: its output, the gradients
                                                 (TF GradientTape) of sum(output *
                                                 projection) w.r.t. the input (zeros for
                                                 integer ids) and every trainable weight, and
                                                 the weights after the call (u and the
                                                 kernel assigned); then a call with
                                                 training=False on the same input
                                                 ("inference_output", the assigned kernel
                                                 as stored); plus "zero_kernel": a Dense
                                                 whose kernel is all zeros, which training
                                                 leaves as it is
  tests/data/spectral_normalization/<name>.keras a Sequential model (Conv2D and Dense each
  tests/data/spectral_normalization/<name>.h5    wrapped) saved by Keras after one fit step,
  .../<name>.input0.npy, .output0.npy            a seeded input and Keras's predictions

Regenerate with (keras 3.15.1, tensorflow 2.21):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_spectral_normalization_goldens.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import arr, jsonable  # noqa: E402
from keras_layer_case import new, save_model  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "spectral_normalization_golden.json")
MODELS = os.path.join(DATA, "spectral_normalization")
rng = np.random.default_rng(20263803)


def case(name, layer, x, zero_kernel=False, ids=False):
    t = tf.constant(x)
    layer(t, training=False)  # builds
    values = []
    for w in layer.weights:
        v = (rng.standard_normal(tuple(w.shape)) * 0.5).astype("float32")
        if zero_kernel and w.path.endswith("/kernel"):
            v[...] = 0
        values.append(v)
    layer.set_weights(values)
    tvars = list(layer.trainable_variables)
    with tf.GradientTape(persistent=True) as tape:
        if not ids:
            tape.watch(t)
        y = layer(t, training=True)
        proj = rng.standard_normal(y.shape).astype("float32")
        loss = tf.reduce_sum(y * proj)
    gx = np.zeros(x.shape, "float32") if ids else tape.gradient(loss, t)  # ids have none
    gw = [tf.convert_to_tensor(g) if g is not None else None for g in tape.gradient(loss, tvars)]
    after = [np.asarray(w) for w in layer.weights]
    inference = layer(t, training=False)
    return {
        "name": name,
        "class_name": "SpectralNormalization",
        "config": jsonable(layer.get_config()),
        "inputs": [arr(x)],
        "weights": [arr(v) for v in values],
        "weight_names": [w.path for w in layer.weights],
        "trainable_names": [w.path for w in tvars],
        "outputs": [arr(y)],
        "projections": [arr(proj)],
        "input_grads": [arr(gx)],
        # null where Keras gives none: TF's tape gives the wrapped Embedding's embeddings,
        # assigned inside the call, no gradient.
        "weight_grads": [None if g is None else arr(g) for g in gw],
        "weights_after": [arr(v) for v in after],
        "inference_output": arr(inference),
    }


def cases():
    S = L.SpectralNormalization
    c = []
    x = rng.standard_normal((3, 5)).astype("float32")
    c.append(case("dense", new(lambda: S(L.Dense(4))), x))
    c.append(case("dense_power_iterations3", new(lambda: S(L.Dense(4, activation="tanh"), power_iterations=3)), x))
    c.append(case("conv2d", new(lambda: S(L.Conv2D(3, 2))), rng.standard_normal((2, 4, 4, 2)).astype("float32")))
    # Float ids: SpectralNormalization casts the layer's output to the input's dtype, so
    # int32 ids would truncate the embeddings to zeros.
    ids = rng.integers(0, 6, size=(2, 3)).astype("float32")
    c.append(case("embedding", new(lambda: S(L.Embedding(6, 4))), ids, ids=True))
    c.append(case("zero_kernel", new(lambda: S(L.Dense(4))), x, zero_kernel=True))
    return c


def model():
    os.makedirs(MODELS, exist_ok=True)
    keras.backend.clear_session()
    keras.utils.set_random_seed(38)
    m = keras.Sequential([keras.Input((6, 6, 2)), L.SpectralNormalization(L.Conv2D(4, 3, activation="relu")),
                          L.Flatten(), L.SpectralNormalization(L.Dense(3), power_iterations=2)], name="sn_cnn")
    m.compile(optimizer="sgd", loss=keras.losses.MeanSquaredError())
    m.fit(rng.standard_normal((8, 6, 6, 2)).astype("float32"), rng.standard_normal((8, 3)).astype("float32"),
          epochs=1, batch_size=8, verbose=0)
    save_model(rng, m, os.path.join(MODELS, "sn_cnn"))


def main():
    keras.utils.set_random_seed(1)
    doc = {"keras_version": keras.__version__, "cases": cases()}
    model()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(doc["cases"]), "cases")


if __name__ == "__main__":
    main()
