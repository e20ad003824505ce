#!/usr/bin/env python3
"""An engine of the real-model benchmark (bench/models.cc): Keras on TensorFlow or ONNX
Runtime, one per process.

Started by strata_bench_models as `model_worker.py <keras|onnxruntime> <threads>`; speaks
the line protocol of bench/line_worker.h on stdin/stdout (Strata's worker, the same
binary with --worker, speaks it too):
  ready <versions>
  load <model path> <x1.npy path>    -> ok <seconds> <peak RSS MB>
      seconds from the start of loading to the end of the first batch-1 prediction
  predict <x.npy path> <calls> <out.npy path>
                                     -> ok <median seconds> <min> <max> [<how>]
      untimed warm-up calls for at least WARM_UP_SECONDS (at least one), then `calls`
      timed predictions of that input; the last
      output saved to out.npy; Keras says which call it timed
  quit
Any request may be answered `error <message>`. Each prediction is timed here
(time.perf_counter), so the pipe round trip is not counted.

Keras (KERAS_BACKEND=tensorflow, CUDA_VISIBLE_DEVICES="", as the driver sets them): the
file is loaded with keras.saving.load_model; TensorFlow's intra-op pool gets <threads>
and its inter-op pool 2, as bench/keras_worker.py sets them. Keras documents both
model(x, training=False) and model.predict_on_batch(x) for a batch that fits at once;
the first predict of each input shape times both and keeps the faster (the reply says
which). The first prediction, the one `load` times, is predict_on_batch.

ONNX Runtime: an InferenceSession on the CPU execution provider with intra_op_num_threads
= <threads> and inter_op_num_threads = 1 (its default sequential executor), the graph
optimizations at their default (all).
"""
import os
import resource
import sys
import time

# The protocol owns the real stdout; anything an engine prints goes to stderr.
PROTOCOL = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)

KERAS_INTER_OP_THREADS = 2  # as the suite's --keras_inter_op_threads default


def reply(line):
    PROTOCOL.write(line.replace("\n", " ") + "\n")


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux counts kilobytes


# The warm-up before a predict request's timed calls, in every engine's worker (Strata's:
# bench/strata_model_worker.cc): calls until this long has passed. Engines take turns, so
# each turn starts on cores that idled through the others' turns, and a single call left
# short models' first timed calls slow (the LSTM at batch 32, 1 ms a call: Strata's 1.0
# alone, 1.9-2.0 in turns with ONNX Runtime; ONNX Runtime's 0.9 and 1.7 the same way).
WARM_UP_SECONDS = 0.2


def warm_up(fn, x):
    start = time.perf_counter()
    fn(x)
    while time.perf_counter() - start < WARM_UP_SECONDS:
        fn(x)


def timed_calls(fn, x, calls):
    """Seconds of each of `calls` calls of fn(x), and the last output."""
    times, out = [], None
    for _ in range(calls):
        t0 = time.perf_counter()
        out = fn(x)
        times.append(time.perf_counter() - t0)
    return times, out


class KerasEngine:
    def __init__(self, threads):
        import numpy as np
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(KERAS_INTER_OP_THREADS)
        import keras

        if keras.backend.backend() != "tensorflow":
            raise RuntimeError(f"Keras backend is {keras.backend.backend()}, not tensorflow")
        self.keras, self.np = keras, np
        self.versions = f"TensorFlow {tf.__version__}, Keras {keras.__version__}"
        self.model = None
        self.chosen = {}  # input shape -> (name, fn): the faster call for that shape

    def load(self, path, x):
        self.chosen = {}
        self.model = None
        self.keras.backend.clear_session()
        self.model = self.keras.saving.load_model(path, compile=False)
        return self.model.predict_on_batch(x)

    def _call(self, x):
        return self.model(x, training=False).numpy()

    def _on_batch(self, x):
        return self.model.predict_on_batch(x)

    def prepare(self, x, calls):
        """The faster of the two calls on this shape, chosen once, and its name."""
        if x.shape not in self.chosen:
            paths = {"model(x,training=False)": self._call, "predict_on_batch": self._on_batch}
            trial = max(2, min(calls, 10))
            speed = {}
            for name, fn in paths.items():
                fn(x)  # trace
                speed[name] = sorted(timed_calls(fn, x, trial)[0])[trial // 2]
            best = min(speed, key=speed.get)
            self.chosen[x.shape] = (best, paths[best])
        return self.chosen[x.shape]


class OrtEngine:
    def __init__(self, threads):
        import numpy as np
        import onnxruntime as ort

        self.ort, self.np, self.threads = ort, np, threads
        self.versions = f"ONNX Runtime {ort.__version__}"
        self.session = None

    def load(self, path, x):
        options = self.ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.log_severity_level = 3  # errors only: not each unused initializer it drops
        self.session = self.ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        self.input_name = self.session.get_inputs()[0].name
        return self._run(x)

    def _run(self, x):
        return self.session.run(None, {self.input_name: x})[0]

    def prepare(self, x, calls):
        return "session.run", self._run


def main():
    engine_name, threads = sys.argv[1], int(sys.argv[2])
    # TensorFlow's C++ logging prints lines while it loads whatever TF_CPP_MIN_LOG_LEVEL
    # says; they go nowhere. A failed import is the reply below.
    stderr = os.dup(2)
    os.dup2(os.open(os.devnull, os.O_WRONLY), 2)
    try:
        engine = {"keras": KerasEngine, "onnxruntime": OrtEngine}[engine_name](threads)
    except KeyError:
        reply(f"error unknown engine '{engine_name}' (keras or onnxruntime)")
        return 1
    except Exception as e:  # noqa: BLE001 - any import failure means "skip this engine"
        reply(f"error {type(e).__name__}: {e}")
        return 1
    finally:
        os.dup2(stderr, 2)
    np = engine.np
    reply(f"ready {engine.versions}")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "quit":
                break
            if words[0] == "load":
                x = np.load(words[2])
                t0 = time.perf_counter()
                engine.load(words[1], x)
                reply(f"ok {time.perf_counter() - t0:.9f} {peak_rss_mb():.1f}")
            elif words[0] == "predict":
                x, calls, out_path = np.load(words[1]), int(words[2]), words[3]
                how, fn = engine.prepare(x, calls)
                warm_up(fn, x)
                times, out = timed_calls(fn, x, calls)
                np.save(out_path, np.asarray(out, dtype=np.float32))
                times.sort()
                reply(f"ok {times[len(times) // 2]:.9f} {times[0]:.9f} {times[-1]:.9f} {how}")
            else:
                reply(f"error unknown request '{words[0]}'")
        except Exception as e:  # noqa: BLE001 - report it to the driver, keep serving
            reply(f"error {type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
