#!/usr/bin/env python3
"""Strata -> Keras for Model::quantize (issue #39, point 2): Keras loads the .keras files that
Strata saves after quantizing Keras's float models (tests/io/quantize_api_test.cc,
QuantizeApi.SavedIt*) with the dtype policies, variable dtypes and values of the file Keras
wrote after its own model.quantize("int8"), and predicts what that model predicted, exactly.

Runs the io test binary with STRATA_QUANTIZE_API_DIR set, then checks each file with Keras 3.15.1:

    nice -n 19 cmake --build build --target io_tests
    KERAS_BACKEND=tensorflow python3 tests/reference/check_quantize_api_resaved.py [build/tests/io_tests]

Exit status 0 only when every file loads and matches.
"""
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from resaved_files import problems_with, report  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data", "quantize_api")
MODELS = ("mlp", "einsum", "heads", "tokens")


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tests", "io_tests")
    failures = 0
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, STRATA_QUANTIZE_API_DIR=out)
        subprocess.run([binary, "--gtest_filter=Keras3/QuantizeApi.SavedIt*"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        for name in MODELS:
            keras_model = keras.saving.load_model(os.path.join(DATA, name + ".int8.keras"))
            x = np.load(os.path.join(DATA, name + ".input0.npy"))
            want = np.load(os.path.join(DATA, name + ".output0.npy"))
            model = keras.saving.load_model(os.path.join(out, name + ".keras"))
            failures += report(name + ".keras", problems_with(model, keras_model, x, want, values=True))
    print("%d of %d files failed" % (failures, len(MODELS)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
