"""Optimizer configs by class, checked against real Keras both ways
(tests/io/optimizer_config_test.cc).

Make (default): saves a Dense(2) model compiled with each optimizer and learning-rate
schedule case, unfitted, into tests/data/optimizer_configs/:
  k3_<case>.keras, k3_<case>.h5   by Keras 3 (model.save)
  tk_<case>.h5                    by tf.keras 2 (tf_keras), for the cases it has, and
                                  tk_legacy_*.h5 by its legacy (Keras 2) optimizers
and expected.json: per file, the optimizer class and config Strata must read, in Keras 3
terms (a tf.keras file's config without its tf.keras-only keys "jit_compile" and
"is_legacy_optimizer", and with Keras 3's null ema_overwrite_frequency, which means nothing
without use_ema; a schedule "name" tf.keras left null dropped, as Strata keeps
Keras 3's default; a Keras 2 "decay" as the InverseTimeDecay(lr, 1, decay) it means), and
for a schedule the learning rate Keras computes at a few steps.

Check (--check DIR): loads every DIR/*.keras and DIR/*.h5 that Strata wrote (the C++ test
OptimizerConfigs.ExportsForTheKerasCheck writes them when STRATA_OPTIMIZER_EXPORT_DIR
is set) with keras.models.load_model, and asserts the optimizer's class and get_config:
  - k3_<case>.*: each Keras 3 file above, loaded by Strata and saved again: the config
    must be the one in expected.json (a Keras -> Strata -> Keras round trip);
  - strata_*.*: optimizers built in C++: the class and keys in STRATA_CASES below.
Exit status 0 only when every file matches.

Run (tensorflow is the installed backend):
  KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_optimizer_config_goldens.py
  STRATA_OPTIMIZER_EXPORT_DIR=/tmp/strata_opt build/tests/io_tests \\
      --gtest_filter='OptimizerConfigs.ExportsForTheKerasCheck'
  KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python \\
      tests/reference/make_optimizer_config_goldens.py --check /tmp/strata_opt
"""
import glob
import json
import math
import os
import sys
import warnings

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.filterwarnings("ignore")
import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "optimizer_configs")
STEPS = [0, 1, 5, 9, 10, 11, 19, 20, 21, 50, 99, 150, 400]


def keras3_cases():
    O, S = keras.optimizers, keras.optimizers.schedules
    return {
        "sgd": lambda: O.SGD(learning_rate=0.05, momentum=0.9, nesterov=True, clipnorm=1.0),
        "adam": lambda: O.Adam(learning_rate=0.002, beta_1=0.8, beta_2=0.99, epsilon=1e-6, amsgrad=True,
                               global_clipnorm=2.0),
        "adamw": lambda: O.AdamW(weight_decay=0.1),
        "rmsprop": lambda: O.RMSprop(learning_rate=0.01, rho=0.8, momentum=0.5, epsilon=1e-6, centered=True,
                                     clipvalue=0.5),
        "adagrad": lambda: O.Adagrad(initial_accumulator_value=0.2, epsilon=1e-6, weight_decay=0.01),
        "adadelta": lambda: O.Adadelta(learning_rate=1.0, rho=0.9),
        "adamax": lambda: O.Adamax(beta_1=0.85),
        "nadam": lambda: O.Nadam(beta_2=0.98),
        "lion": lambda: O.Lion(learning_rate=1e-4, beta_1=0.95, beta_2=0.98),
        "adam_exponential": lambda: O.Adam(learning_rate=S.ExponentialDecay(0.1, 10, 0.5, staircase=True)),
        "sgd_piecewise": lambda: O.SGD(learning_rate=S.PiecewiseConstantDecay([10, 20], [0.1, 0.01, 0.001])),
        "rmsprop_polynomial": lambda: O.RMSprop(
            learning_rate=S.PolynomialDecay(0.1, 100, end_learning_rate=0.01, power=2.0, cycle=True)),
        "adagrad_inverse_time": lambda: O.Adagrad(learning_rate=S.InverseTimeDecay(0.1, 10, 0.5)),
        "adamw_cosine": lambda: O.AdamW(
            learning_rate=S.CosineDecay(0.01, 100, alpha=0.1, warmup_target=0.1, warmup_steps=10)),
        "nadam_restarts": lambda: O.Nadam(
            learning_rate=S.CosineDecayRestarts(0.1, 20, t_mul=2.0, m_mul=0.5, alpha=0.05)),
        "sgd_restarts_t1": lambda: O.SGD(learning_rate=S.CosineDecayRestarts(0.1, 20, t_mul=1.0)),
    }


# Built in C++ by the export test; what Keras must read from Strata's files.
STRATA_CASES = {
    "strata_adamw": ("AdamW", {"weight_decay": 0.1, "learning_rate": 0.001, "beta_1": 0.9, "amsgrad": False}),
    "strata_sgd_schedule": ("SGD", {"momentum": 0.9, "learning_rate": {
        "class_name": "ExponentialDecay",
        "config": {"initial_learning_rate": 0.1, "decay_steps": 10, "decay_rate": 0.5, "staircase": False}}}),
}


def tiny_model(k):
    model = k.Sequential([k.Input((3,)), k.layers.Dense(2)])
    return model


def lr_values(schedule):
    return [float(np.asarray(schedule(s))) for s in STEPS]


def keras3_files(cases):
    for name, make in keras3_cases().items():
        for ext in (".keras", ".h5"):
            model = tiny_model(keras)
            model.compile(optimizer=make(), loss="mse")
            model.save(os.path.join(OUT, f"k3_{name}{ext}"))
            opt = model.optimizer
            config = json.loads(json.dumps(keras.optimizers.serialize(opt)))
            entry = {"class_name": config["class_name"], "config": config["config"],
                     "writer": f"keras {keras.__version__}"}
            if isinstance(opt._learning_rate, keras.optimizers.schedules.LearningRateSchedule):
                entry["lr_steps"], entry["lr_values"] = STEPS, lr_values(opt._learning_rate)
            cases[f"k3_{name}{ext}"] = entry


def drop_null_names(config):
    if isinstance(config, dict):
        if config.get("name", "") is None:
            config = {k: v for k, v in config.items() if k != "name"}
        return {k: drop_null_names(v) for k, v in config.items()}
    return config


def tf_keras_files(cases):
    import tf_keras as tk
    O, S, L = tk.optimizers, tk.optimizers.schedules, tk.optimizers.legacy
    made = {
        "sgd": lambda: O.SGD(learning_rate=0.05, momentum=0.9, nesterov=True, clipnorm=1.0),
        "adam": lambda: O.Adam(learning_rate=0.002, beta_1=0.8, beta_2=0.99, epsilon=1e-6, amsgrad=True),
        "adamw": lambda: O.AdamW(weight_decay=0.1),
        "rmsprop": lambda: O.RMSprop(learning_rate=0.01, rho=0.8, momentum=0.5, centered=True),
        "adagrad": lambda: O.Adagrad(initial_accumulator_value=0.2),
        "adadelta": lambda: O.Adadelta(learning_rate=1.0, rho=0.9),
        "adamax": lambda: O.Adamax(beta_1=0.85),
        "nadam": lambda: O.Nadam(beta_2=0.98),
        "lion": lambda: O.Lion(learning_rate=1e-4, beta_1=0.95, beta_2=0.98),
        "adam_exponential": lambda: O.Adam(learning_rate=S.ExponentialDecay(0.1, 10, 0.5, staircase=True)),
        "sgd_restarts": lambda: O.SGD(learning_rate=S.CosineDecayRestarts(0.1, 20, t_mul=2.0, m_mul=0.5)),
        "legacy_sgd_decay": lambda: L.SGD(learning_rate=0.1, decay=0.01, momentum=0.9),
        "legacy_adam": lambda: L.Adam(learning_rate=0.01, beta_1=0.85),
        "legacy_rmsprop_decay": lambda: L.RMSprop(learning_rate=0.01, decay=0.001, rho=0.8),
    }
    for name, make in made.items():
        opt = make()
        config = {k: v for k, v in opt.get_config().items() if k not in ("jit_compile", "is_legacy_optimizer")}
        config = drop_null_names(json.loads(json.dumps(config, default=lambda o: tk.optimizers.schedules.serialize(o))))
        if not config.get("use_ema", False) and "ema_overwrite_frequency" in config:
            # Meaningless without use_ema (tf.keras's RMSprop says 100): Strata, which has
            # no EMA, writes Keras 3's default.
            config["ema_overwrite_frequency"] = None
        cls = type(opt).__name__
        entry = {"class_name": cls, "config": config, "writer": f"tf_keras {tk.__version__}"}
        lr = config["learning_rate"]
        if isinstance(lr, dict):
            schedule = tk.optimizers.schedules.deserialize(lr)
            entry["lr_steps"] = STEPS
            entry["lr_values"] = [float(schedule(s)) for s in STEPS]
        decay = config.pop("decay", 0.0)
        if decay:  # Keras 2: lr / (1 + decay * iterations)
            config["learning_rate"] = {"module": "keras.optimizers.schedules", "class_name": "InverseTimeDecay",
                                       "config": {"initial_learning_rate": lr, "decay_steps": 1,
                                                  "decay_rate": decay, "staircase": False,
                                                  "name": "InverseTimeDecay"},
                                       "registered_name": None}
            entry["lr_steps"] = STEPS
            entry["lr_values"] = [float(np.float32(lr) / (1 + np.float32(decay) * s)) for s in STEPS]
        model = tk.Sequential([tk.Input((3,)), tk.layers.Dense(2)])
        model.compile(optimizer=opt, loss="mse")
        model.save(os.path.join(OUT, f"tk_{name}.h5"))
        cases[f"tk_{name}.h5"] = entry


def make():
    os.makedirs(OUT, exist_ok=True)
    for old in glob.glob(os.path.join(OUT, "*")):
        os.remove(old)
    cases = {}
    keras3_files(cases)
    tf_keras_files(cases)
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump({"keras": keras.__version__, "files": cases}, f, indent=1)
    print(f"wrote {len(cases)} files and expected.json to {OUT}")


def matches(actual, expected, where):
    """Every key of `expected` in `actual`, numbers to float32 precision."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} is not an object"
        if "class_name" in expected and "class_name" in actual:
            assert actual["class_name"] == expected["class_name"], f"{where}: class {actual['class_name']}"
        for k, v in expected.items():
            if k in ("module", "registered_name"):
                continue
            assert k in actual, f"{where}: no key {k!r} in {sorted(actual)}"
            matches(actual[k], v, f"{where}.{k}")
    elif isinstance(expected, bool) or expected is None or isinstance(expected, str):
        assert actual == expected, f"{where}: {actual!r}, expected {expected!r}"
    elif isinstance(expected, (int, float)):
        assert isinstance(actual, (int, float)) and math.isclose(actual, expected, rel_tol=1e-6), \
            f"{where}: {actual!r}, expected {expected!r}"
    else:
        assert actual == expected, f"{where}: {actual!r}, expected {expected!r}"


def check(directory):
    with open(os.path.join(OUT, "expected.json")) as f:
        expected = json.load(f)["files"]
    failures = checked = 0
    for path in sorted(glob.glob(os.path.join(directory, "*.keras")) + glob.glob(os.path.join(directory, "*.h5"))):
        name = os.path.basename(path)
        stem = name.rsplit(".", 1)[0]
        try:
            if stem in STRATA_CASES:
                cls, config = STRATA_CASES[stem]
            else:
                source = expected.get(stem + ".keras")
                assert source is not None, "no case in expected.json"
                cls, config = source["class_name"], source["config"]
            opt = keras.models.load_model(path).optimizer
            actual = json.loads(json.dumps(keras.optimizers.serialize(opt)))
            assert type(opt).__name__ == cls, f"class {type(opt).__name__}, expected {cls}"
            matches(actual["config"], config, name)
            checked += 1
            print(f"OK    {name}: Keras {keras.__version__} reads {cls} with its config")
        except Exception as e:  # noqa: BLE001
            failures += 1
            print(f"FAIL  {name}: {type(e).__name__}: {str(e)[:300]}")
    print(f"{checked} files match, {failures} fail")
    return 1 if failures or not checked else 0


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        sys.exit(check(sys.argv[2]))
    make()
