#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops that take a
functional model's batch axis as an axis of their data (issue #38): split, vsplit and hsplit
of a vector along axis 0, into equal parts; diag of a vector (the batch) or of a matrix (the
batch its rows) and diagflat, with offsets; one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/batch_axis/<case>.keras   one functional model per case
  tests/data/keras_ops_batch_axis_golden.json    per case as keras_ops_golden.json's cases
tests/io/keras_ops_test.cc runs the cases of every such file alike.

What Keras 3.15.1 computes: tf.split(x, count, axis=0), each part (batch / count, ...); each
part is a case (the op cases' batch is 2: two parts of one sample). diag(x, k):
tf.linalg.diag(x, k) of a vector, (n + |k|, n + |k|), or the k-th diagonal of a matrix;
diagflat(x, k): diag of x flattened, the batch included. The diagonal cases come last, so the
split cases keep their values.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_batch_axis_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
from keras import ops as K  # noqa: E402


def cases():
    return {
        "vsplit_first": (lambda x: K.vsplit(x[0], 2)[0], [("any", (3,))], "Vsplit"),
        "vsplit_second": (lambda x: K.vsplit(x[0], 2)[1], [("any", (3,))], "Vsplit"),
        "split_batch_axis": (lambda x: K.split(x[0], 2, axis=0)[1], [("any", (2, 3))], "Split"),
        "split_batch_axis_one_part": (lambda x: K.split(x[0], 1, axis=0)[0], [("any", (4,))], "Split"),
        "hsplit_vector": (lambda x: K.hsplit(x[0], 2)[1], [("any", ())], "Hsplit"),
        "diag_of_the_batch": (lambda x: K.diag(x[0]), [("any", ())], "Diag"),
        "diag_of_the_batch_above": (lambda x: K.diag(x[0], k=1), [("any", ())], "Diag"),
        "diag_of_the_batch_below": (lambda x: K.diag(x[0], k=-2), [("any", ())], "Diag"),
        "diag_of_a_matrix": (lambda x: K.diag(x[0]), [("any", (4,))], "Diag"),
        "diag_of_a_matrix_above": (lambda x: K.diag(x[0], k=3), [("any", (4,))], "Diag"),
        "diag_of_a_matrix_below": (lambda x: K.diag(x[0], k=-1), [("any", (4,))], "Diag"),
        "diagflat": (lambda x: K.diagflat(x[0]), [("any", (3,))], "Diagflat"),
        "diagflat_below": (lambda x: K.diagflat(x[0], k=-1), [("any", (3,))], "Diagflat"),
    }


def main():
    base.write_case_file("tests/reference/make_keras_ops_batch_axis_goldens.py", "batch_axis",
                         "keras_ops_batch_axis_golden.json", cases, 20261208, ["as keras_ops_golden.json's cases"])


if __name__ == "__main__":
    main()
