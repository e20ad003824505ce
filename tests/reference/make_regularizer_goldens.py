#!/usr/bin/env python3
"""Writes the goldens of Strata's regularizers and constraints from real Keras 3.

Regenerate with exactly:

    KERAS_BACKEND=tensorflow python3 tests/reference/make_regularizer_goldens.py

Versions used for the committed files: keras 3.15.1 on TensorFlow (recorded under
"generator").

tests/data/regularizers_golden.json holds one case per regularizer or constraint use: the
model's config (model.to_json()), its initial weights, a batch (x, y), and what Keras
computes with loss "mse" and SGD(learning_rate=0.1): evaluate's loss, the loss one
train_on_batch reports (before its update) and the weights after that step. The
penalties of weight regularizers and activity regularizers are in both losses (Keras's
model.losses); constraints are applied after the update. predict has no losses to check.

tests/data/regularizers/: one model saved by Keras as .keras and .h5 (regularizers of
every kind and constraints), with its batch in the case "saved" of the JSON.
"""
import json
import os
import platform
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import constraints as C  # noqa: E402
from keras import layers as L  # noqa: E402
from keras import regularizers as R  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

import tensorflow as tf  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
GENERATOR = {
    "script": "tests/reference/make_regularizer_goldens.py",
    "keras": keras.__version__,
    "tensorflow": tf.__version__,
    "numpy": np.__version__,
    "python": platform.python_version(),
    "backend": keras.backend.backend(),
}


def tensor(a):
    a = np.asarray(a)
    dtype = "int64" if a.dtype.kind in "iu" else "float32"
    a = a.astype(dtype)
    return {"shape": list(a.shape), "dtype": dtype, "values": a.reshape(-1).tolist()}


def rng_values(seed, shape, scale=1.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype("float32")


def run_case(name, build, x, y_shape, seed):
    keras.utils.clear_session()
    keras.utils.set_random_seed(seed)
    model = build()
    # Weights away from the initializers' values (zeros biases, ones gammas), so that every
    # penalty and constraint has something to act on.
    weights = [rng_values(seed + i + 1, w.shape, 0.7) for i, w in enumerate(model.get_weights())]
    for i, w in enumerate(model.weights):
        if w.path.endswith("moving_variance"):
            weights[i] = np.abs(weights[i]) + 0.5
    model.set_weights(weights)
    y = rng_values(seed + 100, (x.shape[0],) + y_shape)
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
    evaluated = float(model.evaluate(x, y, batch_size=x.shape[0], verbose=0))
    trained = float(model.train_on_batch(x, y))
    return model, {
        "name": name,
        "config": json.loads(model.to_json()),
        "weights": [tensor(w) for w in weights],
        "x": tensor(x),
        "y": tensor(y),
        "evaluate_loss": evaluated,
        "train_step_loss": trained,
        "weights_after_step": [tensor(w) for w in model.get_weights()],
    }


X = rng_values(1, (4, 3))
IMAGES = rng_values(2, (4, 4, 4, 2))
SEQUENCES = rng_values(3, (4, 5, 2))
TOKENS = np.array([[1, 4, 0], [2, 2, 3], [4, 0, 1], [3, 1, 2]], dtype="int64")


def dense_model(layers, inputs=(3,), dtype="float32"):
    return lambda: keras.Sequential([keras.Input(inputs, dtype=dtype), *layers()])


def attention_model(activity=False):
    """Self-attention whose projections' kernels and biases have regularizers and constraints
    (and, with `activity`, whose projections' outputs an activity regularizer)."""
    x = keras.Input((5, 2))
    extra = dict(activity_regularizer=R.L2(0.03)) if activity else {}
    h = L.MultiHeadAttention(2, 3, kernel_regularizer=R.L2(0.05), bias_regularizer=R.L1(0.02),
                             kernel_constraint=C.MaxNorm(0.9), bias_constraint=C.NonNeg(), **extra)(x, x)
    return keras.Model(x, L.Dense(1)(L.Flatten()(h)))


def attention_model_rank4():
    """Attention over one axis of images (rank-4 inputs, another axis beside the batch), its
    projections' outputs under an activity regularizer: Keras divides each penalty by the
    batch alone."""
    x = keras.Input((4, 4, 2))
    h = L.MultiHeadAttention(2, 3, attention_axes=(2,), activity_regularizer=R.L2(0.03),
                             kernel_regularizer=R.L1(0.02))(x, x)
    return keras.Model(x, L.Dense(1)(L.Flatten()(h)))


def grouped_attention_model():
    """GroupQueryAttention with a gate, every projection regularized and constrained."""
    x = keras.Input((5, 2))
    h = L.GroupQueryAttention(2, 4, 2, use_gate=True, kernel_regularizer=R.L1(0.04), bias_regularizer=R.L2(0.1),
                              activity_regularizer=R.L1(0.01), kernel_constraint=C.UnitNorm(axis=0))(x, x)
    return keras.Model(x, L.Dense(1)(L.Flatten()(h)))


CASES = [
    ("dense_l1", dense_model(lambda: [L.Dense(2, kernel_regularizer=R.L1(0.05))]), X, (2,)),
    ("dense_l2_kernel_and_bias",
     dense_model(lambda: [L.Dense(2, kernel_regularizer=R.L2(0.1), bias_regularizer=R.L2(0.2))]), X, (2,)),
    ("dense_l1l2", dense_model(lambda: [L.Dense(2, kernel_regularizer=R.L1L2(l1=0.03, l2=0.07))]), X, (2,)),
    ("dense_by_name",
     dense_model(lambda: [L.Dense(4, kernel_regularizer="l2", bias_regularizer="l1", activation="tanh"),
                          L.Dense(2, kernel_regularizer="orthogonal_regularizer")]), X, (2,)),
    ("orthogonal_rows",
     dense_model(lambda: [L.Dense(4, kernel_regularizer=R.OrthogonalRegularizer(factor=0.3, mode="rows"))]),
     X, (4,)),
    ("orthogonal_columns",
     dense_model(lambda: [L.Dense(4, kernel_regularizer=R.OrthogonalRegularizer(factor=0.2, mode="columns"))]),
     X, (4,)),
    ("activity_l2_and_l1",
     dense_model(lambda: [L.Dense(3, activity_regularizer=R.L2(0.1), activation="relu"),
                          L.Dense(2, activity_regularizer=R.L1(0.05))]), X, (2,)),
    ("frozen_layer_has_no_penalty",
     dense_model(lambda: [L.Dense(3, kernel_regularizer=R.L2(0.5), trainable=False),
                          L.Dense(2, kernel_regularizer=R.L1(0.05))]), X, (2,)),
    ("conv2d",
     dense_model(lambda: [L.Conv2D(2, 2, kernel_regularizer=R.L2(0.05), bias_regularizer=R.L1(0.1),
                                   activity_regularizer=R.L1L2(l1=0.01, l2=0.02)), L.Flatten(),
                          L.Dense(1, kernel_regularizer=R.L2(0.01))], inputs=(4, 4, 2)), IMAGES, (1,)),
    ("embedding",
     dense_model(lambda: [L.Embedding(5, 2, embeddings_regularizer=R.L2(0.1), activity_regularizer=R.L1(0.02)),
                          L.Flatten(), L.Dense(1)], inputs=(3,), dtype="int64"), TOKENS, (1,)),
    ("normalization",
     dense_model(lambda: [L.Dense(4), L.BatchNormalization(gamma_regularizer=R.L2(0.1), beta_regularizer=R.L1(0.2)),
                          L.LayerNormalization(gamma_regularizer=R.L1(0.05), beta_regularizer=R.L2(0.3)),
                          L.Dense(2)]), X, (2,)),
    ("max_norm_and_non_neg",
     dense_model(lambda: [L.Dense(3, kernel_constraint=C.MaxNorm(0.5), bias_constraint=C.NonNeg())]), X, (3,)),
    ("unit_norm_and_min_max_norm",
     dense_model(lambda: [L.Dense(3, kernel_constraint=C.UnitNorm(axis=1)),
                          L.Dense(2, kernel_constraint=C.MinMaxNorm(min_value=0.2, max_value=0.6, rate=0.7),
                                  kernel_regularizer=R.L2(0.05))]), X, (2,)),
    ("constraints_by_name",
     dense_model(lambda: [L.Dense(3, kernel_constraint="max_norm", bias_constraint="non_neg"),
                          L.Dense(2, kernel_constraint="unit_norm")]), X, (2,)),
    ("conv2d_max_norm_over_three_axes",
     dense_model(lambda: [L.Conv2D(3, 2, kernel_constraint=C.MaxNorm(0.8, axis=[0, 1, 2])), L.Flatten(),
                          L.Dense(1)], inputs=(4, 4, 2)), IMAGES, (1,)),
    ("normalization_constraints",
     dense_model(lambda: [L.Dense(4), L.BatchNormalization(gamma_constraint=C.NonNeg(),
                                                           beta_constraint=C.MaxNorm(0.3)), L.Dense(2)]),
     X, (2,)),
    # The classes whose weights' regularizers and constraints came later (issue #38).
    ("conv2d_transpose",
     dense_model(lambda: [L.Conv2DTranspose(2, 2, kernel_regularizer=R.L2(0.05), bias_regularizer=R.L1(0.1),
                                            activity_regularizer=R.L2(0.01), kernel_constraint=C.MaxNorm(0.8),
                                            bias_constraint=C.NonNeg()), L.Flatten(), L.Dense(1)],
                 inputs=(4, 4, 2)), IMAGES, (1,)),
    ("conv1d_transpose",
     dense_model(lambda: [L.Conv1DTranspose(2, 3, strides=2, kernel_regularizer=R.L1(0.03)), L.Flatten(),
                          L.Dense(1)], inputs=(5, 2)), SEQUENCES, (1,)),
    ("depthwise_conv2d",
     dense_model(lambda: [L.DepthwiseConv2D(2, depth_multiplier=2, depthwise_regularizer=R.L2(0.1),
                                            bias_regularizer=R.L1(0.05), activity_regularizer=R.L1(0.01),
                                            depthwise_constraint=C.MaxNorm(0.6, axis=[0, 1]),
                                            bias_constraint=C.NonNeg()), L.Flatten(), L.Dense(1)],
                 inputs=(4, 4, 2)), IMAGES, (1,)),
    ("depthwise_conv1d",
     dense_model(lambda: [L.DepthwiseConv1D(2, depthwise_regularizer=R.L1L2(l1=0.02, l2=0.05),
                                            depthwise_constraint=C.UnitNorm(axis=0)), L.Flatten(), L.Dense(1)],
                 inputs=(5, 2)), SEQUENCES, (1,)),
    ("separable_conv2d",
     dense_model(lambda: [L.SeparableConv2D(3, 2, depthwise_regularizer=R.L2(0.1), pointwise_regularizer=R.L1(0.05),
                                            bias_regularizer=R.L2(0.2), activity_regularizer=R.L2(0.01),
                                            depthwise_constraint=C.UnitNorm(axis=[0, 1]),
                                            pointwise_constraint=C.MaxNorm(0.5), bias_constraint=C.NonNeg()),
                          L.Flatten(), L.Dense(1)], inputs=(4, 4, 2)), IMAGES, (1,)),
    ("separable_conv1d",
     dense_model(lambda: [L.SeparableConv1D(3, 2, depthwise_regularizer=R.L1(0.04), pointwise_regularizer=R.L2(0.06),
                                            pointwise_constraint=C.NonNeg()), L.Flatten(), L.Dense(1)],
                 inputs=(5, 2)), SEQUENCES, (1,)),
    ("prelu",
     dense_model(lambda: [L.Dense(3), L.PReLU(alpha_regularizer=R.L2(0.3), alpha_constraint=C.NonNeg()),
                          L.Dense(2)]), X, (2,)),
    ("group_normalization",
     dense_model(lambda: [L.Dense(4), L.GroupNormalization(2, gamma_regularizer=R.L2(0.1), beta_regularizer=R.L1(0.2),
                                                           gamma_constraint=C.NonNeg(),
                                                           beta_constraint=C.MaxNorm(0.3)), L.Dense(2)]), X, (2,)),
    ("einsum_dense",
     dense_model(lambda: [L.EinsumDense("ab,bc->ac", output_shape=3, bias_axes="c", kernel_regularizer=R.L2(0.1),
                                        bias_regularizer=R.L1(0.1), activity_regularizer=R.L2(0.02),
                                        kernel_constraint=C.MaxNorm(0.7), bias_constraint=C.NonNeg()),
                          L.Dense(2)]), X, (2,)),
    ("multi_head_attention", attention_model, SEQUENCES, (1,)),
    ("multi_head_attention_activity", lambda: attention_model(activity=True), SEQUENCES, (1,)),
    ("group_query_attention", grouped_attention_model, SEQUENCES, (1,)),
    ("lstm",
     dense_model(lambda: [L.LSTM(3, kernel_regularizer=R.L2(0.1), recurrent_regularizer=R.L1(0.05),
                                 bias_regularizer=R.L2(0.2), activity_regularizer=R.L1(0.01),
                                 kernel_constraint=C.MaxNorm(0.8), recurrent_constraint=C.UnitNorm(axis=0),
                                 bias_constraint=C.NonNeg()), L.Dense(1)], inputs=(5, 2)), SEQUENCES, (1,)),
    ("gru_and_simple_rnn",
     dense_model(lambda: [L.GRU(3, return_sequences=True, kernel_regularizer=R.L1L2(l1=0.01, l2=0.03),
                                recurrent_constraint=C.MaxNorm(0.7)),
                          L.SimpleRNN(2, recurrent_regularizer=R.L2(0.2), bias_constraint=C.NonNeg(),
                                      activity_regularizer=R.L2(0.05)), L.Dense(1)], inputs=(5, 2)),
     SEQUENCES, (1,)),
    ("bidirectional_lstm",
     dense_model(lambda: [L.Bidirectional(L.LSTM(2, kernel_regularizer=R.L2(0.1), recurrent_constraint=C.NonNeg())),
                          L.Dense(1)], inputs=(5, 2)), SEQUENCES, (1,)),
    # Appended: the cases above keep their seeds (10 · position), so their values.
    ("multi_head_attention_rank4_activity", attention_model_rank4, IMAGES, (1,)),
]


def saved_model():
    inputs = keras.Input((3,), name="x")
    h = L.Dense(4, activation="tanh", kernel_regularizer=R.L1L2(l1=0.01, l2=0.02), bias_regularizer=R.L1(0.03),
                activity_regularizer=R.L2(0.04), kernel_constraint=C.MaxNorm(1.5), name="hidden")(inputs)
    h = L.LayerNormalization(gamma_regularizer=R.L2(0.05), beta_constraint=C.NonNeg(), name="norm")(h)
    out = L.Dense(2, kernel_regularizer=R.OrthogonalRegularizer(0.1, mode="columns"),
                  kernel_constraint=C.UnitNorm(axis=0), name="out")(h)
    return keras.Model(inputs, out, name="regularized")


def main():
    cases = []
    for i, (name, build, x, y_shape) in enumerate(CASES):
        _, case = run_case(name, build, x, y_shape, seed=10 * (i + 1))
        cases.append(case)
        print(name, case["evaluate_loss"], case["train_step_loss"])
    # The saved model: saved before training, so a loaded file trains as Keras did.
    keras.utils.clear_session()
    keras.utils.set_random_seed(7)
    model = saved_model()
    weights = [rng_values(700 + i, w.shape, 0.7) for i, w in enumerate(model.get_weights())]
    model.set_weights(weights)
    folder = os.path.join(DATA, "regularizers")
    os.makedirs(folder, exist_ok=True)
    model.save(os.path.join(folder, "regularized.keras"))
    model.save(os.path.join(folder, "regularized.h5"))
    _, saved = run_case("saved", saved_model, X, (2,), seed=0)
    # run_case drew other weights: run again from the saved ones.
    keras.utils.clear_session()
    model = keras.models.load_model(os.path.join(folder, "regularized.keras"))
    y = np.asarray(saved["y"]["values"], dtype="float32").reshape(4, 2)
    model.compile(optimizer=keras.optimizers.SGD(learning_rate=0.1), loss="mse")
    saved["weights"] = [tensor(w) for w in weights]
    saved["config"] = json.loads(model.to_json())
    saved["evaluate_loss"] = float(model.evaluate(X, y, batch_size=4, verbose=0))
    saved["train_step_loss"] = float(model.train_on_batch(X, y))
    saved["weights_after_step"] = [tensor(w) for w in model.get_weights()]
    cases.append(saved)
    path = os.path.join(DATA, "regularizers_golden.json")
    with open(path, "w") as f:
        json.dump({"generator": GENERATOR, "cases": cases}, f, indent=1)
        f.write("\n")
    print("wrote", os.path.normpath(path))


if __name__ == "__main__":
    main()
