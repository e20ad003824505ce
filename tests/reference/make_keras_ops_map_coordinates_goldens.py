#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops.image.map_coordinates
(issue #38) on a functional model's tensor, one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/map_coordinates/<case>.keras   one functional model per case
  tests/data/keras_ops_map_coordinates_golden.json    per case as keras_ops_golden.json's cases
tests/io/keras_ops_test.cc runs the cases of every such file alike.

What Keras 3.15.1 computes: the inputs sampled at NumPy-constant coordinates (rank, ...), whose
first row indexes the batch axis (the op cases' batch is 2); order 0 rounds each coordinate
(half to even), order 1 weighs its two neighbours; fill_mode constant (fill_value outside),
nearest, wrap, mirror and reflect move indices inside as Keras's TensorFlow backend does. The
result is coordinates.shape[1:] (no batch axis). Coordinates stay where mirror's folding keeps
its indices inside the axis (TensorFlow's gather fails otherwise).

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_map_coordinates_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops as K  # noqa: E402

# (batch, columns) points inside, on edges and outside a (2, 5) tensor
ROWS_COLUMNS = np.array([[0.25, 1.0, 0.5, -0.75, 1.6, 0.0, 2.5],
                         [0.0, 3.5, 4.2, 1.0, -1.3, 6.75, 2.5]], np.float32)
# the same for a (2, 3, 4) tensor, shaped (3, 2, 3): a 2 x 3 grid of points
GRID = np.array([[[0.0, 0.5, 1.0], [0.3, 0.9, -0.4]],
                 [[1.2, 0.0, 2.6], [-0.5, 1.5, 3.0]],
                 [[0.5, 3.0, 1.25], [4.5, -1.0, 2.0]]], np.float32)
# inside (2, 5) for mirror: its folded indices stay below the size
MIRROR_SAFE = np.array([[0.25, 0.6, -0.5, 0.75, 0.1],
                        [0.0, 3.5, -1.2, 1.0, -2.3]], np.float32)


def cases():
    def sample(coordinates, **kw):
        return lambda x: K.image.map_coordinates(x[0], coordinates, **kw)

    out = {}
    for order in (0, 1):
        for mode, coords in (("constant", ROWS_COLUMNS), ("nearest", ROWS_COLUMNS), ("wrap", ROWS_COLUMNS),
                             ("reflect", ROWS_COLUMNS), ("mirror", MIRROR_SAFE)):
            out["map_coordinates_order%d_%s" % (order, mode)] = (
                sample(coords, order=order, fill_mode=mode), [("any", (5,))], "MapCoordinates")
    out["map_coordinates_fill_value"] = (sample(ROWS_COLUMNS, order=1, fill_mode="constant", fill_value=-2.5),
                                         [("any", (5,))], "MapCoordinates")
    out["map_coordinates_rank3_grid"] = (sample(GRID, order=1, fill_mode="constant"), [("any", (3, 4))],
                                         "MapCoordinates")
    out["map_coordinates_rank3_nearest_order0"] = (sample(GRID, order=0, fill_mode="nearest"), [("any", (3, 4))],
                                                   "MapCoordinates")
    return out


def main():
    base.write_case_file("tests/reference/make_keras_ops_map_coordinates_goldens.py", "map_coordinates",
                         "keras_ops_map_coordinates_golden.json", cases, 20261209,
                         ["as keras_ops_golden.json's cases"])


if __name__ == "__main__":
    main()
