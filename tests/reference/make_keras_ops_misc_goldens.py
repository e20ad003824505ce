#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops operations of issue #38
that a functional model saves beside its layers: image quality (PSNR, SSIM), the inverse
STFT (ISTFT), sliding blocks (Unfold, Fold), binning and indices (SearchSorted, Vander,
UnravelIndex), SegmentProd, synchronized Moments and the operations' sparse=True (OneHot,
MultiHot, Bincount, ConvertToTensor: Keras's tf.SparseTensor made dense again by
convert_to_tensor(sparse=False)), ElasticTransform and Polar read by ViewAsReal, one small
functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/misc/<case>.keras   one functional model per operation case
  tests/data/keras_ops_misc_golden.json    per case as keras_ops_golden.json's cases (the
                                           file, the operation, its saved entries, inputs,
                                           Keras's output with its dtype, a projection and
                                           the gradients of sum(output * projection) w.r.t.
                                           the inputs)
tests/io/keras_ops_test.cc runs the cases of every such file alike.

Inputs of rank 1 (the batch axis only: searchsorted's values, vander's x,
unravel_index's indices, segment ids) get 8 rows instead of op_cases' 2, so that each case
sees more than two values, and so do inputs beside them of a kind ending in "/8" (segment
data, scatter indices).

TensorFlow's SSIM differs in the last float32 digits from one machine to the next: the
moments, sparse, elastic and polar cases were appended to the file written first, whose other cases were
kept as they were.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_misc_goldens.py
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

OUT = os.path.join(base.DATA, "keras_ops_misc_golden.json")
OPS_DIR = os.path.join(base.MODELS_DIR, "misc")
ROWS_OF_VECTORS = 8


def cases():
    P = np.float32
    sequence = np.array([-1.0, 0.0, 0.5, 0.5, 1.0, 2.0], P)  # sorted, with a repeated value
    return {
        # image quality: one number for the whole batch (PSNR), one per image (SSIM)
        "psnr": (lambda x: K.psnr(x[0], x[1], 1.0), [("any", (4, 4, 3)), ("any", (4, 4, 3))], "PSNR"),
        "psnr_max_255": (lambda x: K.psnr(x[0], x[1], 255.0), [("positive", (3, 5)), ("positive", (3, 5))], "PSNR"),
        "ssim": (lambda x: K.image.ssim(x[0], x[1]), [("positive", (12, 12, 3)), ("positive", (12, 12, 3))], "SSIM"),
        "ssim_options": (lambda x: K.image.ssim(x[0], x[1], max_val=3.0, filter_size=3, filter_sigma=0.8, k1=0.02,
                                                k2=0.05), [("positive", (6, 7, 2)), ("positive", (6, 7, 2))], "SSIM"),
        "ssim_channels_first": (lambda x: K.image.ssim(x[0], x[1], filter_size=5, data_format="channels_first"),
                                [("positive", (2, 8, 9)), ("positive", (2, 8, 9))], "SSIM"),
        # the inverse STFT of (real, imag) frames (frames, fft_length / 2 + 1)
        "istft": (lambda x: K.istft((x[0], x[1]), 8, 4, 8), [("any", (5, 5)), ("any", (5, 5))], "ISTFT"),
        "istft_hamming_length": (lambda x: K.istft((x[0], x[1]), 6, 2, 8, length=10, window="hamming",
                                                   center=False), [("any", (5, 5)), ("any", (5, 5))], "ISTFT"),
        "istft_no_window": (lambda x: K.istft((x[0], x[1]), 8, 3, 8, window=None), [("any", (6, 5)), ("any", (6, 5))],
                            "ISTFT"),
        "istft_short_frames": (lambda x: K.istft((x[0], x[1]), 6, 4, 8, length=9), [("any", (4, 5)), ("any", (4, 5))],
                               "ISTFT"),
        # sliding blocks of (N, C, H, W) images and their sums back
        "unfold": (lambda x: K.unfold(x[0], 3, padding=1, stride=2), [("any", (2, 6, 6))], "Unfold"),
        "unfold_options": (lambda x: K.unfold(x[0], (2, 3), dilation=(2, 1), padding=(0, 1), stride=(1, 2)),
                           [("any", (3, 7, 6))], "Unfold"),
        "fold": (lambda x: K.fold(x[0], (6, 6), 2, stride=2), [("any", (8, 9))], "Fold"),
        "fold_overlapping": (lambda x: K.fold(x[0], 5, 3, padding=1, stride=2), [("any", (18, 9))], "Fold"),
        "fold_dilation": (lambda x: K.fold(x[0], (5, 6), 2, dilation=2), [("any", (4, 12))], "Fold"),
        # binning and indices
        "searchsorted": (lambda x: K.searchsorted(sequence, x[0]), [("ties", ())], "SearchSorted"),
        "searchsorted_right": (lambda x: K.searchsorted(sequence, x[0], side="right"), [("ties", ())],
                               "SearchSorted"),
        "searchsorted_sequence_input": (lambda x: K.searchsorted(x[0], x[1]), [("sorted", ()), ("ties", ())],
                                        "SearchSorted"),
        "vander": (lambda x: K.vander(x[0], 4), [("any", ())], "Vander"),
        "vander_increasing": (lambda x: K.vander(x[0], 3, increasing=True), [("any", ())], "Vander"),
        "unravel_index_rows": (lambda x: K.unravel_index(x[0], (3, 4))[0], [("flat12", ())], "UnravelIndex"),
        "unravel_index_columns": (lambda x: K.unravel_index(x[0], (3, 4))[1], [("flat12", ())], "UnravelIndex"),
        # indices of rank 2: Keras's TensorFlow backend divides by the shape's sizes first to last
        "unravel_index_matrix": (lambda x: K.unravel_index(x[0], (2, 3, 4))[2], [("flat24", (3,))], "UnravelIndex"),
        # values summed into zeros of a shape at their indices (element indices, then slices)
        "scatter": (lambda x: K.scatter(x[0], x[1], (3, 4)), [("index34/8", (2,)), ("any", ())], "Scatter"),
        "scatter_slices": (lambda x: K.scatter(x[0], x[1], (4, 3)), [("index4/8", (1,)), ("any/8", (3,))],
                           "Scatter"),
        # segments of the batch's rows (ids of 4 classes, 5 segments: the last one empty)
        "segment_prod": (lambda x: K.segment_prod(x[0], x[1], num_segments=5), [("any/8", (3,)), ("labels", ())],
                         "SegmentProd"),
        "segment_prod_zeros": (lambda x: K.segment_prod(x[0], x[1], num_segments=5),
                               [("sparse/8", (3, 4)), ("labels", ())], "SegmentProd"),
        # synchronized moments, outside tf.distribute: one replica's E[x²] − E[x]², at least 0
        "moments_synchronized_variance": (lambda x: K.moments(x[0] + 2.0, axes=[0, 2], synchronized=True)[1],
                                          [("any", (3, 4))], "Moments"),
        "moments_synchronized_mean_keepdims": (lambda x: K.moments(x[0], axes=[1], keepdims=True,
                                                                   synchronized=True)[0], [("any", (5,))], "Moments"),
        # sparse=True: Keras's tf.SparseTensor, made dense by convert_to_tensor(sparse=False)
        # (Strata's tensors are dense throughout)
        "one_hot_sparse": (lambda x: K.convert_to_tensor(K.one_hot(x[0], 5, sparse=True), sparse=False),
                           [("labels", (3,))], "OneHot"),
        "multi_hot_sparse": (lambda x: K.convert_to_tensor(K.multi_hot(x[0], 5, sparse=True), sparse=False),
                             [("labels", (3,))], "MultiHot"),
        "bincount_sparse": (lambda x: K.convert_to_tensor(K.bincount(x[0], minlength=6, sparse=True), sparse=False),
                            [("labels", (4,))], "Bincount"),
        "convert_to_tensor_sparse": (lambda x: K.convert_to_tensor(K.convert_to_tensor(x[0], sparse=True),
                                                                   sparse=False) * 2.0, [("any", (3,))],
                                     "ConvertToTensor"),
        # the elastic deformation: its field TensorFlow's stateless normal draws of [seed, 0] over
        # the (batch, H, W) it is called on
        "elastic_transform": (lambda x: K.image.elastic_transform(x[0], alpha=3.0, sigma=1.5, seed=7),
                              [("any", (9, 8, 2))], "ElasticTransform"),
        "elastic_transform_nearest_constant": (lambda x: K.image.elastic_transform(
            x[0], alpha=2.0, sigma=2.2, interpolation="nearest", fill_mode="constant", fill_value=0.5, seed=123),
            [("any", (7, 7, 1))], "ElasticTransform"),
        "elastic_transform_channels_first_wrap": (lambda x: K.image.elastic_transform(
            x[0], alpha=4.0, sigma=1.0, fill_mode="wrap", seed=2**31 + 5, data_format="channels_first"),
            [("any", (2, 6, 8))], "ElasticTransform"),
        "elastic_transform_nearest_fill": (lambda x: K.image.elastic_transform(
            x[0], alpha=6.0, sigma=3.0, fill_mode="nearest", seed=-4), [("any", (10, 10, 3))], "ElasticTransform"),
        # a complex result read as its (real, imag) pairs
        "polar_view_as_real": (lambda x: K.view_as_real(K.polar(x[0], x[1])), [("positive", (3,)), ("any", (3,))],
                               "Polar"),
        "polar_view_as_real_matrix": (lambda x: K.view_as_real(K.polar(x[0], x[1])),
                                      [("positive", (2, 3)), ("any", (2, 3))], "Polar"),
        # Keras's default sigma 5 on 8 x 8 images: the blur's 31 taps reach beyond the image,
        # and their sum (the kernel's normalization) still counts every one
        "elastic_transform_wide_kernel": (lambda x: K.image.elastic_transform(x[0], alpha=4.0, seed=11),
                                          [("any", (8, 8, 1))], "ElasticTransform"),
    }


def make(shape, kind):
    """make_keras_ops_goldens.py's kinds, 8 rows for vectors, and: values on and between a
    searchsorted sequence's (ties), a sorted vector, flat indices into 12 or 24 elements."""
    if len(shape) == 1 and shape[0] == 2:
        shape = (ROWS_OF_VECTORS,)
    if kind.endswith("/8"):  # as many rows as the vectors beside it
        kind, shape = kind[:-2], (ROWS_OF_VECTORS,) + shape[1:]
    if kind == "ties":
        x = base.rng.uniform(-2.0, 3.0, shape).astype("float32")
        flat = x.reshape(-1)
        flat[:4] = [0.5, -1.0, 2.0, 0.0][: flat.size]
        return x
    if kind == "sorted":
        return np.sort(base.rng.uniform(-2.0, 3.0, shape)).astype("float32")
    if kind == "index34":  # (row, column) pairs into (3, 4), some repeated
        return np.stack([base.rng.integers(0, 3, shape[:-1]), base.rng.integers(0, 4, shape[:-1])], -1).astype("int32")
    if kind == "index4":
        return base.rng.integers(0, 4, shape).astype("int32")
    if kind == "flat12":
        return base.rng.integers(0, 12, shape).astype("int32")
    if kind == "flat24":
        return base.rng.integers(0, 24, shape).astype("int32")
    return base_make(shape, kind)


base_make = base.make
INT_KINDS = base.INT_KINDS + ("flat12", "flat24", "index34/8", "index4/8")


def main():
    os.makedirs(OPS_DIR, exist_ok=True)
    base.cases = cases
    base.make = make
    base.INT_KINDS = INT_KINDS
    base.OPS_DIR = OPS_DIR
    base.rng = np.random.default_rng(20260439)
    out = base.op_cases()
    for c in out:
        c["file"] = "tests/data/keras_ops/misc/%s.keras" % c["name"]
    doc = {
        "generator": {"script": "tests/reference/make_keras_ops_misc_goldens.py", "keras": base.keras.__version__,
                      "tensorflow": base.tf.__version__, "numpy": np.__version__,
                      "python": platform.python_version(), "backend": "tensorflow"},
        "notes": ["as keras_ops_golden.json's cases; an output's dtype is Keras's (int32 or int64 where "
                  "it has one)"],
        "cases": out,
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(out), "cases")


if __name__ == "__main__":
    main()
