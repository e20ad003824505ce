#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for options of existing classes
that Strata refused (issue #38 point 2): LayerNormalization's rms_scaling (deprecated in
Keras, still in its files: x scaled by gamma / sqrt(var + epsilon), not centered),
Flatten's data_format="channels_first" (the channels moved last before flattening) and
ZeroPadding1D's data_format="channels_first" (axis 2 padded).

Writes tests/data/layer_options_golden.json: cases in the form
tests/layers/layer_golden_case.h reads (config, inputs, weights, outputs, projections,
gradients), through keras_layer_case.py.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_layer_options_goldens.py
"""
import json
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keras_layer_case import new, run_case  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "layer_options_golden.json")
rng = np.random.default_rng(20263844)


def x(*shape):
    return (rng.standard_normal(shape) * 1.5 + 0.3).astype("float32")


def cases():
    warnings.simplefilter("ignore")  # rms_scaling's deprecation
    c = []
    c.append(run_case(rng, "layer_norm_rms_scaling", new(L.LayerNormalization, rms_scaling=True), [x(2, 3, 5)]))
    c.append(run_case(rng, "layer_norm_rms_scaling_axes_no_scale",
                      new(L.LayerNormalization, axis=[1, 2], scale=False, center=True, rms_scaling=True,
                          epsilon=1e-2), [x(2, 3, 4)]))
    c.append(run_case(rng, "flatten_channels_first", new(L.Flatten, data_format="channels_first"), [x(2, 3, 2, 4)]))
    c.append(run_case(rng, "flatten_channels_first_rank3", new(L.Flatten, data_format="channels_first"),
                      [x(2, 3, 5)]))
    c.append(run_case(rng, "zero_padding1d_channels_first",
                      new(L.ZeroPadding1D, padding=(1, 2), data_format="channels_first"), [x(2, 3, 4)]))
    return c


def main():
    keras.utils.set_random_seed(44)
    doc = {"keras_version": keras.__version__, "cases": cases()}
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, len(doc["cases"]), "cases:", [c["name"] for c in doc["cases"]],
          [[w for w in c["weight_names"]] for c in doc["cases"]])


if __name__ == "__main__":
    main()
