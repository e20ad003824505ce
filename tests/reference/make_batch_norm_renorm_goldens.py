#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for BatchNormalization's batch
renormalization (renorm=True, renorm_clipping, renorm_momentum; issue #38 point 2) and its
synchronized=True outside tf.distribute (one replica's all-reduced moments).

Writes
  tests/data/batch_norm_renorm_golden.json
    "cases": one training step each (keras_layer_case.batch_norm_step_case): the seven
      weights set to seeded values (renorm_stddev in [0.4, 2.0], so that r and d are far from
      1 and 0 and the clipping bites), the training output, the gradients of
      sum(output * projection) to the input, gamma and beta, every non-trainable weight after
      the step's update (moving_mean, moving_variance, moving_stddev, renorm_mean,
      renorm_stddev) and the inference output after it.
  tests/data/batch_norm_renorm/renorm_mlp.keras, .h5, .input0.npy, .output0.npy,
      .target0.npy, .after.json: Dense -> BatchNormalization(renorm, clipping) -> Dense,
      fitted 3 epochs of 2 batches (SGD 0.05, mean squared error) so that every statistic
      has moved, saved, Keras's predictions; then one more train_on_batch (SGD 0.1) on
      input0 / target0: its loss and every weight after it (.after.json).
  tests/data/batch_norm_renorm/renorm_mlp_tf_keras.h5 (and the same .npy / .after.json):
      the same model made, trained and saved by tf_keras 2.21 (Keras 2), whose
      renormalization keeps the same seven weights and computes the same step.

The C++ suites (tests/layers/batch_norm_renorm_test.cc, tests/io/batch_norm_renorm_files_test.cc)
read them; they never run Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 tf-keras==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_batch_norm_renorm_goldens.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import arr  # noqa: E402
from keras_layer_case import batch_norm_step_case, new, save_model  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "batch_norm_renorm_golden.json")
MODELS_DIR = os.path.join(DATA, "batch_norm_renorm")
rng = np.random.default_rng(20261203)


def x(*shape):
    return (rng.standard_normal(shape) * 1.5 + 0.3).astype("float32")


def mask(shape, p_true=0.6):
    m = rng.uniform(size=shape) < p_true
    m.reshape(shape[0], -1)[:, 0] = True  # every sample keeps one position
    return m


def cases():
    BN = L.BatchNormalization
    c = []
    # No clipping: r = σ_B / σ_R and d = (μ_B − μ_R) / σ_R as they come.
    c.append(batch_norm_step_case(rng, "renorm_unclipped", new(BN, renorm=True, momentum=0.9, renorm_momentum=0.8),
                                  x(6, 4)))
    # Every clip: r in [0.8, 1.25], d in [−0.3, 0.3], over images.
    c.append(batch_norm_step_case(
        rng, "renorm_clipped_images",
        new(BN, renorm=True, renorm_clipping={"rmax": 1.25, "rmin": 0.8, "dmax": 0.3}, epsilon=1e-2), x(2, 3, 4, 3)))
    # One bound each: rmax alone, and dmax alone with axis=1.
    c.append(batch_norm_step_case(rng, "renorm_rmax_only", new(BN, renorm=True, renorm_clipping={"rmax": 1.1}),
                                  x(5, 3)))
    c.append(batch_norm_step_case(rng, "renorm_axis1_dmax",
                                  new(BN, axis=1, renorm=True, renorm_clipping={"dmax": 0.2}, renorm_momentum=0.5),
                                  x(3, 4, 2)))
    # Neither gamma nor beta: the corrected scale and offset are r and d themselves; and
    # scale without center.
    c.append(batch_norm_step_case(rng, "renorm_no_center_no_scale", new(BN, renorm=True, center=False, scale=False),
                                  x(4, 3)))
    c.append(batch_norm_step_case(rng, "renorm_scale_only", new(BN, renorm=True, center=False,
                                                                renorm_clipping={"rmin": 0.9}), x(4, 3)))
    # The masked moments, renormalized.
    c.append(batch_norm_step_case(rng, "renorm_sequence_input_mask", new(BN, renorm=True, momentum=0.8),
                                  x(3, 5, 4), mask=mask((3, 5))))
    # synchronized=True outside tf.distribute: one replica's all-reduced moments,
    # E[x²] − E[x]² (appended with a generator of their own: the cases above stay as written).
    own = np.random.default_rng(20261204)

    def offset(*shape):
        return (own.standard_normal(shape) * 0.8 + 2.0).astype("float32")

    c.append(batch_norm_step_case(own, "synchronized", new(BN, synchronized=True, momentum=0.7), offset(4, 5, 3)))
    c.append(batch_norm_step_case(own, "synchronized_renorm",
                                  new(BN, synchronized=True, renorm=True, renorm_clipping={"rmax": 1.2}), offset(6, 3)))
    c.append(batch_norm_step_case(own, "synchronized_with_mask", new(BN, synchronized=True), offset(3, 4, 2),
                                  mask=own.uniform(size=(3, 4)) < 0.7))
    return c


def fitted_renorm_mlp(lib, seed, name):
    """Dense -> BatchNormalization(renorm, clipping) -> relu -> Dense, made by `lib` (keras or
    tf_keras, whose APIs agree here) and fitted 3 epochs of 2 batches (SGD 0.05, mean squared
    error), so that every statistic has moved."""
    lib.backend.clear_session()
    lib.utils.set_random_seed(seed)
    layers = lib.layers
    inp = lib.Input((5,), name="features")
    h = layers.Dense(6, name="dense")(inp)
    h = layers.BatchNormalization(renorm=True, renorm_clipping={"rmax": 2.0, "rmin": 0.5, "dmax": 1.0},
                                  renorm_momentum=0.7, momentum=0.8, name="bn")(h)
    h = layers.Activation("relu", name="relu")(h)
    y = layers.Dense(2, name="head")(h)
    m = lib.Model(inp, y, name=name)
    m.compile(optimizer=lib.optimizers.SGD(learning_rate=0.05), loss=lib.losses.MeanSquaredError())
    xs = (rng.standard_normal((16, 5)) * 2 + 0.5).astype("float32")
    ys = rng.standard_normal((16, 2)).astype("float32")
    m.fit(xs, ys, batch_size=8, epochs=3, shuffle=False, verbose=0)
    return m


def write_step_after(lib, m, base, batch, weight_name):
    """One more train_on_batch (SGD 0.1) on `batch` and a seeded target (.target0.npy): its
    loss and every weight after it (.after.json), each weight under weight_name(w)."""
    target = rng.standard_normal((batch.shape[0], 2)).astype("float32")
    np.save(base + ".target0.npy", target)
    m.compile(optimizer=lib.optimizers.SGD(learning_rate=0.1), loss=lib.losses.MeanSquaredError())
    loss = float(m.train_on_batch(batch, target))
    after = {"loss": loss, "weights": {weight_name(w): arr(np.asarray(w)) for w in m.weights}}
    with open(base + ".after.json", "w") as f:
        json.dump(after, f, separators=(",", ":"))
        f.write("\n")
    print(m.name, "weights:", list(after["weights"]))


def renorm_mlp():
    m = fitted_renorm_mlp(keras, 38, "renorm_mlp")
    base = os.path.join(MODELS_DIR, m.name)
    save_model(rng, m, base, batch=6)
    write_step_after(keras, m, base, np.load(base + ".input0.npy"), lambda w: w.path)


def tf_keras_renorm_mlp():
    import tf_keras

    m = fitted_renorm_mlp(tf_keras, 39, "renorm_mlp_tf_keras")
    base = os.path.join(MODELS_DIR, m.name)
    batch = rng.standard_normal((6, 5)).astype("float32")
    np.save(base + ".input0.npy", batch)
    np.save(base + ".output0.npy", np.asarray(m.predict(batch, verbose=0), "float32"))
    m.save(base + ".h5")
    # tf_keras names weights "bn/gamma:0"; Strata's paths (and Keras 3's) drop the ":0".
    write_step_after(tf_keras, m, base, batch, lambda w: w.name.split(":")[0])


def main():
    os.makedirs(MODELS_DIR, exist_ok=True)
    doc = {"keras_version": keras.__version__, "cases": cases()}
    renorm_mlp()
    tf_keras_renorm_mlp()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, len(doc["cases"]), "cases:", [c["name"] for c in doc["cases"]])


if __name__ == "__main__":
    main()
