#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops operations of issue #38
that space values and build grids from a functional model's tensors (Linspace, Logspace,
Geomspace with tensor start and stop; Meshgrid), and the whole-tensor tests and conversions
AllClose, Isreal and Array, and PerspectiveTransform, one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/grids/<case>.keras   one functional model per operation case
  tests/data/keras_ops_grids_golden.json    per case as keras_ops_golden.json's cases (the
                                            file, the operation, its saved entries, inputs,
                                            Keras's output with its dtype, a projection and
                                            the gradients of sum(output * projection) w.r.t.
                                            the inputs)
tests/io/keras_ops_test.cc runs the cases of every such file alike.

What Keras 3.15.1 computes, and so what the cases hold:
- linspace, logspace and geomspace insert the `num` samples as a new axis at `axis` of
  start's and stop's broadcast shape; the default axis 0 puts them before the batch axis
  ((num, batch, ...)).
- geomspace multiplies logspace(log10|start|, log10|stop|) by sign(start) broadcast from the
  last axis, which lines the signs up only where the samples' axis comes before all of
  start's axes (axis 0, or a scalar start); elsewhere Keras's own model fails when run
  (Incompatible shapes), so no case has one.
- perspective_transform solves, per image, the 8 x 8 system of its four point pairs for the
  homography taking output pixels to input pixels, then samples as affine_transform does;
  its points are constants for every image or inputs of the model (one row of 4 points per
  image).
- meshgrid flattens each input, the batch axis included, as tf.meshgrid does: inputs of
  rank 1 (the batch alone) get 4 rows instead of op_cases' 2.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_grids_goldens.py
"""
import json
import os
import platform
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops as K  # noqa: E402

OUT = os.path.join(base.DATA, "keras_ops_grids_golden.json")
OPS_DIR = os.path.join(base.MODELS_DIR, "grids")
ROWS_OF_VECTORS = 4


def cases():
    P = np.float32
    V = ("any", ())  # a vector: the batch axis alone
    return {
        # one bool for the whole call: |x1 - x2| <= atol + rtol |x2| everywhere (or equal, or
        # both NaN with equal_nan)
        "allclose_close": (lambda x: K.allclose(x[0], x[0] + x[1] * 1e-7), ["any", "any"], "AllClose"),
        "allclose_far": (lambda x: K.allclose(x[0], x[1]), ["any", "any"], "AllClose"),
        "allclose_tolerances": (lambda x: K.allclose(x[0], x[0] * 1.001 + 0.002, rtol=1e-3, atol=3e-3), ["any"],
                                "AllClose"),
        "allclose_tolerances_too_tight": (lambda x: K.allclose(x[0], x[0] * 1.001 + 0.002, rtol=1e-4, atol=1e-3),
                                          ["any"], "AllClose"),
        # log of zeros (-inf, equal on both sides) and of negatives (NaN)
        "allclose_nan": (lambda x: K.allclose(K.log(x[0]), K.log(x[0])), ["specials"], "AllClose"),
        "allclose_equal_nan": (lambda x: K.allclose(K.log(x[0]), K.log(x[0]), equal_nan=True), ["specials"],
                               "AllClose"),
        "allclose_broadcast_constant": (lambda x: K.allclose(x[0] * 0.0, np.zeros(4, P)), ["any"], "AllClose"),
        "allclose_int": (lambda x: K.allclose(x[0], x[0]), ["labels"], "AllClose"),
        "isreal": (lambda x: K.isreal(x[0]), ["any"], "Isreal"),
        "isreal_int": (lambda x: K.isreal(x[0]), ["labels"], "Isreal"),
        "array": (lambda x: K.array(x[0]), ["any"], "Array"),
        "array_int32": (lambda x: K.array(x[0], dtype="int32"), ["steps"], "Array"),
        "array_bool": (lambda x: K.array(x[0], dtype="bool"), ["sparse"], "Array"),
        # samples from start to stop
        "linspace": (lambda x: K.linspace(x[0], x[1], 5), [("any", (3,)), ("any", (3,))], "Linspace"),
        "linspace_last_axis": (lambda x: K.linspace(x[0], x[1], 5, axis=-1), [("any", (3,)), ("any", (3,))],
                               "Linspace"),
        "linspace_no_endpoint_axis1": (lambda x: K.linspace(x[0], x[1], 4, endpoint=False, axis=1),
                                       [("any", (3,)), ("any", (3,))], "Linspace"),
        "linspace_constant_stop": (lambda x: K.linspace(x[0], 3.0, 4, axis=-1), [("any", (3,))], "Linspace"),
        "linspace_constant_start": (lambda x: K.linspace(np.array([0.0, 1.0, -1.0], P), x[0], 3, axis=2),
                                    [("any", (3,))], "Linspace"),
        "linspace_one": (lambda x: K.linspace(x[0], x[1], 1, endpoint=False, axis=-1), [("any", (3,)), ("any", (3,))],
                         "Linspace"),
        "linspace_two": (lambda x: K.linspace(x[0], x[1], 2, axis=1), [("any", (3,)), ("any", (3,))], "Linspace"),
        "linspace_broadcast": (lambda x: K.linspace(x[0], x[1], 3, axis=-2), [("any", (1, 3)), ("any", (2, 3))],
                               "Linspace"),
        "linspace_int_inputs": (lambda x: K.linspace(x[0], x[1], 4, axis=-1), [("labels", (3,)), ("labels", (3,))],
                                "Linspace"),
        "logspace": (lambda x: K.logspace(x[0], x[1], 5), [("unit", (3,)), ("unit", (3,))], "Logspace"),
        "logspace_base2_no_endpoint": (lambda x: K.logspace(x[0], x[1], 4, endpoint=False, base=2, axis=1),
                                       [("any", (3,)), ("any", (3,))], "Logspace"),
        "logspace_base_half": (lambda x: K.logspace(x[0], x[1], 3, base=0.5, axis=-1), [("any", (3,)), ("any", (3,))],
                               "Logspace"),
        "geomspace": (lambda x: K.geomspace(x[0], x[1], 5), [("positive", (3,)), ("positive", (3,))], "Geomspace"),
        "geomspace_negative": (lambda x: K.geomspace(-x[0], -x[1], 4), [("positive", (3,)), ("positive", (3,))],
                               "Geomspace"),
        "geomspace_no_endpoint": (lambda x: K.geomspace(x[0], x[1], 4, endpoint=False),
                                  [("positive", (3,)), ("positive", (3,))], "Geomspace"),
        "geomspace_start_sign": (lambda x: K.geomspace(x[0], x[1], 3), [("any", (2,)), ("any", (2,))], "Geomspace"),
        "geomspace_constant_start_last_axis": (lambda x: K.geomspace(2.0, x[0], 4, axis=-1), [("positive", (3,))],
                                               "Geomspace"),
        # grids of the flattened inputs
        "meshgrid_xy_first": (lambda x: K.meshgrid(x[0], x[1])[0], [V, V], "Meshgrid"),
        "meshgrid_xy_second": (lambda x: K.meshgrid(x[0], x[1])[1], [V, V], "Meshgrid"),
        "meshgrid_ij_second": (lambda x: K.meshgrid(x[0], x[1], indexing="ij")[1], [V, V], "Meshgrid"),
        "meshgrid_three_xy": (lambda x: K.meshgrid(x[0], x[1], x[2])[2], [V, V, V], "Meshgrid"),
        "meshgrid_three_ij": (lambda x: K.meshgrid(x[0], x[1], x[2], indexing="ij")[0], [V, V, V], "Meshgrid"),
        "meshgrid_flattens": (lambda x: K.meshgrid(x[0], x[1])[1], [("any", (2,)), ("any", (3,))], "Meshgrid"),
        "meshgrid_constant": (lambda x: K.meshgrid(x[0], np.arange(3, dtype=P), indexing="ij")[0], [V],
                              "Meshgrid"),
        # 8 x 8 images through the homography of four point pairs (corners moved by up to 1.5)
        "perspective_transform": (lambda x: K.image.perspective_transform(x[0], CORNERS, MOVED),
                                   [("positive", (8, 8, 3))], "PerspectiveTransform"),
        "perspective_transform_points_inputs": (lambda x: K.image.perspective_transform(x[0], x[1], x[2]),
                                                [("positive", (8, 8, 2)), ("corners", (4, 2)), ("corners", (4, 2))],
                                                "PerspectiveTransform"),
        "perspective_transform_nearest_channels_first": (
            lambda x: K.image.perspective_transform(x[0], MOVED, CORNERS, interpolation="nearest", fill_value=0.5,
                                                    data_format="channels_first"),
            [("positive", (2, 8, 8))], "PerspectiveTransform"),
    }


CORNERS = np.array([[0.0, 0.0], [7.0, 0.0], [0.0, 7.0], [7.0, 7.0]], np.float32)
MOVED = np.array([[1.0, 0.5], [6.5, -0.5], [-1.0, 6.0], [7.5, 8.0]], np.float32)


def make(shape, kind):
    """make_keras_ops_goldens.py's kinds, with 4 rows for vectors (the batch axis alone), and an
    8 x 8 image's corners moved by up to 1.5 (corners)."""
    if len(shape) == 1 and shape[0] == 2:
        shape = (ROWS_OF_VECTORS,)
    if kind == "corners":
        return (CORNERS + base.rng.uniform(-1.5, 1.5, shape)).astype("float32")
    return base_make(shape, kind)


base_make = base.make


def main():
    os.makedirs(OPS_DIR, exist_ok=True)
    base.cases = cases
    base.make = make
    base.OPS_DIR = OPS_DIR
    base.rng = np.random.default_rng(20260440)
    out = base.op_cases()
    for c in out:
        c["file"] = "tests/data/keras_ops/grids/%s.keras" % c["name"]
    doc = {
        "generator": {"script": "tests/reference/make_keras_ops_grids_goldens.py", "keras": base.keras.__version__,
                      "tensorflow": base.tf.__version__, "numpy": np.__version__,
                      "python": platform.python_version(), "backend": "tensorflow"},
        "notes": ["as keras_ops_golden.json's cases; an output's dtype is Keras's (bool, int32 where it has one)"],
        "cases": out,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(out), "cases")


if __name__ == "__main__":
    main()
