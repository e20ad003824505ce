#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for more keras.ops operations of
issue #38 (products, special functions, membership, casts and segment reductions: Dot, Kron,
Digitize, Erfinv, I0, Ldexp, Nextafter, Corrcoef, IsIn, SaturateCast, SegmentSum, SegmentMax,
SegmentMin), one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that neither file's cases change the other's inputs, and writes
  tests/data/keras_ops/more/<case>.keras   one functional model per operation case
  tests/data/keras_ops_more_golden.json    per case as keras_ops_golden.json's cases (the
                                           file, the operation, its saved entries, inputs,
                                           Keras's output, a projection and the gradients of
                                           sum(output * projection) w.r.t. the inputs)
tests/io/keras_ops_test.cc runs the cases of both files alike.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_more_goldens.py
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

OUT = os.path.join(base.DATA, "keras_ops_more_golden.json")
OPS_DIR = os.path.join(base.MODELS_DIR, "more")


def cases():
    P = np.float32
    constants = np.random.default_rng(20260438)

    def W(*shape):
        return constants.uniform(-1.0, 1.0, shape).astype(P)

    return {
        "dot_matrix": (lambda x: K.dot(x[0], W(4, 5)), ["any"], "Dot"),
        "dot_vector": (lambda x: K.dot(x[0], W(4)), ["any"], "Dot"),
        "dot_inputs": (lambda x: K.dot(x[0], x[1]), [("any", (2, 3)), ("any", (3, 2))], "Dot"),
        "kron_constant": (lambda x: K.kron(x[0], W(2, 3)), [("any", (2, 3))], "Kron"),
        "kron_lower_rank": (lambda x: K.kron(x[0], W(2)), ["any"], "Kron"),
        "kron_inputs": (lambda x: K.kron(x[0], x[1]), [("any", (2,)), ("any", (3,))], "Kron"),
        "digitize": (lambda x: K.digitize(x[0], np.array([-1.5, -0.5, 0.0, 0.7, 2.0], P)), ["any"], "Digitize"),
        "erfinv": (lambda x: K.erfinv(x[0]), ["unit"], "Erfinv"),
        "i0": (lambda x: K.i0(x[0]), ["any"], "I0"),
        "i0_both_series": (lambda x: K.i0(x[0] * 6.0), ["any"], "I0"),  # |x| up to 15: past 12, the asymptotic one
        "erfinv_tail": (lambda x: K.erfinv(x[0] * 0.0011 + 0.9978), ["unit"], "Erfinv"),  # Giles's tail branch
        "ldexp": (lambda x: K.ldexp(x[0], x[1]), ["any", "positions"], "Ldexp"),
        "nextafter": (lambda x: K.nextafter(x[0], x[1]), ["any", "any"], "Nextafter"),
        "corrcoef": (lambda x: K.corrcoef(x[0]), [("any", (5,))], "Corrcoef"),
        "isin": (lambda x: K.isin(x[0], np.array([1, 3, -2, 0], "int32")), ["positions"], "IsIn"),
        "isin_invert": (lambda x: K.isin(x[0], x[1], invert=True), ["positions", ("positions", (3,))], "IsIn"),
        "saturate_cast_int32": (lambda x: K.saturate_cast(x[0] * 1e9, "int32"), ["any"], "SaturateCast"),
        "saturate_cast_int64": (lambda x: K.saturate_cast(x[0] * 4e18, "int64"), ["any"], "SaturateCast"),
        "saturate_cast_float32": (lambda x: K.saturate_cast(x[0], "float32"), ["any"], "SaturateCast"),
        # linear algebra on (3, 3) matrices: well conditioned (a random matrix plus 3 I), symmetric
        # positive definite (M M^T + I), or either whose one triangle only is read
        "inv": (lambda x: K.linalg.inv(x[0]), [("wellcond", (3, 3))], "Inv"),
        "det": (lambda x: K.linalg.det(x[0]), [("any", (3, 3))], "Det"),
        "det_4": (lambda x: K.linalg.det(x[0]), [("wellcond", (4, 4))], "Det"),
        "solve": (lambda x: K.linalg.solve(x[0], x[1]), [("wellcond", (3, 3)), ("any", (3, 2))], "Solve"),
        "solve_vector": (lambda x: K.linalg.solve(x[0], x[1]), [("wellcond", (3, 3)), ("any", (3,))], "Solve"),
        "solve_triangular_lower": (lambda x: K.linalg.solve_triangular(x[0], x[1], lower=True),
                                   [("wellcond", (3, 3)), ("any", (3, 2))], "SolveTriangular"),
        "solve_triangular_upper_vector": (lambda x: K.linalg.solve_triangular(x[0], x[1]),
                                          [("wellcond", (3, 3)), ("any", (3,))], "SolveTriangular"),
        "cholesky": (lambda x: K.linalg.cholesky(x[0]), [("spd", (3, 3))], "Cholesky"),
        "cholesky_upper": (lambda x: K.linalg.cholesky(x[0], upper=True), [("spd", (4, 4))], "Cholesky"),
        "cholesky_inverse": (lambda x: K.linalg.cholesky_inverse(x[0]), [("wellcond", (3, 3))], "CholeskyInverse"),
        "cholesky_inverse_upper": (lambda x: K.linalg.cholesky_inverse(x[0], upper=True), [("wellcond", (3, 3))],
                                   "CholeskyInverse"),
        "slogdet_sign": (lambda x: K.slogdet(x[0])[0], [("any", (3, 3))], "Slogdet"),
        "slogdet_logabsdet": (lambda x: K.slogdet(x[0])[1], [("any", (3, 3))], "Slogdet"),
        "logdet": (lambda x: K.logdet(x[0]), [("spd", (3, 3))], "Logdet"),
        "slice_update": (lambda x: K.slice_update(x[0], (0, 1, 2), x[1]), ["any", ("any", (2, 2))], "SliceUpdate"),
        # segments of the batch's rows (ids of 4 classes, 5 segments: the last one empty)
        "segment_sum": (lambda x: K.segment_sum(x[0], x[1], num_segments=5), ["any", ("labels", ())], "SegmentSum"),
        "segment_max": (lambda x: K.segment_max(x[0], x[1], num_segments=5), ["distinct", ("labels", ())],
                        "SegmentMax"),
        "segment_min": (lambda x: K.segment_min(x[0], x[1], num_segments=5), [("distinct", (4,)), ("labels", ())],
                        "SegmentMin"),
    }


def make(shape, kind):
    """make_keras_ops_goldens.py's kinds, and matrices: well conditioned (a random matrix plus
    3 I) or symmetric positive definite (M M^T + I)."""
    if kind == "wellcond":
        return (base.rng.uniform(-1.0, 1.0, shape) + 3.0 * np.eye(shape[-1])).astype("float32")
    if kind == "spd":
        m = base.rng.uniform(-1.0, 1.0, shape)
        return (m @ np.swapaxes(m, -1, -2) + np.eye(shape[-1])).astype("float32")
    return base_make(shape, kind)


base_make = base.make


def main():
    os.makedirs(OPS_DIR, exist_ok=True)
    base.cases = cases
    base.make = make
    base.OPS_DIR = OPS_DIR
    base.rng = np.random.default_rng(20260438)
    out = base.op_cases()
    for c in out:
        c["file"] = "tests/data/keras_ops/more/%s.keras" % c["name"]
    doc = {
        "generator": {"script": "tests/reference/make_keras_ops_more_goldens.py", "keras": base.keras.__version__,
                      "tensorflow": base.tf.__version__, "numpy": np.__version__,
                      "python": platform.python_version(), "backend": "tensorflow"},
        "notes": ["as keras_ops_golden.json's cases"],
        "cases": out,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(out), "cases")


if __name__ == "__main__":
    main()
