#!/usr/bin/env python3
"""Strata -> Keras for a mixed_float16 model trained through Keras's LossScaleOptimizer
(issue #39): Keras loads the .keras file Strata saves after training
(tests/io/mixed_precision_training_test.cc,
MixedPrecisionTraining.LossScaleOptimizerStateSavesAndLoadsAsKerasWritesIt: Keras's
mixed_float16_dynamic_scale.keras trained 24 steps by Strata) with a LossScaleOptimizer
around Adam, every optimizer variable restored (no "Skipping variable loading" warning),
the dynamic scale and iterations Keras's own 24 steps reached, and its predictions from
Strata's weights the same as Strata's file would give; then trains one more step.

    nice -n 19 cmake --build build --target io_tests
    KERAS_BACKEND=tensorflow python3 tests/reference/check_loss_scale_resaved.py [build/tests/io_tests]

Exit status 0 only when every check holds.
"""
import os
import subprocess
import sys
import tempfile
import warnings

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "mixed_precision_training")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tests", "io_tests")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, STRATA_LOSS_SCALE_RESAVE_DIR=tmp)
        subprocess.run([binary, "--gtest_filter=MixedPrecisionTraining.LossScaleOptimizerStateSavesAndLoadsAsKerasWritesIt"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        path = os.path.join(tmp, "mixed_float16_dynamic_scale.strata.keras")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model = keras.saving.load_model(path)
        skipped = [str(w.message) for w in caught if "Skipping variable loading" in str(w.message)]
        if skipped:
            problems.append("optimizer state not restored: " + "; ".join(skipped))
        opt = model.optimizer
        if not isinstance(opt, keras.optimizers.LossScaleOptimizer):
            problems.append("optimizer is %s, not LossScaleOptimizer" % type(opt).__name__)
        else:
            if type(opt.inner_optimizer).__name__ != "Adam":
                problems.append("inner optimizer is %s" % type(opt.inner_optimizer).__name__)
            trajectory = np.load(os.path.join(DATA, "mixed_float16_dynamic_scale.loss_scale.npy"))
            scale, iterations = float(opt.dynamic_scale.numpy()), int(opt.iterations.numpy())
            if scale != trajectory[-1][0] or iterations != int(trajectory[-1][1]):
                problems.append("dynamic_scale %g, iterations %d; Keras's own training reached %g, %d" %
                                (scale, iterations, trajectory[-1][0], trajectory[-1][1]))
            if opt.dynamic_growth_steps != 2 or opt.initial_scale != 2.0**20:
                problems.append("options %r %r" % (opt.dynamic_growth_steps, opt.initial_scale))
        policies = {layer.name: layer.dtype_policy.name for layer in model.layers if layer.weights}
        if policies != {"hidden1": "mixed_float16", "hidden2": "mixed_float16", "head": "float32"}:
            problems.append("policies %r" % policies)
        x = np.load(os.path.join(DATA, "mixed_float16_dynamic_scale.x.npy"))[:8]
        y = np.load(os.path.join(DATA, "mixed_float16_dynamic_scale.y.npy"))[:8]
        loss = model.train_on_batch(x, y)
        if not np.isfinite(loss):
            problems.append("a further step's loss is %r" % loss)
        print("%s: %s, inner %s, dynamic_scale %g, iterations %d, a further step's loss %.4f" %
              (os.path.basename(path), type(opt).__name__, type(getattr(opt, "inner_optimizer", opt)).__name__,
               float(opt.dynamic_scale.numpy()), int(opt.iterations.numpy()), loss))
    for p in problems:
        print("PROBLEM:", p)
    print("ok" if not problems else "%d problem(s)" % len(problems))
    return 0 if not problems else 1


if __name__ == "__main__":
    sys.exit(main())
