#!/usr/bin/env python3
"""Keras's model.quantize("int4") and ("float8") on the float models of
make_quantize_api_goldens.py, for Strata's Model::quantize tests in those modes (issue #39,
point 2; tests/io/quantize_api_test.cc).

Reads tests/data/quantize_api/<name>.float.keras and <name>.input0.npy (written by
make_quantize_api_goldens.py) and writes, for mlp, einsum, heads and tokens:

  <name>.int4.keras          the model after keras's model.quantize("int4"): Keras's default
                             Int4QuantizationConfig, sub-channel "int4/128" (groups of 128 rows
                             with zero points; an Embedding's groups of columns)
  <name>.int4.output0.npy    its predictions for <name>.input0.npy
  <name>.float8.keras, <name>.float8.output0.npy
                             the same after model.quantize("float8") (mlp and einsum: Keras's
                             float8 layers are Dense and EinsumDense; the kernels stay float,
                             scales and amax histories are added)

Keras reloads each file and must predict the same (checked here).

Regenerate with (keras 3.15.1, tensorflow 2.21):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_quantize_modes_goldens.py
"""
import os
import warnings

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "quantize_api")


def main():
    for mode, names in (("int4", ("mlp", "einsum", "heads", "tokens")), ("float8", ("mlp", "einsum"))):
        for name in names:
            keras.backend.clear_session()
            model = keras.saving.load_model(os.path.join(OUT, name + ".float.keras"))
            x = np.load(os.path.join(OUT, name + ".input0.npy"))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Layer ... does not have a `quantize` method"
                model.quantize(mode)
            y = np.asarray(model.predict(x, verbose=0), "float32")
            path = os.path.join(OUT, name + "." + mode + ".keras")
            model.save(path)
            np.save(os.path.join(OUT, name + "." + mode + ".output0.npy"), y)
            again = keras.saving.load_model(path)
            assert np.array_equal(y, np.asarray(again.predict(x, verbose=0), "float32")), name
            print("wrote", name, mode)


if __name__ == "__main__":
    main()
