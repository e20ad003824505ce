#!/usr/bin/env python3
"""Keras 3 training under the mixed-precision dtype policies, for Strata's emulation of it
(gradients rounded where Keras's are; LossScaleOptimizer under mixed_float16).

For each case below, writes to tests/data/mixed_precision_training/:
  <case>.keras          the compiled model before training (weights drawn from a seeded
                        generator, the optimizer not built yet)
  <case>.x.npy, .y.npy  the training data: `steps` batches of `batch` rows, in order
  <case>.trained.keras  the model after one train_on_batch per batch, in order, its
                        optimizer state with it
  <case>.losses.npy     the loss train_on_batch returned for each batch (float32)
  <case>.loss_scale.npy under a LossScaleOptimizer: after each batch, its dynamic_scale and
                        the inner optimizer's iterations (float32, exact here; shape (steps, 2))

  mixed_bfloat16_mlp   mixed_bfloat16: Input(8) -> Dense(16, relu) -> Dense(16, tanh)
                       -> Dense(3, softmax); SGD(0.1, momentum=0.9), 6 batches of 16
  mixed_float16_mlp    mixed_float16: the same with its last Dense given dtype="float32";
                       compile wraps the SGD in Keras's LossScaleOptimizer (initial scale
                       2^15); 6 batches of 16
  mixed_float16_dynamic_scale
                       mixed_float16 with an explicit LossScaleOptimizer(Adam(0.01),
                       initial_scale=2^40, dynamic_growth_steps=2): the first steps' float16
                       gradients overflow, are skipped and halve the scale, the later ones
                       grow it; 24 batches of 8
  float32_reference    the mixed_bfloat16_mlp model, weights and data under "float32": what
                       float32 arithmetic gives (the test's yardstick for "closer to Keras")

Only layers carry the policy (Input layers stay float32).  The .keras zips are rewritten with
deflate (same members and bytes).

Regenerate with (keras 3.15.1, tensorflow 2.21, CPU):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_mixed_precision_training_goldens.py
"""
import os
import sys
import tempfile
import zipfile

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "mixed_precision_training")


def deflated(src, dst):
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            zout.writestr(item.filename, zin.read(item.filename))


def save(model, path):
    with tempfile.TemporaryDirectory() as tmp:
        raw = os.path.join(tmp, "model.keras")
        model.save(raw)
        deflated(raw, path)


def mlp(policy, float32_head):
    keras.config.set_dtype_policy(policy)
    try:
        inp = keras.Input((8,), dtype="float32")
        h = L.Dense(16, activation="relu", name="hidden1")(inp)
        h = L.Dense(16, activation="tanh", name="hidden2")(h)
        out = L.Dense(3, activation="softmax", name="head", dtype="float32" if float32_head else None)(h)
        return keras.Model(inp, out, name="mlp")
    finally:
        keras.config.set_dtype_policy("float32")


def set_seeded_weights(model, seed):
    rng = np.random.default_rng(seed)
    for layer in model.layers:
        values = [rng.normal(0, 0.5, size=w.shape).astype("float32") for w in layer.get_weights()]
        layer.set_weights(values)


def data(seed, steps, batch):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 1, size=(steps * batch, 8)).astype("float32")
    y = rng.integers(0, 3, size=(steps * batch,)).astype("int32")
    return x, y


def run(case, model, optimizer, steps, batch, seed):
    set_seeded_weights(model, seed)
    model.compile(optimizer=optimizer, loss="sparse_categorical_crossentropy")
    x, y = data(seed + 1, steps, batch)
    base = os.path.join(OUT, case)
    save(model, base + ".keras")
    np.save(base + ".x.npy", x)
    np.save(base + ".y.npy", y)
    losses, scales = [], []
    for s in range(steps):
        losses.append(model.train_on_batch(x[s * batch:(s + 1) * batch], y[s * batch:(s + 1) * batch]))
        if isinstance(model.optimizer, keras.optimizers.LossScaleOptimizer):
            scales.append([float(model.optimizer.dynamic_scale.numpy()), float(model.optimizer.iterations.numpy())])
    np.save(base + ".losses.npy", np.array(losses, dtype="float32"))
    if scales:
        np.save(base + ".loss_scale.npy", np.array(scales, dtype="float32"))
    save(model, base + ".trained.keras")
    opt = model.optimizer
    state = {v.path: v.numpy().tolist() for v in opt.variables if v.shape == ()}
    print(case, type(opt).__name__, "losses", np.round(losses, 4).tolist(), state)


def main():
    os.makedirs(OUT, exist_ok=True)
    run("mixed_bfloat16_mlp", mlp("mixed_bfloat16", False), keras.optimizers.SGD(0.1, momentum=0.9), 6, 16, 10)
    run("float32_reference", mlp("float32", False), keras.optimizers.SGD(0.1, momentum=0.9), 6, 16, 10)
    run("mixed_float16_mlp", mlp("mixed_float16", True), keras.optimizers.SGD(0.1, momentum=0.9), 6, 16, 20)
    dynamic = keras.optimizers.LossScaleOptimizer(keras.optimizers.Adam(0.01), initial_scale=2.0**20,
                                                  dynamic_growth_steps=2)
    run("mixed_float16_dynamic_scale", mlp("mixed_float16", True), dynamic, 24, 8, 30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
