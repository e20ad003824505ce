#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops.linalg's
decompositions of issue #38 (Qr, SVD, Eigh, Pinv, MatrixRank, Lstsq, and Norm's orders of
the singular values), one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/linalg/<case>.keras   one functional model per operation case
  tests/data/keras_ops_linalg_golden.json    per case as keras_ops_golden.json's cases
tests/io/keras_ops_test.cc runs these cases with the others.

A decomposition with several results is saved as one node; each case takes one result (as
make_keras_ops_more_goldens.py's slogdet cases), so its gradient is that result's. The
vectors' signs are no definition's: these are TensorFlow's CPU kernels' (Eigen's
HouseholderQR, BDCSVD and SelfAdjointEigenSolver), which Strata's CPU kernels run too.
TensorFlow has no QR gradient with mode complete and more rows than columns, and no SVD
gradient with full_matrices where the sides differ by more than one: no case asks for them
(Strata throws when differentiated there, tested in C++).

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_linalg_goldens.py
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

OUT = os.path.join(base.DATA, "keras_ops_linalg_golden.json")
OPS_DIR = os.path.join(base.MODELS_DIR, "linalg")


def cases():
    P = np.float32
    constants = np.random.default_rng(20260439)

    def W(*shape):
        return constants.uniform(-1.0, 1.0, shape).astype(P)

    L = K.linalg
    return {
        # qr: deep (4, 3), square and wide (3, 5) matrices, each result
        "qr_q": (lambda x: L.qr(x[0])[0], [("matrix", (4, 3))], "Qr"),
        "qr_r": (lambda x: L.qr(x[0])[1], [("matrix", (4, 3))], "Qr"),
        "qr_wide_q": (lambda x: L.qr(x[0])[0], [("matrix", (3, 5))], "Qr"),
        "qr_wide_r": (lambda x: L.qr(x[0])[1], [("matrix", (3, 5))], "Qr"),
        "qr_complete_square_q": (lambda x: L.qr(x[0], mode="complete")[0], [("matrix", (3, 3))], "Qr"),
        "qr_complete_wide_r": (lambda x: L.qr(x[0], mode="complete")[1], [("matrix", (3, 4))], "Qr"),
        # svd: full_matrices (Keras's default) on (4, 3), thin on (3, 5), values alone on (3, 4)
        "svd_u": (lambda x: L.svd(x[0])[0], [("matrix", (4, 3))], "SVD"),
        "svd_s": (lambda x: L.svd(x[0])[1], [("matrix", (4, 3))], "SVD"),
        "svd_vt": (lambda x: L.svd(x[0])[2], [("matrix", (4, 3))], "SVD"),
        "svd_thin_u": (lambda x: L.svd(x[0], full_matrices=False)[0], [("matrix", (3, 5))], "SVD"),
        "svd_thin_vt": (lambda x: L.svd(x[0], full_matrices=False)[2], [("matrix", (3, 5))], "SVD"),
        "svd_values": (lambda x: L.svd(x[0], compute_uv=False), [("matrix", (3, 4))], "SVD"),
        # eigh of symmetric matrices (the lower triangle read)
        "eigh_values": (lambda x: L.eigh(x[0])[0], [("symmetric", (4, 4))], "Eigh"),
        "eigh_vectors": (lambda x: L.eigh(x[0])[1], [("symmetric", (3, 3))], "Eigh"),
        # pinv and matrix_rank of the singular values
        "pinv": (lambda x: L.pinv(x[0]), [("matrix", (4, 3))], "Pinv"),
        "pinv_rcond": (lambda x: L.pinv(x[0], rcond=0.3), [("matrix", (3, 3))], "Pinv"),
        "matrix_rank": (lambda x: L.matrix_rank(x[0]), [("matrix", (3, 4))], "MatrixRank"),
        # rank 2 of (3, 4): the third singular value float32's rounding, under tol
        "matrix_rank_tol": (lambda x: L.matrix_rank(K.matmul(K.matmul(x[0], W(4, 2)), W(2, 4)), tol=1e-3),
                            [("matrix", (3, 4))], "MatrixRank"),
        # norm's orders of the singular values
        "norm_2": (lambda x: L.norm(x[0], ord=2, axis=(1, 2)), [("matrix", (3, 4))], "Norm"),
        "norm_minus_2": (lambda x: L.norm(x[0], ord=-2, axis=(1, 2)), [("matrix", (3, 4))], "Norm"),
        # lstsq: a and b of rank 2 / 1 exactly, so their rows are the batch (2 samples): an
        # underdetermined system (2, 3) (the least-norm solution), an overdetermined one (2, 1)
        # with a vector b, and rcond dropping the smaller singular value
        "lstsq": (lambda x: L.lstsq(x[0], x[1]), [("matrix", (3,)), ("matrix", (2,))], "Lstsq"),
        "lstsq_vector": (lambda x: L.lstsq(x[0], x[1]), [("matrix", (1,)), ("matrix", ())], "Lstsq"),
        "lstsq_rcond": (lambda x: L.lstsq(x[0], x[1], rcond=0.99), [("matrix", (3,)), ("matrix", (2,))], "Lstsq"),
        "norm_nuc_keepdims": (lambda x: L.norm(x[0], ord="nuc", axis=(1, 2), keepdims=True),
                              [("matrix", (3, 4))], "Norm"),
    }


def make(shape, kind):
    """Matrices of uniform(-1, 1) entries, or symmetric ones ((m + m^T) / 2)."""
    if kind == "matrix":
        return base.rng.uniform(-1.0, 1.0, shape).astype("float32")
    if kind == "symmetric":
        m = base.rng.uniform(-1.0, 1.0, shape)
        return ((m + np.swapaxes(m, -1, -2)) / 2).astype("float32")
    return base_make(shape, kind)


base_make = base.make


def main():
    os.makedirs(OPS_DIR, exist_ok=True)
    base.cases = cases
    base.make = make
    base.OPS_DIR = OPS_DIR
    base.rng = np.random.default_rng(20260439)
    out = base.op_cases()
    for c in out:
        if c["operation"] == "Lstsq":
            # Strata computes no gradient here: TensorFlow's SvdGrad needs the rows when the
            # graph is built, and lstsq's rows are the batch axis (TensorFlow's graph mode
            # raises alike; its eager tape, which made these goldens, knows them).
            c["projection"] = None
            c["input_grads"] = None
    for c in out:
        c["file"] = "tests/data/keras_ops/linalg/%s.keras" % c["name"]
    doc = {
        "generator": {"script": "tests/reference/make_keras_ops_linalg_goldens.py", "keras": base.keras.__version__,
                      "tensorflow": base.tf.__version__, "numpy": np.__version__,
                      "python": platform.python_version(), "backend": "tensorflow"},
        "notes": ["as keras_ops_golden.json's cases; the vectors' signs are TensorFlow's CPU kernels' (Eigen's)"],
        "cases": out,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(out), "cases")


if __name__ == "__main__":
    main()
