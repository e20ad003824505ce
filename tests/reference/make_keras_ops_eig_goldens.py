#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops.eig (issue #38):
tf.linalg.eig's complex64 eigenvalues and eigenvectors of real square matrices (as its CPU
kernel computes them for real input: their order and phases are those of Eigen's EigenSolver,
the real Schur form, built without FMA, which Strata's kernel was checked against),
read by view_as_real as (real, imag) pairs, the one way Strata (which has no complex dtype)
reads a complex result. One small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/eig/<case>.keras    one functional model per case
  tests/data/keras_ops_eig_golden.json     per case as keras_ops_golden.json's cases
tests/io/keras_ops_test.cc runs the cases of every such file alike; Strata has no gradient for
eig (TensorFlow's EigGrad works in complex arithmetic), which that test checks it says.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_eig_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
from keras import ops as K  # noqa: E402


def cases():
    values = lambda x: K.view_as_real(K.eig(x[0])[0])  # noqa: E731
    vectors = lambda x: K.view_as_real(K.eig(x[0])[1])  # noqa: E731
    return {
        "eig_values": (values, [("any", (3, 3))], "Eig"),
        "eig_vectors": (vectors, [("any", (3, 3))], "Eig"),
        "eig_values_of_4": (values, [("any", (4, 4))], "Eig"),
        "eig_vectors_of_4": (vectors, [("any", (4, 4))], "Eig"),
        "eig_values_of_2_by_batch": (values, [("any", (5, 2, 2))], "Eig"),
    }


def main():
    base.write_case_file("tests/reference/make_keras_ops_eig_goldens.py", "eig", "keras_ops_eig_golden.json", cases,
                         20261204, ["as keras_ops_golden.json's cases"])


if __name__ == "__main__":
    main()
