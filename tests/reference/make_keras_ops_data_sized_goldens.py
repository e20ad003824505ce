#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops.bincount,
keras.ops.nonzero and keras.ops.unique (issue #38), whose results' sizes depend on the values,
one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/data_sized/<case>.keras   one functional model per case
  tests/data/keras_ops_data_sized_golden.json    per case as keras_ops_golden.json's cases
tests/io/keras_ops_test.cc runs the cases of every such file alike.

What Keras 3.15.1 computes: bincount(x, minlength) is tf.math.bincount along the last axis
(x cast to int32, so floats truncate): a (batch, n) input gives (batch, length), a (batch,)
input (length,), length = max(minlength, largest + 1) over the whole batch; int32.
nonzero(x) is tf.where's coordinates of the nonzero elements, unstacked per axis (the batch
axis first), int32, each (count,); each coordinate is a case. unique(x) (axis None) is
tf.unique over the flattened x (first appearance; sorted by argsort), with each result asked
for (index: first positions, inverse: x's shape, counts) and size/fill_value's cut or padding;
each result is a case. Integer inputs are fixed. The unique cases come last, so the earlier
ones keep their values.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_data_sized_goldens.py
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
    "counts": [[1, 2, 2, 0, 5], [3, 3, 1, 0, 0]],
    "one_per_sample": [4, 2],
    "sparse_ints": [[[0, 3], [0, 0], [7, 0]], [[0, 0], [-2, 0], [0, 1]]],
    "repeats": [[5, -2, 5, 7, 0, 7], [0, 3, -2, -2, 9, 5]],
}


def own_kinds(shape, kind):
    if kind == "fractions":  # positive floats: bincount truncates them
        return base.rng.uniform(0.0, 4.9, shape).astype("float32")
    if kind == "few_floats":  # a few distinct floats, 0 and -0 among them
        return base.rng.choice(np.array([-1.5, 0.0, -0.0, 2.25, 0.75], np.float32), shape)
    if kind == "some_zeros":  # floats, about half of them zeros (negatives among the rest)
        v = base.rng.uniform(-2.0, 2.0, shape).astype("float32")
        return np.where(base.rng.uniform(0, 1, shape) < 0.5, 0.0, v).astype("float32")
    return None


def cases():
    def nonzero(axis):
        return lambda x: K.nonzero(x[0])[axis]

    return {
        "bincount_rows": (lambda x: K.bincount(x[0]), [("counts", (5,))], "Bincount"),
        "bincount_minlength": (lambda x: K.bincount(x[0], minlength=9), [("counts", (5,))], "Bincount"),
        "bincount_of_the_batch": (lambda x: K.bincount(x[0]), [("one_per_sample", ())], "Bincount"),
        "bincount_truncates_floats": (lambda x: K.bincount(x[0]), [("fractions", (6,))], "Bincount"),
        "nonzero_rows": (nonzero(0), [("some_zeros", (7,))], "Nonzero"),
        "nonzero_columns": (nonzero(1), [("some_zeros", (7,))], "Nonzero"),
        "nonzero_rank3_last": (nonzero(2), [("sparse_ints", (3, 2))], "Nonzero"),
        "nonzero_rank3_middle": (nonzero(1), [("sparse_ints", (3, 2))], "Nonzero"),
        "unique_sorted": (lambda x: K.unique(x[0]), [("repeats", (6,))], "Unique"),
        "unique_first_appearance": (lambda x: K.unique(x[0], sorted=False), [("repeats", (6,))], "Unique"),
        "unique_index": (lambda x: K.unique(x[0], return_index=True)[1], [("repeats", (6,))], "Unique"),
        "unique_inverse": (lambda x: K.unique(x[0], return_inverse=True)[1], [("repeats", (6,))], "Unique"),
        "unique_counts_unsorted": (lambda x: K.unique(x[0], sorted=False, return_counts=True)[1],
                                   [("repeats", (6,))], "Unique"),
        "unique_floats_and_signed_zeros": (lambda x: K.unique(x[0]), [("few_floats", (5,))], "Unique"),
        "unique_padded_values": (lambda x: K.unique(x[0], size=9, fill_value=-4), [("repeats", (6,))],
                                 "Unique"),
        "unique_padded_index": (lambda x: K.unique(x[0], return_index=True, size=9)[1], [("repeats", (6,))],
                                "Unique"),
        "unique_padded_counts": (lambda x: K.unique(x[0], return_counts=True, size=9)[1], [("repeats", (6,))],
                                 "Unique"),
        "unique_cut_values": (lambda x: K.unique(x[0], size=3), [("repeats", (6,))], "Unique"),
        "unique_cut_inverse": (lambda x: K.unique(x[0], return_inverse=True, size=3)[1], [("repeats", (6,))],
                               "Unique"),
    }


def main():
    base.write_case_file("tests/reference/make_keras_ops_data_sized_goldens.py", "data_sized",
                         "keras_ops_data_sized_golden.json", cases, 20261206,
                         ["as keras_ops_golden.json's cases; an output's dtype is Keras's (int32)"],
                         make_fn=base.make_with_fixed(FIXED, own_kinds), int_kinds=tuple(FIXED))


if __name__ == "__main__":
    main()
