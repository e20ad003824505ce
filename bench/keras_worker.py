#!/usr/bin/env python3
"""Keras-on-TensorFlow worker for the benchmark suite (bench/suite.cc).

Started once by strata_bench as `keras_worker.py <intra_op_threads> <inter_op_threads>`;
speaks the line protocol in bench/keras_runner.h on stdin/stdout. Builds the same models
as bench/strata_runner.cc from the workload JSON, on random numpy data of the same
distribution, and times each request itself (time.perf_counter) so the pipe round trip
is not counted.
"""
import json
import os
import sys
import time

# The protocol owns the real stdout; anything TensorFlow or Keras prints goes to stderr.
PROTOCOL = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)


def reply(line):
    PROTOCOL.write(line.replace("\n", " ") + "\n")


# resnet20's stage filters and mobilenet_small's stem, blocks (expansion, filters, stride)
# and head, as bench/workload.h has them.
RESNET20_FILTERS, RESNET20_BLOCKS_PER_STAGE = (16, 32, 64), 3
MOBILENET_SMALL_STEM, MOBILENET_SMALL_HEAD = 16, 128
MOBILENET_SMALL_BLOCKS = ((1, 16, 1), (6, 24, 2), (6, 24, 1), (6, 32, 2), (6, 32, 1), (6, 64, 2))


def conv_bn(L, x, filters, kernel, strides=1):
    """Conv2D without bias, then BatchNormalization (Keras's defaults: momentum 0.99, epsilon 1e-3)."""
    x = L.Conv2D(filters, kernel, strides=strides, padding="same", use_bias=False)(x)
    return L.BatchNormalization()(x)


def resnet20(keras, x, classes):
    L = keras.layers
    inputs = x
    x = L.Activation("relu")(conv_bn(L, x, RESNET20_FILTERS[0], 3))
    for stage, filters in enumerate(RESNET20_FILTERS):
        for block in range(RESNET20_BLOCKS_PER_STAGE):
            strides = 2 if stage > 0 and block == 0 else 1
            shortcut = x if strides == 1 else conv_bn(L, x, filters, 1, strides)
            y = conv_bn(L, L.Activation("relu")(conv_bn(L, x, filters, 3, strides)), filters, 3)
            x = L.Activation("relu")(L.Add()([y, shortcut]))
    return keras.Model(inputs, L.Dense(classes)(L.GlobalAveragePooling2D()(x)))


def mobilenet_small(keras, x, classes):
    L = keras.layers
    inputs = x
    x = L.Activation("relu6")(conv_bn(L, x, MOBILENET_SMALL_STEM, 3))
    channels = MOBILENET_SMALL_STEM
    for expansion, filters, strides in MOBILENET_SMALL_BLOCKS:
        y = x if expansion == 1 else L.Activation("relu6")(conv_bn(L, x, channels * expansion, 1))
        y = L.DepthwiseConv2D(3, strides=strides, padding="same", use_bias=False)(y)
        y = conv_bn(L, L.Activation("relu6")(L.BatchNormalization()(y)), filters, 1)
        x = L.Add()([x, y]) if strides == 1 and channels == filters else y
        channels = filters
    x = L.Activation("relu6")(conv_bn(L, x, MOBILENET_SMALL_HEAD, 1))
    return keras.Model(inputs, L.Dense(classes)(L.GlobalAveragePooling2D()(x)))


class Bench:
    """One workload's model and data (see bench/workload.h for the models)."""

    def __init__(self, w, keras, np):
        self.np = np
        self.batch_size = w["batch_size"]
        kind, units, classes = w["kind"], w["units"], w["classes"]
        L = keras.layers
        body = {
            "mlp": lambda: [L.Dense(units, activation="relu"), L.Dense(units, activation="relu"), L.Dense(classes)],
            "lstm": lambda: [L.LSTM(units), L.Dense(classes)],
            "bilstm": lambda: [L.Bidirectional(L.LSTM(units)), L.Dense(classes)],
            "cnn": lambda: [L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(2),
                            L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(2), L.Flatten(),
                            L.Dropout(0.5), L.Dense(classes)],
            "dense": lambda: [L.Dense(units)],
            "transformer": lambda: None,
            "resnet20": lambda: None,
            "mobilenet_small": lambda: None,
        }[kind]()
        shape = tuple(w["sample_shape"])
        if kind == "transformer":
            x = keras.Input(shape=shape)
            attended = L.MultiHeadAttention(num_heads=units, key_dim=shape[1] // units)(x, x)
            normed = L.LayerNormalization()(L.Add()([x, attended]))
            self.model = keras.Model(x, L.Dense(classes)(L.GlobalAveragePooling1D()(normed)))
        elif kind in ("resnet20", "mobilenet_small"):
            build = resnet20 if kind == "resnet20" else mobilenet_small
            self.model = build(keras, keras.Input(shape=shape), classes)
        else:
            self.model = keras.Sequential([keras.Input(shape=shape)] + body)
        if kind == "dense":
            self.model.compile(optimizer=keras.optimizers.SGD(learning_rate=w["learning_rate"]), loss="mse")
        else:
            self.model.compile(optimizer=keras.optimizers.Adam(learning_rate=w["learning_rate"]),
                               loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        rng = np.random.default_rng(0)
        n = w["samples"]
        if kind in ("cnn", "resnet20", "mobilenet_small"):  # pixels
            self.x = rng.uniform(0.0, 1.0, (n,) + shape).astype(np.float32)
        else:
            self.x = rng.standard_normal((n,) + shape, dtype=np.float32)
        if kind == "dense":
            self.y = rng.standard_normal((n, units), dtype=np.float32)
        else:
            self.y = rng.integers(0, classes, n).astype(np.int64)
        self.singles = [self.x[i:i + 1] for i in range(min(64, n))]
        self.one_path = None  # the faster batch-1 path, chosen on first use

    def train(self):
        h = self.model.fit(self.x, self.y, batch_size=self.batch_size, epochs=1, shuffle=False, verbose=0)
        return float(h.history["loss"][-1])

    def predict(self):
        return float(self.model.predict(self.x, batch_size=self.batch_size, verbose=0)[0, 0])

    def _call(self, x):
        return self.model(x, training=False).numpy()

    def _on_batch(self, x):
        return self.model.predict_on_batch(x)

    def _median_seconds(self, fn, calls):
        times = []
        out = None
        for i in range(calls):
            x = self.singles[i % len(self.singles)]
            t0 = time.perf_counter()
            out = fn(x)
            times.append(time.perf_counter() - t0)
        times.sort()
        return times[len(times) // 2], float(out[0, 0])

    def predict_one(self, calls):
        if self.one_path is None:
            # Keras documents both as the way to run a small batch; measure, keep the faster.
            paths = {"model(x, training=False)": self._call, "predict_on_batch": self._on_batch}
            for fn in paths.values():
                fn(self.singles[0])  # trace
            speed = {name: self._median_seconds(fn, 30)[0] for name, fn in paths.items()}
            self.one_path = min(speed, key=speed.get)
        fn = self._call if self.one_path.startswith("model") else self._on_batch
        seconds, logit = self._median_seconds(fn, calls)
        return seconds, logit, self.one_path


def main():
    threads, inter = int(sys.argv[1]), int(sys.argv[2])
    # TensorFlow's C++ logging prints two informational lines while it loads, whatever
    # TF_CPP_MIN_LOG_LEVEL says; they go nowhere. A failed import is reported below.
    stderr = os.dup(2)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    try:
        import numpy as np
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(inter)
        import keras
    except Exception as e:  # noqa: BLE001 - any import failure means "skip Keras"
        reply(f"error {type(e).__name__}: {e}")
        return 1
    finally:
        os.dup2(stderr, 2)
    if keras.backend.backend() != "tensorflow":
        reply(f"error Keras backend is {keras.backend.backend()}, not tensorflow")
        return 1
    reply(f"ready {tf.__version__} {keras.__version__}")
    bench = None
    for line in sys.stdin:
        cmd, _, arg = line.strip().partition(" ")
        try:
            t0 = time.perf_counter()
            if cmd == "quit":
                break
            if cmd == "setup":
                bench = None
                keras.backend.clear_session()
                bench = Bench(json.loads(arg.partition(" ")[2]), keras, np)
                reply(f"ok {time.perf_counter() - t0:.9f} 0")
            elif cmd == "train":
                loss = bench.train()
                reply(f"ok {time.perf_counter() - t0:.9f} {loss:.6g}")
            elif cmd == "predict":
                logit = bench.predict()
                reply(f"ok {time.perf_counter() - t0:.9f} {logit:.6g}")
            elif cmd == "predict_one":
                seconds, logit, path = bench.predict_one(int(arg))
                reply(f"ok {seconds:.9f} {logit:.6g} {path}")
            else:
                reply(f"error unknown request '{cmd}'")
        except Exception as e:  # noqa: BLE001 - report it to the driver, keep serving
            reply(f"error {type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
