#!/usr/bin/env python3
"""Strata -> Keras for quantized models (issue #39): Keras loads the int8, int4 and float8 files Strata saves
back (tests/io/quantized_files_test.cc, Int8Files.SavedByStrata*) with the same dtype
policies and variable dtypes as its own files, and predicts what it predicted from its own,
exactly.

Runs the io test binary with STRATA_QUANTIZED_RESAVE_DIR set (Strata's .keras and .h5 of
each model, made from Keras's .keras file), then checks each with Keras 3.15.1:

    nice -n 19 cmake --build build --target io_tests
    KERAS_BACKEND=tensorflow python3 tests/reference/check_quantized_resaved.py [build/tests/io_tests]

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
DATA = os.path.join(ROOT, "tests", "data", "quantized")
MODELS = ("int8_mlp", "int8_tokens", "int4_mlp", "int4_tokens", "float8_mlp")
# Keras cannot load its own .h5 of a float8 model: only the .keras is checked.
KERAS_ONLY = ("float8_mlp",)


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tests", "io_tests")
    failures = checked = 0
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, STRATA_QUANTIZED_RESAVE_DIR=out)
        subprocess.run([binary, "--gtest_filter=Keras3/Int8Files.SavedByStrata*:Float8Files.*"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        for name in MODELS:
            keras_model = keras.saving.load_model(os.path.join(DATA, name + ".keras"))
            x = np.load(os.path.join(DATA, name + ".input0.npy"))
            want = np.load(os.path.join(DATA, name + ".output0.npy"))
            for ext in (".keras",) if name in KERAS_ONLY else (".keras", ".h5"):
                checked += 1
                model = keras.saving.load_model(os.path.join(out, name + ext))
                failures += report(name + ext, problems_with(model, keras_model, x, want))
    print("%d of %d files failed" % (failures, checked))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
