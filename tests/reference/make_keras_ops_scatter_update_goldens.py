#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops.scatter_update
(issue #38), whose indices may name the batch axis, one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/scatter_update/<case>.keras   one functional model per case
  tests/data/keras_ops_scatter_update_golden.json    per case as keras_ops_golden.json's cases
tests/io/keras_ops_test.cc runs the cases of every such file alike.

What Keras 3.15.1 computes: scatter_update(inputs, indices, updates, reduction) is
tf.tensor_scatter_nd_update (reduction None), tf.tensor_scatter_nd_add / max / min, or a loop
of multiplications ("mul"): indices (k, depth) name elements (depth = the inputs' rank) or
slices (fewer) of the inputs, the batch axis first; updates (k, slice...). Indices and updates
are NumPy constants in the saved node's arguments, or the model's tensors. The max, min and
mul cases run on int32 inputs, whose outputs have no gradient (Strata computes none for those
reductions).

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_scatter_update_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops as K  # noqa: E402

FIXED = {
    "small_ints": [[3, -1, 4, 1], [5, -9, 2, 6]],
}




def cases():
    elements = np.array([[0, 1], [1, 3]])
    twice = np.array([[0, 1], [1, 3], [0, 1]])

    def update(indices, updates, **kw):
        return lambda x: K.scatter_update(x[0], indices, updates, **kw)

    return {
        "scatter_update_elements": (update(elements, np.array([5.0, 6.0], np.float32)), [("any", (4,))],
                                    "ScatterUpdate"),
        "scatter_update_rows": (update(np.array([[1]]), np.full((1, 2, 3), 7.0, np.float32)), [("any", (2, 3))],
                                "ScatterUpdate"),
        "scatter_update_add_twice": (update(twice, np.array([5.0, 6.0, -2.0], np.float32), reduction="add"),
                                     [("any", (4,))], "ScatterUpdate"),
        "scatter_update_from_the_model": (lambda x: K.scatter_update(x[0], np.array([[1], [0]]), x[1]),
                                          [("any", (4,)), ("any", (4,))], "ScatterUpdate"),
        "scatter_update_max": (update(twice, np.array([5, -7, 2], np.int32), reduction="max"),
                               [("small_ints", (4,))], "ScatterUpdate"),
        "scatter_update_min": (update(twice, np.array([5, -7, 2], np.int32), reduction="min"),
                               [("small_ints", (4,))], "ScatterUpdate"),
        "scatter_update_mul": (update(twice, np.array([5, -7, 2], np.int32), reduction="mul"),
                               [("small_ints", (4,))], "ScatterUpdate"),
    }


def main():
    base.write_case_file("tests/reference/make_keras_ops_scatter_update_goldens.py", "scatter_update",
                         "keras_ops_scatter_update_golden.json", cases, 20261207,
                         ["as keras_ops_golden.json's cases"], make_fn=base.make_with_fixed(FIXED), int_kinds=tuple(FIXED))


if __name__ == "__main__":
    main()
