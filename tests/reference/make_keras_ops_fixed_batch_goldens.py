#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for the keras.ops that Keras 3.15
computes in a functional model only when the batch size is known (issue #38): rearrange
(einops' notation; its shape computation multiplies the sizes, None among them), correlate
of two vectors (1-D tensors: their one axis is the batch), lu_factor of one matrix (its rows
the batch: TensorFlow's invert_permutation takes one permutation, not a batch of them), and
ndim. Each case's model takes inputs of a fixed batch size (keras.Input(batch_size=...)).

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/fixed_batch/<case>.keras   one functional model per case
  tests/data/keras_ops_fixed_batch_golden.json    per case as keras_ops_golden.json's cases,
                                                  plus "batch_size"
tests/io/keras_ops_test.cc runs the cases of every such file alike.

What Keras 3.15.1 computes:
- rearrange(x, pattern, **lengths): a reshape into the input's elementary axes (a group's
  one axis not given a length is the group's size // the others'), a transpose into the
  output's order, a reshape into its groups.
- correlate(a, v, mode): NumPy's correlate of real vectors, by tf.nn.conv1d of a padded by
  len(v) - 1 on both sides ('full', length n + m - 1), the middle max(n, m) of that from
  (n + m - 1 - max(n, m)) // 2 ('same'), or unpadded ('valid', n - m + 1; m <= n).
- lu_factor(a): tf.linalg.lu's packed factors (L's unit diagonal not stored) and
  invert_permutation of its permutation, int32.
- ndim(x): x's rank, an int32 scalar.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_fixed_batch_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
from keras import ops as K  # noqa: E402


def cases():
    R = K.rearrange
    return {
        "rearrange_transpose": (lambda x: R(x[0], "b h w -> b w h"), [("any", (3, 4))], "Rearrange", 2),
        "rearrange_split_an_axis": (lambda x: R(x[0], "b (h w) -> b h w", h=2), [("any", (6,))], "Rearrange", 2),
        "rearrange_infers_a_length": (lambda x: R(x[0], "b (h w) c -> b c h w", w=3), [("any", (6, 2))],
                                      "Rearrange", 2),
        "rearrange_merge_into_the_batch": (lambda x: R(x[0], "b h w -> (b h) w"), [("any", (3, 4))], "Rearrange", 2),
        "rearrange_flatten": (lambda x: R(x[0], "b h w c -> b (c h w)"), [("any", (2, 3, 2))], "Rearrange", 2),
        "rearrange_space_to_depth": (lambda x: R(x[0], "b (h h1) (w w1) c -> b h w (c h1 w1)", h1=2, w1=2),
                                     [("any", (4, 6, 3))], "Rearrange", 2),
        "rearrange_patches_into_the_batch": (lambda x: R(x[0], "b (h1 h) (w1 w) c -> (b h1 w1) h w c", h1=2, w1=3),
                                             [("any", (4, 6, 1))], "Rearrange", 2),
        "rearrange_batch_across": (lambda x: R(x[0], "b h w -> h (b w)"), [("any", (3, 2))], "Rearrange", 3),
        "correlate_full": (lambda x: K.correlate(x[0], x[1], mode="full"), [("any", ()), ("any", ())],
                           "Correlate", 5),
        "correlate_valid_by_default": (lambda x: K.correlate(x[0], x[1]), [("any", ()), ("any", ())], "Correlate", 5),
        "correlate_valid_shorter": (lambda x: K.correlate(x[0], K.slice(x[1], [0], [3]), mode="valid"), [("any", ()), ("any", ())],
                                    "Correlate", 5),
        "correlate_same_shorter": (lambda x: K.correlate(x[0], K.slice(x[1], [1], [2]), mode="same"), [("any", ()), ("any", ())],
                                   "Correlate", 5),
        "correlate_same_longer": (lambda x: K.correlate(K.slice(x[0], [2], [3]), x[1], mode="same"), [("any", ()), ("any", ())],
                                  "Correlate", 6),
        "correlate_full_longer": (lambda x: K.correlate(K.slice(x[0], [0], [2]), x[1], mode="full"), [("any", ()), ("any", ())],
                                  "Correlate", 5),
        "lu_factor": (lambda x: K.lu_factor(x[0])[0], [("any", (4,))], "LuFactor", 4),
        "lu_factor_pivots": (lambda x: K.lu_factor(x[0])[1], [("any", (4,))], "LuFactor", 4),
        "lu_factor_3": (lambda x: K.lu_factor(x[0])[0], [("any", (3,))], "LuFactor", 3),
        "lu_factor_3_pivots": (lambda x: K.lu_factor(x[0])[1], [("any", (3,))], "LuFactor", 3),
        "ndim": (lambda x: K.ndim(x[0]), [("any", (3, 4))], "Ndim", 2),
        "ndim_of_a_vector": (lambda x: K.ndim(x[0]), [("any", ())], "Ndim", 2),
    }


def main():
    base.write_case_file("tests/reference/make_keras_ops_fixed_batch_goldens.py", "fixed_batch",
                         "keras_ops_fixed_batch_golden.json", cases, 20261202,
                         ["as keras_ops_golden.json's cases; batch_size: the inputs' fixed batch size"])


if __name__ == "__main__":
    main()
