#!/usr/bin/env python3
"""Writes the golden files for Strata's losses, metrics and optimizers from real Keras 3.

The C++ tests (tests/losses, tests/optimizers) read the JSON this writes; they never run
Python. Regenerate with exactly:

    python3 -m venv /tmp/venv_training && /tmp/venv_training/bin/pip install keras jax jaxlib tensorboard
    KERAS_BACKEND=jax /tmp/venv_training/bin/python tests/reference/make_training_goldens.py

Versions used for the committed files: keras 3.15.1, jax 0.10.2, jaxlib 0.10.2,
numpy 2.4.6, Python 3.11.7 (each file also records them under "generator").

The JAX backend is used on purpose: its crossentropies are the plain clipped formulas
of keras-spec §2. (The TensorFlow backend would silently use the pre-activation
logits when y_pred comes straight out of a softmax/sigmoid op; these inputs are plain
arrays, so it would agree here too, but JAX has no such special case at all.)

Outputs: tests/data/losses_golden.json, tests/data/metrics_golden.json,
tests/data/optimizers_golden.json (with learning-rate schedules) and
tests/data/callbacks_golden.json (hook order, EarlyStopping, ReduceLROnPlateau).
"""
import json
import os
import platform
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")

import jax  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras.src.trainers import compile_utils  # noqa: E402

if keras.backend.backend() != "jax":
    sys.exit("run with KERAS_BACKEND=jax (got %s)" % keras.backend.backend())

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
GENERATOR = {
    "script": "tests/reference/make_training_goldens.py",
    "keras": keras.__version__,
    "jax": jax.__version__,
    "numpy": np.__version__,
    "python": platform.python_version(),
    "backend": keras.backend.backend(),
}


def tensor(a, dtype="float32"):
    a = np.asarray(a, dtype=dtype)
    return {"shape": list(a.shape), "dtype": dtype, "values": a.reshape(-1).tolist()}


def result(x):
    a = np.asarray(keras.ops.convert_to_numpy(x), dtype="float64")
    return {"shape": list(a.shape), "values": a.reshape(-1).tolist()}


def write(name, payload):
    payload = {"generator": GENERATOR, **payload}
    path = os.path.join(DATA, name)
    with open(path, "w") as f:
        json.dump(payload, f, indent=1)
        f.write("\n")
    print("wrote", os.path.normpath(path))


# --- losses -------------------------------------------------------------------------------

REG_TRUE = [[0.5, -1.0, 2.0], [0.0, 0.3, -0.7], [1.5, 1.5, 1.5], [-2.0, 0.25, 4.0]]
REG_PRED = [[0.25, -0.5, 2.5], [0.1, 0.3, -1.7], [1.0, 2.0, 1.5], [-1.0, 0.0, 3.0]]
# Binary: hard and soft labels; probabilities include the saturated 0 and 1.
BIN_TRUE = [[1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.2, 0.7, 1.0]]
BIN_PROB = [[0.9, 0.1, 1.0], [0.0, 0.3, 0.6], [1.0, 0.0, 0.5], [0.25, 0.8, 0.999]]
BIN_LOGIT = [[2.0, -1.5, 20.0], [-20.0, 0.3, 0.6], [35.0, -35.0, 0.0], [-1.1, 1.4, 7.0]]
# Categorical: one-hot rows and a soft row; unnormalized rows exercise renormalization.
CAT_TRUE = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.2, 0.3, 0.5]]
CAT_PROB = [[0.7, 0.2, 0.1], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.5, 1.0, 0.5]]
CAT_LOGIT = [[2.0, 1.0, 0.1], [-30.0, 30.0, 0.0], [0.5, -0.5, 3.0], [1.0, 2.0, -1.0]]
SPARSE_LABELS = [0, 1, 0, 2]
WEIGHTS = [1.0, 0.5, 2.0, 0.0]


def loss_cases():
    cases = []
    reductions = ["sum_over_batch_size", "sum", "none", "mean_with_sample_weight"]

    def add(loss_name, cls, kwargs, y_true, y_pred, true_dtype="float32"):
        for reduction in reductions:
            for weighted in (False, True):
                loss = cls(reduction=reduction, **kwargs)
                sw = np.asarray(WEIGHTS, "float32") if weighted else None
                value = loss(np.asarray(y_true, true_dtype), np.asarray(y_pred, "float32"), sample_weight=sw)
                cases.append({
                    "loss": loss_name,
                    "config": {**kwargs, "reduction": reduction},
                    "y_true": tensor(y_true, true_dtype),
                    "y_pred": tensor(y_pred),
                    "sample_weight": tensor(WEIGHTS) if weighted else None,
                    "expected": result(value),
                })

    L = keras.losses
    add("mean_squared_error", L.MeanSquaredError, {}, REG_TRUE, REG_PRED)
    add("mean_absolute_error", L.MeanAbsoluteError, {}, REG_TRUE, REG_PRED)
    for from_logits in (False, True):
        pred = BIN_LOGIT if from_logits else BIN_PROB
        add("binary_crossentropy", L.BinaryCrossentropy, {"from_logits": from_logits}, BIN_TRUE, pred)
        add("binary_crossentropy", L.BinaryCrossentropy, {"from_logits": from_logits, "label_smoothing": 0.1},
            BIN_TRUE, pred)
        # Labels (B,) against a single sigmoid output (B, 1): Keras expands the labels.
        add("binary_crossentropy", L.BinaryCrossentropy, {"from_logits": from_logits},
            [1.0, 0.0, 1.0, 0.0], [[row[0]] for row in pred])
        pred = CAT_LOGIT if from_logits else CAT_PROB
        add("categorical_crossentropy", L.CategoricalCrossentropy, {"from_logits": from_logits}, CAT_TRUE, pred)
        add("categorical_crossentropy", L.CategoricalCrossentropy,
            {"from_logits": from_logits, "label_smoothing": 0.1}, CAT_TRUE, pred)
        add("sparse_categorical_crossentropy", L.SparseCategoricalCrossentropy, {"from_logits": from_logits},
            SPARSE_LABELS, pred, "int32")
        add("sparse_categorical_crossentropy", L.SparseCategoricalCrossentropy, {"from_logits": from_logits},
            [[v] for v in SPARSE_LABELS], pred, "float32")
    # The rest of Keras 3's losses (Strata's losses/more_losses.h).
    add("huber", L.Huber, {}, REG_TRUE, REG_PRED)
    add("huber", L.Huber, {"delta": 0.5}, REG_TRUE, REG_PRED)
    add("log_cosh", L.LogCosh, {}, REG_TRUE, REG_PRED)
    add("poisson", L.Poisson, {}, [[abs(v) for v in row] for row in REG_TRUE], BIN_PROB)
    add("kl_divergence", L.KLDivergence, {}, CAT_TRUE, CAT_PROB)
    hard = [[1.0, 0.0, 1.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]
    add("hinge", L.Hinge, {}, hard, BIN_LOGIT)  # {0, 1} labels become {-1, 1}
    add("hinge", L.Hinge, {}, [[2 * v - 1 for v in r] for r in hard], [[v / 10 for v in r] for r in BIN_LOGIT])
    add("squared_hinge", L.SquaredHinge, {}, hard, [[v / 10 for v in r] for r in BIN_LOGIT])
    add("squared_hinge", L.SquaredHinge, {}, BIN_TRUE, REG_PRED)  # soft labels: unchanged
    add("categorical_hinge", L.CategoricalHinge, {}, CAT_TRUE, CAT_LOGIT)
    add("cosine_similarity", L.CosineSimilarity, {}, REG_TRUE, REG_PRED)
    for from_logits in (False, True):
        pred = BIN_LOGIT if from_logits else BIN_PROB
        add("binary_focal_crossentropy", L.BinaryFocalCrossentropy, {"from_logits": from_logits}, BIN_TRUE, pred)
        add("binary_focal_crossentropy", L.BinaryFocalCrossentropy,
            {"from_logits": from_logits, "apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5,
             "label_smoothing": 0.1}, BIN_TRUE, pred)
    return cases


# --- metrics ------------------------------------------------------------------------------

def metric_cases():
    rng = np.random.default_rng(1234)
    batches = {
        # y_pred (B, 1): binary accuracy (threshold 0.5; 0.5 itself is not > 0.5).
        "binary": [
            ([[1.0], [0.0], [1.0], [0.0], [1.0]], [[0.8], [0.4], [0.5], [0.6], [0.51]]),
            ([[0.0], [1.0], [1.0]], [[0.1], [0.9], [0.2]]),
        ],
        # integer labels (B, 1) against 3 classes: sparse categorical accuracy.
        "sparse": [
            ([[0], [2], [1], [1]], [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.5, 0.4, 0.1], [0.2, 0.5, 0.3]]),
            ([[2], [0], [0]], [[0.2, 0.2, 0.6], [0.3, 0.6, 0.1], [0.9, 0.05, 0.05]]),
        ],
        # integer labels (B,): sparse categorical accuracy by rank.
        "sparse_rank1": [
            ([0, 2, 1, 1], [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.5, 0.4, 0.1], [0.2, 0.5, 0.3]]),
            ([2, 0, 0], [[0.2, 0.2, 0.6], [0.3, 0.6, 0.1], [0.9, 0.05, 0.05]]),
        ],
        # one-hot labels: categorical accuracy.
        "categorical": [
            ([[1, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 0]],
             [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.5, 0.4, 0.1], [0.2, 0.5, 0.3]]),
            ([[0, 0, 1], [1, 0, 0], [1, 0, 0]], [[0.2, 0.2, 0.6], [0.3, 0.6, 0.1], [0.9, 0.05, 0.05]]),
        ],
        "regression": [
            (rng.normal(size=(4, 3)).round(3).tolist(), rng.normal(size=(4, 3)).round(3).tolist()),
            (rng.normal(size=(3, 3)).round(3).tolist(), rng.normal(size=(3, 3)).round(3).tolist()),
        ],
    }
    weights = [[1.0, 0.5, 2.0, 0.0, 1.5], [0.25, 1.0, 3.0]]
    plan = [
        ("accuracy", "binary"), ("acc", "sparse"), ("accuracy", "sparse_rank1"), ("accuracy", "categorical"),
        ("mse", "regression"), ("mean_squared_error", "regression"), ("mae", "regression"),
        ("mean_absolute_error", "regression"), ("binary_crossentropy", "binary"),
        ("categorical_crossentropy", "categorical"), ("sparse_categorical_crossentropy", "sparse"),
    ]
    cases = []
    for identifier, data in plan:
        for weighted in (False, True):
            y_true0, y_pred0 = batches[data][0]
            metric = compile_utils.get_metric(identifier, np.asarray(y_true0, "float32"),
                                              np.asarray(y_pred0, "float32"))
            steps = []
            for b, (y_true, y_pred) in enumerate(batches[data]):
                n = len(y_true)
                sw = np.asarray(weights[b][:n], "float32") if weighted else None
                metric.update_state(np.asarray(y_true, "float32"), np.asarray(y_pred, "float32"), sample_weight=sw)
                steps.append({
                    "y_true": tensor(y_true),
                    "y_pred": tensor(y_pred),
                    "sample_weight": tensor(weights[b][:n]) if weighted else None,
                    "result": float(keras.ops.convert_to_numpy(metric.result())),
                })
            metric.reset_state()
            cases.append({
                "identifier": identifier,
                "resolved_class": type(metric).__name__,
                "name": metric.name,
                "batches": steps,
                "result_after_reset": float(keras.ops.convert_to_numpy(metric.result())),
            })
    return cases


def metric_class_cases():
    """Metric classes with their arguments, streamed over two batches (weighted or not)."""
    rng = np.random.default_rng(99)
    binary = [
        ([[1.0], [0.0], [1.0], [0.0], [1.0], [1.0]], [[0.8], [0.4], [0.3], [0.6], [0.51], [0.95]]),
        ([[0.0], [1.0], [1.0], [0.0]], [[0.1], [0.9], [0.2], [0.05]]),
    ]
    multilabel = [
        ([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1]],
         [[0.9, 0.2, 0.6], [0.3, 0.7, 0.4], [0.4, 0.8, 0.1], [0.2, 0.6, 0.7]]),
        ([[0, 1, 1], [1, 0, 0], [0, 0, 0]], [[0.1, 0.55, 0.45], [0.8, 0.3, 0.2], [0.6, 0.1, 0.3]]),
    ]
    categorical = [
        ([[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]],
         [[0.5, 0.2, 0.2, 0.1], [0.1, 0.3, 0.25, 0.35], [0.35, 0.3, 0.2, 0.15], [0.4, 0.3, 0.2, 0.1]]),
        ([[0, 0, 1, 0], [1, 0, 0, 0], [0, 0, 0, 1]],
         [[0.2, 0.2, 0.5, 0.1], [0.3, 0.4, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4]]),
    ]
    sparse = [([[int(np.argmax(r))] for r in t], p) for t, p in categorical]
    regression = [
        (rng.normal(size=(5, 3)).round(3).tolist(), rng.normal(size=(5, 3)).round(3).tolist()),
        (rng.normal(size=(4, 3)).round(3).tolist(), rng.normal(size=(4, 3)).round(3).tolist()),
    ]
    weights = [[1.0, 0.5, 2.0, 0.0, 1.5, 1.0], [0.25, 1.0, 3.0, 0.5]]
    M = keras.metrics
    plan = [
        ("Precision", M.Precision, {}, binary),
        ("Precision", M.Precision, {"thresholds": 0.7}, binary),
        ("Recall", M.Recall, {}, binary),
        ("Recall", M.Recall, {"thresholds": 0.3}, binary),
        ("Precision", M.Precision, {}, multilabel),
        ("AUC", M.AUC, {}, binary),
        ("AUC", M.AUC, {"curve": "PR"}, binary),
        ("AUC", M.AUC, {"num_thresholds": 50}, multilabel),
        ("F1Score", M.F1Score, {"average": "micro", "threshold": 0.5}, multilabel),
        ("F1Score", M.F1Score, {"average": "macro", "threshold": 0.5}, multilabel),
        ("F1Score", M.F1Score, {"average": "weighted", "threshold": 0.5}, multilabel),
        ("TopKCategoricalAccuracy", M.TopKCategoricalAccuracy, {"k": 2}, categorical),
        ("SparseTopKCategoricalAccuracy", M.SparseTopKCategoricalAccuracy, {"k": 2}, sparse),
        ("RootMeanSquaredError", M.RootMeanSquaredError, {}, regression),
        ("R2Score", M.R2Score, {}, regression),
        ("R2Score", M.R2Score, {"class_aggregation": "variance_weighted_average"}, regression),
    ]
    cases = []
    for cls_name, cls, kwargs, data in plan:
        for weighted in (False, True):
            metric = cls(**kwargs)
            steps = []
            for b, (y_true, y_pred) in enumerate(data):
                n = len(y_true)
                sw = np.asarray(weights[b][:n], "float32") if weighted else None
                metric.update_state(np.asarray(y_true, "float32"), np.asarray(y_pred, "float32"), sample_weight=sw)
                steps.append({
                    "y_true": tensor(y_true),
                    "y_pred": tensor(y_pred),
                    "sample_weight": tensor(weights[b][:n]) if weighted else None,
                    "result": float(keras.ops.convert_to_numpy(metric.result())),
                })
            cases.append({"class": cls_name, "config": kwargs, "name": metric.name, "batches": steps})
    return cases


# --- optimizers ---------------------------------------------------------------------------

# Two variables, so that slot order (Keras interleaves Adam's momentum/velocity per
# variable but groups RMSprop's slots by kind) and global_clipnorm are exercised.
VARIABLES = [
    ("kernel", [[0.5, -1.0], [2.0, 0.1]], [
        [[0.1, -0.2], [0.3, 0.0]],
        [[0.5, 0.4], [-0.3, 0.2]],
        [[-0.2, 0.1], [0.05, -1.0]],
        [[1.5, -0.7], [0.0, 0.3]],
        [[0.01, 0.02], [-0.03, 0.6]],
    ]),
    ("bias", [0.25, -0.5], [
        [0.2, -0.1],
        [-0.4, 0.3],
        [0.0, 0.9],
        [0.6, -0.6],
        [-0.05, 0.15],
    ]),
]


def optimizer_cases():
    O = keras.optimizers
    configs = [
        ("sgd", O.SGD, {}),
        ("sgd", O.SGD, {"learning_rate": 0.1, "momentum": 0.9}),
        ("sgd", O.SGD, {"learning_rate": 0.1, "momentum": 0.9, "nesterov": True}),
        ("sgd", O.SGD, {"learning_rate": 0.1, "clipvalue": 0.25}),
        ("adam", O.Adam, {}),
        ("adam", O.Adam, {"learning_rate": 0.01}),
        ("adam", O.Adam, {"learning_rate": 0.01, "amsgrad": True}),
        ("adam", O.Adam, {"learning_rate": 0.05, "beta_1": 0.8, "beta_2": 0.95, "epsilon": 1e-3}),
        ("adam", O.Adam, {"learning_rate": 0.1, "weight_decay": 0.1}),
        ("adam", O.Adam, {"learning_rate": 0.01, "clipnorm": 0.5}),
        ("rmsprop", O.RMSprop, {}),
        ("rmsprop", O.RMSprop, {"learning_rate": 0.01, "momentum": 0.9}),
        ("rmsprop", O.RMSprop, {"learning_rate": 0.01, "centered": True}),
        ("rmsprop", O.RMSprop, {"learning_rate": 0.01, "rho": 0.8, "momentum": 0.5, "centered": True}),
        ("rmsprop", O.RMSprop, {"learning_rate": 0.01, "global_clipnorm": 0.5}),
        ("adagrad", O.Adagrad, {}),
        ("adagrad", O.Adagrad, {"learning_rate": 0.1, "initial_accumulator_value": 0.2, "epsilon": 1e-4}),
        ("adagrad", O.Adagrad, {"learning_rate": 0.1, "weight_decay": 0.05, "global_clipnorm": 1.0}),
        ("adamw", O.AdamW, {}),
        ("adamw", O.AdamW, {"learning_rate": 0.05, "weight_decay": 0.1, "amsgrad": True}),
        ("nadam", O.Nadam, {}),
        ("nadam", O.Nadam, {"learning_rate": 0.05, "beta_1": 0.8, "global_clipnorm": 0.5}),
        ("adamax", O.Adamax, {}),
        ("adamax", O.Adamax, {"learning_rate": 0.05, "beta_2": 0.9, "clipvalue": 0.3}),
        ("adadelta", O.Adadelta, {}),
        ("adadelta", O.Adadelta, {"learning_rate": 1.0, "rho": 0.9, "epsilon": 1e-5}),
        ("lion", O.Lion, {}),
        ("lion", O.Lion, {"learning_rate": 0.01, "beta_1": 0.8, "weight_decay": 0.1, "clipnorm": 0.5}),
    ]
    cases = []
    for kind, cls, kwargs in configs:
        opt = cls(name=kind, **kwargs)
        with keras.name_scope("dense"):
            variables = [keras.Variable(np.asarray(init, "float32"), name=name) for name, init, _ in VARIABLES]
        steps = [[] for _ in VARIABLES]
        for s in range(5):
            grads = [np.asarray(g[s], "float32") for _, _, g in VARIABLES]
            opt.apply_gradients(list(zip(grads, variables)))
            for i, var in enumerate(variables):
                steps[i].append(result(var))
        cases.append({
            "optimizer": kind,
            "config": kwargs,
            "variables": [
                {"path": var.path, "initial": tensor(init), "gradients": [tensor(g) for g in grads],
                 "steps": steps[i]}
                for i, (var, (_, init, grads)) in enumerate(zip(variables, VARIABLES))
            ],
            "iterations": int(keras.ops.convert_to_numpy(opt.iterations)),
            "optimizer_variables": [v.path for v in opt.variables],
        })
    return cases


# --- schedules and callbacks --------------------------------------------------------------

def schedule_cases():
    S = keras.optimizers.schedules
    steps = [0, 1, 5, 9, 10, 11, 25, 50, 99, 100, 150]
    plan = [
        ("ExponentialDecay", S.ExponentialDecay,
         {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5}),
        ("ExponentialDecay", S.ExponentialDecay,
         {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5, "staircase": True}),
        ("PiecewiseConstantDecay", S.PiecewiseConstantDecay, {"boundaries": [5, 10], "values": [1.0, 0.5, 0.1]}),
        ("CosineDecay", S.CosineDecay, {"initial_learning_rate": 0.1, "decay_steps": 100}),
        ("CosineDecay", S.CosineDecay,
         {"initial_learning_rate": 0.0, "decay_steps": 100, "alpha": 0.1, "warmup_target": 1.0, "warmup_steps": 10}),
    ]
    return [{"class": name, "config": kwargs, "steps": steps,
             "values": [float(keras.ops.convert_to_numpy(cls(**kwargs)(s))) for s in steps]}
            for name, cls, kwargs in plan]


class Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.events = []

    def on_train_begin(self, logs=None): self.events.append("train_begin")
    def on_train_end(self, logs=None): self.events.append("train_end")
    def on_epoch_begin(self, epoch, logs=None): self.events.append(f"epoch_begin {epoch}")
    def on_epoch_end(self, epoch, logs=None):
        self.events.append(f"epoch_end {epoch}" + (" val" if "val_loss" in logs else ""))
    def on_train_batch_begin(self, batch, logs=None): self.events.append(f"batch_begin {batch}")
    def on_train_batch_end(self, batch, logs=None):
        self.events.append(f"batch_end {batch}" + (" loss" if "loss" in logs else ""))
    def on_test_begin(self, logs=None): self.events.append("test_begin")
    def on_test_end(self, logs=None): self.events.append("test_end")
    def on_test_batch_begin(self, batch, logs=None): self.events.append(f"test_batch_begin {batch}")
    def on_test_batch_end(self, batch, logs=None): self.events.append(f"test_batch_end {batch}")


def scripted(key, values):
    def on_epoch_end(epoch, logs):
        logs[key] = values[epoch]
    return keras.callbacks.LambdaCallback(on_epoch_end=on_epoch_end)


def callback_cases():
    keras.utils.set_random_seed(0)
    x = np.random.default_rng(0).normal(size=(20, 4)).astype("float32")
    y = (np.arange(20) % 3).astype("int32")

    def model(lr=0.1):
        m = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="softmax")])
        m.compile(optimizer=keras.optimizers.SGD(learning_rate=lr), loss="sparse_categorical_crossentropy",
                  metrics=["accuracy"])
        return m

    rec = Recorder()
    model().fit(x, y, batch_size=8, epochs=2, verbose=0, validation_split=0.2, callbacks=[rec])
    cases = {"event_order": {"fit": {"samples": 20, "batch_size": 8, "epochs": 2, "validation_split": 0.2},
                             "events": rec.events}}
    early = []
    for kwargs, scores in [
        # Keras 3 refuses mode="auto" for a key it has no metric for: modes are explicit.
        ({"monitor": "score", "patience": 2, "mode": "min"}, [3, 1, 2, 2, 2, 2, 2, 2, 2, 2]),
        ({"monitor": "score", "min_delta": 0.01, "patience": 1, "mode": "max"},
         [0.5, 0.6, 0.605, 0.7, 0.71, 0.72, 0.73, 0.74, 0.75, 0.76]),
        ({"monitor": "score", "patience": 3, "mode": "min", "baseline": 0.5}, [5] * 10),
        ({"monitor": "score", "mode": "min", "start_from_epoch": 4}, [1] * 10),
        ({"monitor": "score", "patience": 1, "mode": "min"}, [5, 4, 4.5, 3, 3, 3, 3, 3, 3, 3]),
    ]:
        h = model().fit(x, y, batch_size=20, epochs=10, verbose=0,
                        callbacks=[scripted("score", scores), keras.callbacks.EarlyStopping(**kwargs)])
        early.append({"config": kwargs, "scores": scores, "epochs_run": len(h.epoch)})
    cases["early_stopping"] = early
    plateau = []
    for kwargs, scores in [
        ({"monitor": "score", "factor": 0.5, "patience": 2, "mode": "min", "cooldown": 1, "min_lr": 0.02}, [1] * 7),
        ({"monitor": "score", "factor": 0.2, "patience": 1, "mode": "max", "min_delta": 0.05},
         [0.1, 0.2, 0.22, 0.3, 0.31, 0.32, 0.5]),
    ]:
        h = model().fit(x, y, batch_size=20, epochs=len(scores), verbose=0,
                        callbacks=[scripted("score", scores), keras.callbacks.ReduceLROnPlateau(**kwargs)])
        plateau.append({"config": kwargs, "scores": scores,
                        "learning_rate": [float(v) for v in h.history["learning_rate"]]})
    cases["reduce_lr_on_plateau"] = plateau
    return cases


if __name__ == "__main__":
    write("losses_golden.json", {"epsilon": keras.backend.epsilon(), "cases": loss_cases()})
    write("metrics_golden.json", {"cases": metric_cases(), "class_cases": metric_class_cases()})
    write("optimizers_golden.json", {"cases": optimizer_cases(), "schedules": schedule_cases()})
    write("callbacks_golden.json", callback_cases())
