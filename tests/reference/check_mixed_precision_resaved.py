#!/usr/bin/env python3
"""Strata -> Keras for bfloat16 and float16 dtype policies (issue #39): Keras loads the files
Strata saves back (tests/io/mixed_precision_files_test.cc,
MixedPrecisionFiles.SavedByStrata*) with the same dtype policies and variable dtypes as its
own files, and predicts what it predicted from its own, exactly.

Runs the io test binary with STRATA_MIXED_PRECISION_RESAVE_DIR set (Strata's .keras and .h5
of each model, made from Keras's file), then checks each with Keras 3.15.1:

    nice -n 19 cmake --build build --target io_tests
    KERAS_BACKEND=tensorflow python3 tests/reference/check_mixed_precision_resaved.py [build/tests/io_tests]

The .h5 files of bfloat16 models are written as Keras writes them, and Keras cannot load
its own (ValueError: No cast function available): they are skipped, saying so.
Exit status 0 only when every other file loads and matches.
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
DATA = os.path.join(ROOT, "tests", "data")
# The files the test saves back (its parameters without the .h5 ones).
MODELS = ["quantized/mixed_bfloat16_mlp", "quantized/bfloat16_mlp", "quantized/float16_mlp"] + [
    "mixed_precision/%s_%s" % (policy, model)
    for policy, model in [("mixed_bfloat16", "dense"), ("bfloat16", "dense"), ("mixed_bfloat16", "float32_output"),
                          ("bfloat16", "float32_output"), ("mixed_bfloat16", "conv"), ("bfloat16", "conv"),
                          ("mixed_bfloat16", "norm"), ("bfloat16", "norm"), ("mixed_float16", "norm"),
                          ("float16", "norm"), ("mixed_bfloat16", "embed"), ("bfloat16", "embed"),
                          ("mixed_float16", "embed"), ("float16", "embed")]]


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tests", "io_tests")
    failures = checked = 0
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, STRATA_MIXED_PRECISION_RESAVE_DIR=out)
        subprocess.run([binary, "--gtest_filter=Keras3/MixedPrecisionFiles.SavedByStrata*"], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        for name in MODELS:
            keras_model = keras.saving.load_model(os.path.join(DATA, name + ".keras"))
            x = np.load(os.path.join(DATA, name + ".input0.npy"))
            want = np.load(os.path.join(DATA, name + ".output0.npy"))
            for ext in (".keras", ".h5"):
                path = os.path.join(out, os.path.basename(name) + ext)
                if ext == ".h5" and name.split("/")[-1].startswith("bfloat16"):
                    print("skip " + name + ext + ": Keras cannot load a bfloat16 .h5, its own included")
                    continue
                checked += 1
                try:
                    model = keras.saving.load_model(path)
                    problems = problems_with(model, keras_model, x, want)
                except Exception as e:  # noqa: BLE001 - reported, counted
                    problems = ["%s: %s" % (type(e).__name__, e)]
                failures += report(name + ext, problems)
    print("%d of %d files failed" % (failures, checked))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
