#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for the keras.ops operations of
issue #38 "Operations missing": the issue's two models, and one small functional model per
operation.

Writes
  tests/data/keras_ops/causal_transformer.{keras,h5}  a Transformer block whose positions and
                                                      causal mask come from ops.cumsum of
                                                      ops.ones_like (Cumsum, OnesLike)
  tests/data/keras_ops/masked_mean.{keras,h5}         a masked mean over time, the mask
                                                      ops.any(ops.not_equal(x, 0), -1)
  tests/data/keras_ops/<model>.input0.npy / .output0.npy   inputs and Keras's predictions
  tests/data/keras_ops/ops/<case>.keras               one functional model per operation case
  tests/data/keras_ops_golden.json                    per case: the file, the operation, its
                                                      saved entries, inputs, Keras's output,
                                                      a projection and the gradients of
                                                      sum(output * projection) w.r.t. the
                                                      inputs (TF GradientTape; null where the
                                                      output is not float: no gradient)

Inputs are seeded and kept away from the kinks of the operations (floor's steps, hard
sigmoid's corners): the gradients compared are those of the smooth parts. Rounding cases
hold halves on purpose (round is half to even in Keras).

The C++ suite reads the files; it never runs Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_goldens.py
"""
import json
import os
import platform
import re
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402
from keras import ops as K  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import arr, jsonable  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "keras_ops_golden.json")
MODELS_DIR = os.path.join(DATA, "keras_ops")
OPS_DIR = os.path.join(MODELS_DIR, "ops")
rng = np.random.default_rng(20260038)


# ------------------------------------------------------------------ inputs by domain
def away_from(x, points, gap):
    """x with every element within gap of one of points moved gap away from it."""
    for p in points:
        near = np.abs(x - p) < gap
        x = np.where(near, p + np.where(x >= p, gap, -gap), x)
    return x.astype("float32")


def make(shape, kind):
    if kind == "any":  # smooth everywhere asked: away from 0 and +-1 (shrink, clip, sparse kinks)
        return away_from(rng.uniform(-2.5, 2.5, shape), [0.0, 1.0, -1.0, 0.3, -0.3, 3.0, -3.0], 0.05)
    if kind == "unit":  # inside (-1, 1): arcsin, arccos, arctanh
        return rng.uniform(-0.9, 0.9, shape).astype("float32")
    if kind == "above1":  # arccosh
        return rng.uniform(1.1, 4.0, shape).astype("float32")
    if kind == "positive":
        return rng.uniform(0.2, 3.0, shape).astype("float32")
    if kind == "halves":  # rounding: halves of both parities, and values off the steps
        x = away_from(rng.uniform(-4.0, 4.0, shape), list(np.arange(-4.0, 4.5, 0.5)), 0.05)
        flat = x.reshape(-1)
        halves = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, -3.5]
        flat[: len(halves)] = halves
        return flat.reshape(shape)
    if kind == "steps":  # floor / ceil / trunc / floor_divide / mod: away from the steps
        return away_from(rng.uniform(-5.0, 5.0, shape), list(np.arange(-6.0, 7.0, 1.0)), 0.05)
    if kind == "sparse":  # rows with zeros: any / all / count_nonzero / logical ops
        x = rng.uniform(-2.0, 2.0, shape).astype("float32")
        x[rng.uniform(size=shape) < 0.4] = 0.0
        x[..., 0, :] = 0.0  # a row of zeros only
        return x
    if kind == "distinct":  # argmax / argmin / sort-like: no ties
        n = int(np.prod(shape))
        return (rng.permutation(n).reshape(shape).astype("float32") - n / 2) / 4.0
    if kind == "classes":  # one_hot / multi_hot: int32 classes of 5, and -1 and 5 (outside: no 1)
        x = rng.integers(0, 5, shape).astype("int32")
        x.reshape(-1)[:2] = [-1, 5]
        return x
    if kind == "positions":  # take_along_axis into an axis of 4, negative ones from the end
        return rng.integers(-4, 4, shape).astype("int32")
    if kind == "not_row0":  # take_along_axis into an axis of 3, never its first row
        return rng.choice([1, 2, -1, -2], shape).astype("int32")
    if kind == "specials":  # zeros of both signs, for signbit, sinc, heaviside, divide_no_nan
        x = away_from(rng.uniform(-2.5, 2.5, shape), [0.0], 0.05)
        flat = x.reshape(-1)
        flat[:4] = [0.0, -0.0, 0.0, -0.0]
        return flat.reshape(shape)
    if kind == "nan_marks":  # negative where nan_at (below) makes a NaN: never a whole row or column
        x = rng.uniform(0.2, 1.0, shape).astype("float32")
        for at in [(0, 0, 1), (0, 2, 3), (1, 1, 0), (1, 1, 2), (1, 2, 2)]:
            x[at] = -1.0
        return x
    if kind == "probs":  # probabilities and targets away from 0 and 1 (the cross-entropies' clips)
        return rng.uniform(0.05, 0.95, shape).astype("float32")
    if kind == "affine":  # affine transforms near the identity, shifted and sheared a little
        base = np.array([1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0], "float32")
        jitter = rng.uniform(-0.3, 0.3, shape).astype("float32") * np.array([1, 1, 3, 1, 1, 3, 0, 0], "float32")
        return (base + jitter).astype("float32")
    if kind == "labels":  # sparse labels of 4 classes
        return rng.integers(0, 4, shape).astype("int32")
    raise ValueError(kind)


def nan_at(x, marks):
    """x with NaN where marks < 0 (sqrt(m) - sqrt(m) is 0 elsewhere), made inside the model:
    JSON holds no NaN. No gradient reaches marks."""
    m = K.stop_gradient(marks)
    return x + (K.sqrt(m) - K.sqrt(m))


# --------------------------------------------------------------- the operation cases
# name -> (function of the inputs, input kinds (one per input, shape (3, 4) each unless
# given as (kind, shape)), operation class the case is for)
def cases():
    P = np.float32
    kernels = np.random.default_rng(20260338)

    def W(*shape):
        return kernels.uniform(-1.0, 1.0, shape).astype(P)

    return {
        # elementwise math
        "sin": (lambda x: K.sin(x[0]), ["any"], "Sin"),
        "cos": (lambda x: K.cos(x[0]), ["any"], "Cos"),
        "tan": (lambda x: K.tan(x[0]), ["unit"], "Tan"),
        "arcsin": (lambda x: K.arcsin(x[0]), ["unit"], "Arcsin"),
        "arccos": (lambda x: K.arccos(x[0]), ["unit"], "Arccos"),
        "arctan": (lambda x: K.arctan(x[0]), ["any"], "Arctan"),
        "sinh": (lambda x: K.sinh(x[0]), ["any"], "Sinh"),
        "cosh": (lambda x: K.cosh(x[0]), ["any"], "Cosh"),
        "arcsinh": (lambda x: K.arcsinh(x[0]), ["any"], "Arcsinh"),
        "arccosh": (lambda x: K.arccosh(x[0]), ["above1"], "Arccosh"),
        "arctanh": (lambda x: K.arctanh(x[0]), ["unit"], "Arctanh"),
        "log1p": (lambda x: K.log1p(x[0]), ["unit"], "Log1p"),
        "expm1": (lambda x: K.expm1(x[0]), ["any"], "Expm1"),
        "log2": (lambda x: K.log2(x[0]), ["positive"], "Log2"),
        "log10": (lambda x: K.log10(x[0]), ["positive"], "Log10"),
        "exp2": (lambda x: K.exp2(x[0]), ["any"], "Exp2"),
        "floor": (lambda x: K.floor(x[0]), ["steps"], "Floor"),
        "ceil": (lambda x: K.ceil(x[0]), ["steps"], "Ceil"),
        "trunc": (lambda x: K.trunc(x[0]), ["steps"], "Trunc"),
        "round": (lambda x: K.round(x[0]), ["halves"], "Round"),
        "mod_const": (lambda x: K.mod(x[0], 2.0), ["steps"], "Mod"),
        "mod_tensor": (lambda x: K.mod(x[0], x[1]), ["steps", "positive"], "Mod"),
        "floor_divide_const": (lambda x: K.floor_divide(x[0], 2.0), ["steps"], "FloorDivide"),
        "reciprocal": (lambda x: K.reciprocal(x[0]), ["positive"], "Reciprocal"),
        "rsqrt": (lambda x: K.rsqrt(x[0]), ["positive"], "Rsqrt"),
        "erf": (lambda x: K.erf(x[0]), ["any"], "Erf"),
        "deg2rad": (lambda x: K.deg2rad(x[0]), ["any"], "Deg2rad"),
        "rad2deg": (lambda x: K.rad2deg(x[0]), ["any"], "Rad2deg"),
        "logaddexp": (lambda x: K.logaddexp(x[0], x[1]), ["any", "any"], "Logaddexp"),
        "stop_gradient": (lambda x: K.stop_gradient(x[0]), ["any"], "StopGradient"),
        # reductions
        "prod_axis1": (lambda x: K.prod(x[0], axis=1), ["any"], "Prod"),
        "prod_axes_keepdims": (lambda x: K.prod(x[0], axis=(1, 2), keepdims=True), [("any", (2, 3))], "Prod"),
        "any_last": (lambda x: K.any(x[0], axis=-1), ["sparse"], "Any"),
        "all_axis1_keepdims": (lambda x: K.all(x[0], axis=1, keepdims=True), ["sparse"], "All"),
        "argmax_last": (lambda x: K.argmax(x[0], axis=-1), ["distinct"], "Argmax"),
        "argmin_axis1_keepdims": (lambda x: K.argmin(x[0], axis=1, keepdims=True), ["distinct"], "Argmin"),
        "std_axis1": (lambda x: K.std(x[0], axis=1), ["any"], "Std"),
        "var_last_keepdims": (lambda x: K.var(x[0], axis=-1, keepdims=True), ["any"], "Var"),
        "logsumexp_last": (lambda x: K.logsumexp(x[0], axis=-1), ["any"], "Logsumexp"),
        "amax_axis1": (lambda x: K.amax(x[0], axis=1), ["distinct"], "Amax"),
        "amin_last": (lambda x: K.amin(x[0], axis=-1), ["distinct"], "Amin"),
        "count_nonzero_last": (lambda x: K.count_nonzero(x[0], axis=-1), ["sparse"], "CountNonzero"),
        # logical
        "logical_or": (lambda x: K.logical_or(x[0], x[1]), ["sparse", "sparse"], "LogicalOr"),
        "logical_not": (lambda x: K.logical_not(x[0]), ["sparse"], "LogicalNot"),
        "logical_xor": (lambda x: K.logical_xor(x[0], x[1]), ["sparse", "sparse"], "LogicalXor"),
        # shapes and scans
        "tile": (lambda x: K.tile(x[0], (1, 2, 3)), ["any"], "Tile"),
        "repeat_axis1": (lambda x: K.repeat(x[0], 2, axis=1), ["any"], "Repeat"),
        "repeat_last": (lambda x: K.repeat(x[0], 3, axis=-1), ["any"], "Repeat"),
        "flip_axis1": (lambda x: K.flip(x[0], axis=1), ["any"], "Flip"),
        "flip_axes": (lambda x: K.flip(x[0], axis=(1, 2)), ["any"], "Flip"),
        "roll_last": (lambda x: K.roll(x[0], 1, axis=-1), ["any"], "Roll"),
        "roll_axis1_negative": (lambda x: K.roll(x[0], -4, axis=1), ["any"], "Roll"),
        "cumsum_axis1": (lambda x: K.cumsum(x[0], axis=1), ["any"], "Cumsum"),
        "cumsum_last": (lambda x: K.cumsum(x[0], axis=-1), ["any"], "Cumsum"),
        "cumprod_axis1": (lambda x: K.cumprod(x[0], axis=1), ["any"], "Cumprod"),
        "cumprod_last": (lambda x: K.cumprod(x[0], axis=-1), ["any"], "Cumprod"),
        "moveaxis": (lambda x: K.moveaxis(x[0], 1, 2), [("any", (3, 4, 2))], "Moveaxis"),
        "swapaxes": (lambda x: K.swapaxes(x[0], 1, 2), ["any"], "Swapaxes"),
        "take_axis1": (lambda x: K.take(x[0], np.array([2, 0, 2]), axis=1), ["any"], "Take"),
        "take_last_negative": (lambda x: K.take(x[0], np.array([-1, 1]), axis=-1), ["any"], "Take"),
        "tril": (lambda x: K.tril(x[0]), ["any"], "Tril"),
        "triu_k1": (lambda x: K.triu(x[0], k=1), ["any"], "Triu"),
        # nn
        "softplus": (lambda x: K.softplus(x[0]), ["any"], "Softplus"),
        "softsign": (lambda x: K.softsign(x[0]), ["any"], "Softsign"),
        "log_softmax_axis1": (lambda x: K.log_softmax(x[0], axis=1), ["any"], "LogSoftmax"),
        "elu_alpha": (lambda x: K.elu(x[0], alpha=0.5), ["any"], "Elu"),
        "selu": (lambda x: K.selu(x[0]), ["any"], "Selu"),
        "leaky_relu": (lambda x: K.leaky_relu(x[0], negative_slope=0.1), ["any"], "LeakyRelu"),
        "hard_sigmoid": (lambda x: K.hard_sigmoid(x[0]), ["any"], "HardSigmoid"),
        "hard_silu": (lambda x: K.hard_silu(x[0]), ["any"], "HardSilu"),
        "celu_alpha": (lambda x: K.celu(x[0], alpha=2.0), ["any"], "Celu"),
        "glu": (lambda x: K.glu(x[0]), ["any"], "Glu"),
        "hard_tanh": (lambda x: K.hard_tanh(x[0]), ["any"], "HardTanh"),
        "hard_shrink": (lambda x: K.hard_shrink(x[0], threshold=0.3), ["any"], "HardShrink"),
        "soft_shrink": (lambda x: K.soft_shrink(x[0], threshold=0.3), ["any"], "SoftShrink"),
        "log_sigmoid": (lambda x: K.log_sigmoid(x[0]), ["any"], "LogSigmoid"),
        "squareplus": (lambda x: K.squareplus(x[0], b=2.0), ["any"], "Squareplus"),
        "tanh_shrink": (lambda x: K.tanh_shrink(x[0]), ["any"], "TanhShrink"),
        "sparse_plus": (lambda x: K.sparse_plus(x[0]), ["any"], "SparsePlus"),
        "sparse_sigmoid": (lambda x: K.sparse_sigmoid(x[0]), ["any"], "SparseSigmoid"),
        "sparsemax": (lambda x: K.sparsemax(x[0]), ["any"], "Sparsemax"),
        # issue #38's second batch: indexing, slicing, splitting, padding, masks, gathers,
        # products, encodings (int32 inputs: "classes", "positions")
        "get_item_ellipsis": (lambda x: x[0][..., 0], [("any", (3, 4, 2))], "GetItem"),
        "get_item_newaxis": (lambda x: x[0][:, None, 1:3], ["any"], "GetItem"),
        "get_item_ellipsis_newaxis_step": (lambda x: x[0][..., None, ::-2], ["any"], "GetItem"),
        "get_item_negative": (lambda x: x[0][:, -1, -3:], ["any"], "GetItem"),
        "slice": (lambda x: K.slice(x[0], (0, 1, 0), (-1, 2, 3)), ["any"], "Slice"),
        "split_sections": (lambda x: K.split(x[0], 2, axis=-1)[1], ["any"], "Split"),
        "split_indices": (lambda x: K.split(x[0], [1, 3], axis=-1)[2], ["any"], "Split"),
        "array_split": (lambda x: K.array_split(x[0], 3, axis=-1)[0], ["any"], "ArraySplit"),
        "unstack_axis1": (lambda x: K.unstack(x[0], axis=1)[2], ["any"], "Unstack"),
        "pad_constant": (lambda x: K.pad(x[0], ((0, 0), (1, 2), (0, 1)), constant_values=2.0), ["any"], "Pad"),
        "pad_zeros": (lambda x: K.pad(x[0], ((0, 0), (2, 0), (1, 1))), ["any"], "Pad"),
        "pad_reflect": (lambda x: K.pad(x[0], ((0, 0), (1, 2), (3, 1)), mode="reflect"), ["any"], "Pad"),
        "pad_symmetric": (lambda x: K.pad(x[0], ((0, 0), (2, 3), (0, 2)), mode="symmetric"), ["any"], "Pad"),
        "tril_k_negative": (lambda x: K.tril(x[0], k=-1), [("any", (2, 3, 4))], "Tril"),
        "triu_rank4": (lambda x: K.triu(x[0]), [("any", (2, 4, 3))], "Triu"),
        "take_along_axis_last": (lambda x: K.take_along_axis(x[0], x[1], axis=-1), ["any", ("positions", (3, 6))],
                                 "TakeAlongAxis"),
        "take_along_axis_broadcast": (lambda x: K.take_along_axis(x[0], x[1], axis=1),
                                      [("any", (4, 3)), ("positions", (2, 1))], "TakeAlongAxis"),
        "broadcast_to": (lambda x: K.broadcast_to(x[0], (2, 3, 4)), [("any", (1, 4))], "BroadcastTo"),
        "matmul_batched": (lambda x: K.matmul(x[0], x[1]), [("any", (2, 3, 4)), ("any", (2, 4, 5))], "Matmul"),
        "matmul_broadcast": (lambda x: K.matmul(x[0], x[1]), [("any", (2, 3, 4)), ("any", (1, 4, 5))], "Matmul"),
        "einsum_attention": (lambda x: K.einsum("bij,bkj->bik", x[0], x[1]), ["any", ("any", (5, 4))], "Einsum"),
        "einsum_implicit": (lambda x: K.einsum("bji", x[0]), ["any"], "Einsum"),  # "bij": a transpose
        "einsum_reduce": (lambda x: K.einsum("bij->bj", x[0]), ["any"], "Einsum"),
        "tensordot_lists": (lambda x: K.tensordot(x[0], x[1], axes=[[2], [2]]), ["any", ("any", (5, 4))], "Tensordot"),
        "inner": (lambda x: K.inner(x[0], x[1]), ["any", ("any", (5, 4))], "Inner"),
        "outer": (lambda x: K.outer(x[0], x[1]), [("any", (3,)), ("any", (2,))], "Outer"),
        "one_hot": (lambda x: K.one_hot(x[0], 5), ["classes"], "OneHot"),
        "one_hot_axis1": (lambda x: K.one_hot(x[0], 5, axis=1), ["classes"], "OneHot"),
        "multi_hot": (lambda x: K.multi_hot(x[0], 5), ["classes"], "MultiHot"),
        # elementwise
        "arctan2": (lambda x: K.arctan2(x[0], x[1]), ["any", "any"], "Arctan2"),
        "hypot": (lambda x: K.hypot(x[0], x[1]), ["any", "any"], "Hypot"),
        "fmod": (lambda x: K.fmod(x[0], x[1]), ["steps", "positive"], "Fmod"),
        "fmax": (lambda x: K.fmax(x[0], K.log(x[1])), ["any", "any"], "Fmax"),
        "fmin": (lambda x: K.fmin(K.log(x[0]), x[1]), ["any", "any"], "Fmin"),
        "heaviside": (lambda x: K.heaviside(x[0], x[1]), ["specials", "any"], "Heaviside"),
        "divide_no_nan": (lambda x: K.divide_no_nan(x[0], x[1]), ["any", "specials"], "DivideNoNan"),
        # NaN and infinities made inside the model (JSON holds neither), with no gradient
        # through them (Keras's would be NaN: 0 · 1/0)
        "nan_to_num": (lambda x: K.nan_to_num(x[0] + K.log(K.stop_gradient(x[1]))), ["any", "specials"], "NanToNum"),
        "nan_to_num_values": (lambda x: K.nan_to_num(x[0] + K.reciprocal(K.stop_gradient(x[1])), nan=1.5, posinf=7.0,
                                                     neginf=-9.0), ["any", "specials"], "NanToNum"),
        "isnan": (lambda x: K.isnan(K.log(x[0])), ["specials"], "Isnan"),
        "isinf": (lambda x: K.isinf(K.log(x[0])), ["specials"], "Isinf"),
        "isfinite": (lambda x: K.isfinite(K.log(x[0])), ["specials"], "Isfinite"),
        "isneginf": (lambda x: K.isneginf(K.log(x[0])), ["specials"], "Isneginf"),
        "isposinf": (lambda x: K.isposinf(K.reciprocal(x[0])), ["specials"], "Isposinf"),
        "signbit": (lambda x: K.signbit(x[0]), ["specials"], "Signbit"),
        "cbrt": (lambda x: K.cbrt(x[0]), ["any"], "Cbrt"),
        "erfc": (lambda x: K.erfc(x[0]), ["any"], "Erfc"),
        "sinc": (lambda x: K.sinc(x[0]), ["any"], "Sinc"),
        "sinc_at_zero": (lambda x: K.sinc(x[0]), ["specials"], "Sinc"),  # Keras's gradient there: NaN
        "fabs": (lambda x: K.fabs(x[0]), ["any"], "Fabs"),
        "logaddexp2": (lambda x: K.logaddexp2(x[0], x[1]), ["any", "any"], "Logaddexp2"),
        "copy": (lambda x: K.copy(x[0]), ["any"], "Copy"),
        "convert_to_tensor": (lambda x: K.convert_to_tensor(x[0]), ["any"], "ConvertToTensor"),
        "threshold": (lambda x: K.threshold(x[0], 0.5, -2.0), ["any"], "Threshold"),
        "isclose": (lambda x: K.isclose(x[0], x[0] + x[1] * 1e-4, rtol=1e-4, atol=1e-5), ["any", "any"], "Isclose"),
        # reductions and axes
        "moments_mean": (lambda x: K.moments(x[0], axes=[1])[0], ["any"], "Moments"),
        "moments_variance_keepdims": (lambda x: K.moments(x[0], axes=[1, 2], keepdims=True)[1], ["any"], "Moments"),
        "normalize": (lambda x: K.normalize(x[0], axis=-1), ["any"], "Normalize"),
        "normalize_order1": (lambda x: K.normalize(x[0], axis=1, order=1), ["any"], "Normalize"),
        "ptp": (lambda x: K.ptp(x[0], axis=1), ["distinct"], "Ptp"),
        "trace": (lambda x: K.trace(x[0], axis1=1, axis2=2), ["any"], "Trace"),
        "trace_offset": (lambda x: K.trace(x[0], offset=1, axis1=1, axis2=2), ["any"], "Trace"),
        "diagonal_offset": (lambda x: K.diagonal(x[0], offset=1, axis1=1, axis2=2), ["any"], "Diagonal"),
        "diagonal_negative": (lambda x: K.diagonal(x[0], offset=-1, axis1=2, axis2=1), [("any", (3, 4, 2))],
                              "Diagonal"),
        "empty_like": (lambda x: K.empty_like(x[0]) * 0.0 + x[0], ["any"], "EmptyLike"),
        "ravel": (lambda x: K.ravel(x[0]), ["any"], "Ravel"),
        "size": (lambda x: x[0] / K.cast(K.size(x[0]), "float32"), ["any"], "Size"),
        "hstack": (lambda x: K.hstack([x[0], x[1]]), ["any", ("any", (2, 4))], "Hstack"),
        "vstack": (lambda x: K.vstack([x[0], x[1]]), ["any", "any"], "Vstack"),
        "dstack": (lambda x: K.dstack([x[0], x[1]]), ["any", "any"], "Dstack"),
        "fliplr": (lambda x: K.fliplr(x[0]), ["any"], "Fliplr"),
        "flipud": (lambda x: K.flipud(x[0]), ["any"], "Flipud"),
        "sort_last": (lambda x: K.sort(x[0], axis=-1), ["distinct"], "Sort"),
        "sort_axis1": (lambda x: K.sort(x[0], axis=1), ["distinct"], "Sort"),
        "sort_ties": (lambda x: K.sort(K.round(x[0]), axis=-1) * x[1], ["halves", "any"], "Sort"),
        "argsort_last": (lambda x: K.argsort(x[0], axis=-1), ["distinct"], "Argsort"),
        "argsort_ties": (lambda x: K.argsort(K.round(x[0]), axis=1), ["halves"], "Argsort"),
        "top_k_values": (lambda x: K.top_k(x[0], 2)[0], ["distinct"], "TopK"),
        "top_k_indices_ties": (lambda x: K.top_k(K.round(x[0]), 3)[1], ["halves"], "TopK"),
        # infinities in the rows not taken (the first row of the first sample: 1 / ±0) stay out
        "take_along_axis_inf": (lambda x: K.take_along_axis(K.reciprocal(K.stop_gradient(x[0])), x[1], axis=1) * 0.5
                                + x[2], ["specials", ("not_row0", (2, 4)), ("any", (2, 4))], "TakeAlongAxis"),
        "rot90": (lambda x: K.rot90(x[0], axes=(1, 2)), ["any"], "Rot90"),
        # Keras's TensorFlow rot90 is NumPy's for the last two axes, and for k = 2 or 3 on square ones
        "rot90_k2": (lambda x: K.rot90(x[0], k=2, axes=(1, 2)), [("any", (3, 3))], "Rot90"),
        "rot90_k3": (lambda x: K.rot90(x[0], k=-1, axes=(2, 3)), [("any", (2, 3, 3))], "Rot90"),
        # issue #38's third batch: NaN-ignoring reductions and scans (the NaNs made inside
        # the model by nan_at), quantiles, norms, differences, the trapezoid rule
        "nansum_axis1": (lambda x: K.nansum(nan_at(x[0], x[1]), axis=1), ["any", "nan_marks"], "Nansum"),
        "nansum_axes_keepdims": (lambda x: K.nansum(nan_at(x[0], x[1]), axis=(1, 2), keepdims=True),
                                 ["any", "nan_marks"], "Nansum"),
        "nanmean_last_keepdims": (lambda x: K.nanmean(nan_at(x[0], x[1]), axis=-1, keepdims=True),
                                  ["any", "nan_marks"], "Nanmean"),
        "nanmax_last": (lambda x: K.nanmax(nan_at(x[0], x[1]), axis=-1), ["distinct", "nan_marks"], "Nanmax"),
        "nanmin_axis1_keepdims": (lambda x: K.nanmin(nan_at(x[0], x[1]), axis=1, keepdims=True),
                                  ["distinct", "nan_marks"], "Nanmin"),
        "nanprod_last": (lambda x: K.nanprod(nan_at(x[0], x[1]), axis=-1), ["any", "nan_marks"], "Nanprod"),
        "nanvar_axis1": (lambda x: K.nanvar(nan_at(x[0], x[1]), axis=1), ["any", "nan_marks"], "Nanvar"),
        "nanstd_last_keepdims": (lambda x: K.nanstd(nan_at(x[0], x[1]), axis=-1, keepdims=True),
                                 ["any", "nan_marks"], "Nanstd"),
        "nanargmax_last": (lambda x: K.nanargmax(nan_at(x[0], x[1]), axis=-1), ["distinct", "nan_marks"],
                           "Nanargmax"),
        "nanargmin_axis1_keepdims": (lambda x: K.nanargmin(nan_at(x[0], x[1]), axis=1, keepdims=True),
                                     ["distinct", "nan_marks"], "Nanargmin"),
        "nancumsum_axis1": (lambda x: K.nancumsum(nan_at(x[0], x[1]), axis=1), ["any", "nan_marks"], "Nancumsum"),
        "nancumprod_last": (lambda x: K.nancumprod(nan_at(x[0], x[1]), axis=-1), ["any", "nan_marks"],
                            "Nancumprod"),
        "quantile_last": (lambda x: K.quantile(x[0], 0.3, axis=-1), ["distinct"], "Quantile"),
        "quantile_axes_keepdims": (lambda x: K.quantile(x[0], 0.75, axis=(2, 1), keepdims=True), ["distinct"],
                                   "Quantile"),
        # Keras 3.15's Quantile operation leaves `method` out of its call (a model computes
        # linear whatever it says; Strata refuses the others); Percentile's passes it on
        "percentile_axis1": (lambda x: K.percentile(x[0], 40.0, axis=1), ["distinct"], "Percentile"),
        "percentile_lower": (lambda x: K.percentile(x[0], 40.0, axis=-1, method="lower"), ["distinct"], "Percentile"),
        "percentile_higher": (lambda x: K.percentile(x[0], 40.0, axis=1, method="higher"), ["distinct"],
                              "Percentile"),
        "percentile_nearest": (lambda x: K.percentile(x[0], 70.0, axis=-1, method="nearest"), ["distinct"],
                               "Percentile"),
        "percentile_midpoint": (lambda x: K.percentile(x[0], 30.0, axis=-1, method="midpoint"), ["distinct"],
                                "Percentile"),
        "median_last": (lambda x: K.median(x[0], axis=-1), ["distinct"], "Median"),
        "median_axes_keepdims": (lambda x: K.median(x[0], axis=(1, 2), keepdims=True), [("distinct", (3, 3))],
                                 "Median"),
        "norm_last": (lambda x: K.norm(x[0], axis=-1), ["any"], "Norm"),
        "norm_ord1_axis1_keepdims": (lambda x: K.norm(x[0], ord=1, axis=1, keepdims=True), ["any"], "Norm"),
        "norm_ord3": (lambda x: K.norm(x[0], ord=3, axis=-1), ["any"], "Norm"),
        "norm_ord0": (lambda x: K.norm(x[0], ord=0, axis=-1), ["sparse"], "Norm"),
        "norm_fro": (lambda x: K.norm(x[0], ord="fro", axis=(1, 2)), ["any"], "Norm"),
        "norm_matrix_1": (lambda x: K.norm(x[0], ord=1, axis=(1, 2)), ["distinct"], "Norm"),
        "norm_matrix_neg1_keepdims": (lambda x: K.norm(x[0], ord=-1, axis=(2, 1), keepdims=True), ["distinct"],
                                      "Norm"),
        "diff_last": (lambda x: K.diff(x[0]), ["any"], "Diff"),
        "diff_n2_axis1": (lambda x: K.diff(x[0], n=2, axis=1), ["any"], "Diff"),
        "trapezoid_last": (lambda x: K.trapezoid(x[0]), ["any"], "Trapezoid"),
        "trapezoid_dx_axis1": (lambda x: K.trapezoid(x[0], dx=0.5, axis=1), ["any"], "Trapezoid"),
        # issue #38's fourth batch: normalizations, cross-entropies, selections, joins
        "rms_normalization": (lambda x: K.rms_normalization(x[0], scale=np.array([0.5, 1.0, 1.5, -2.0], P),
                                                            epsilon=1e-5), ["any"], "RMSNorm"),
        "rms_normalization_axes": (lambda x: K.rms_normalization(x[0], axis=(1, 2)), ["any"], "RMSNorm"),
        "layer_normalization": (lambda x: K.layer_normalization(x[0], gamma=np.array([0.5, 1.0, 1.5, -2.0], P),
                                                                beta=np.array([0.1, -0.2, 0.3, 0.0], P),
                                                                epsilon=1e-5), ["any"], "LayerNorm"),
        "layer_normalization_axis1": (lambda x: K.layer_normalization(x[0], gamma=np.array([2.0, -1.0, 0.5], P),
                                                                      axis=1), ["any"], "LayerNorm"),
        "layer_normalization_axes": (lambda x: K.layer_normalization(x[0], axis=(1, 2), epsilon=1e-3), ["any"],
                                     "LayerNorm"),
        "layer_normalization_rms_scaling": (lambda x: K.layer_normalization(
            x[0], gamma=np.array([0.5, 1.0, 1.5, -2.0], P), rms_scaling=True), ["any"], "LayerNorm"),
        "batch_normalization": (lambda x: K.batch_normalization(
            x[0], np.array([0.1, -0.2, 0.3, 0.0], P), np.array([0.5, 1.0, 2.0, 0.25], P), axis=-1,
            offset=np.array([1.0, 0.0, -1.0, 0.5], P), scale=np.array([0.5, 1.0, 1.5, -2.0], P)), ["any"],
            "BatchNorm"),
        "batch_normalization_axis1": (lambda x: K.batch_normalization(
            x[0], np.array([0.1, -0.2, 0.3], P), np.array([0.5, 1.0, 2.0], P), axis=1, epsilon=1e-2), ["any"],
            "BatchNorm"),
        "binary_crossentropy_logits": (lambda x: K.binary_crossentropy(x[0], x[1], from_logits=True),
                                       ["probs", "any"], "BinaryCrossentropy"),
        "binary_crossentropy": (lambda x: K.binary_crossentropy(x[0], x[1]), ["probs", "probs"],
                                "BinaryCrossentropy"),
        "categorical_crossentropy_logits": (lambda x: K.categorical_crossentropy(x[0], x[1], from_logits=True),
                                            ["probs", "any"], "CategoricalCrossentropy"),
        "categorical_crossentropy_axis1": (lambda x: K.categorical_crossentropy(x[0], x[1], axis=1),
                                           ["probs", "probs"], "CategoricalCrossentropy"),
        "sparse_categorical_crossentropy_logits": (lambda x: K.sparse_categorical_crossentropy(
            x[0], x[1], from_logits=True), [("labels", (3,)), "any"], "SparseCategoricalCrossentropy"),
        "sparse_categorical_crossentropy": (lambda x: K.sparse_categorical_crossentropy(x[0], x[1]),
                                            [("labels", (3, 1)), "probs"], "SparseCategoricalCrossentropy"),
        "in_top_k": (lambda x: K.in_top_k(x[0], x[1], 2), [("labels", ()), ("distinct", (4,))], "InTopK"),
        "select": (lambda x: K.select([K.greater(x[0], 0.5), K.less(x[0], -0.5)], [x[1], x[0]], default=1.5),
                   ["any", "any"], "Select"),
        "average_axis1": (lambda x: K.average(x[0], axis=1), ["any"], "Average"),
        "average_weights": (lambda x: K.average(x[0], axis=-1, weights=np.array([1.0, 2.0, 3.0, 0.5], P)), ["any"],
                            "Average"),
        "append_axis1": (lambda x: K.append(x[0], x[1], axis=1), ["any", ("any", (2, 4))], "Append"),
        "vdot": (lambda x: K.vdot(x[0], x[1]), ["any", "any"], "Vdot"),
        "cross": (lambda x: K.cross(x[0], x[1]), [("any", (4, 3)), ("any", (4, 3))], "Cross"),
        "hsplit": (lambda x: K.hsplit(x[0], 3)[1], ["any"], "Hsplit"),
        "dsplit_indices": (lambda x: K.dsplit(x[0], [1, 3])[1], ["any"], "Dsplit"),
        # quantiles of the numbers only, and depth <-> space
        "nanmedian_last": (lambda x: K.nanmedian(nan_at(x[0], x[1]), axis=-1), ["distinct", "nan_marks"],
                           "Nanmedian"),
        "nanquantile_axis1_keepdims": (lambda x: K.nanquantile(nan_at(x[0], x[1]), 0.3, axis=1, keepdims=True),
                                       ["distinct", "nan_marks"], "Nanquantile"),
        "nanquantile_axes": (lambda x: K.nanquantile(nan_at(x[0], x[1]), 0.6, axis=(1, 2)),
                             ["distinct", "nan_marks"], "Nanquantile"),
        "nanpercentile_lower": (lambda x: K.nanpercentile(nan_at(x[0], x[1]), 40.0, axis=-1, method="lower"),
                                ["distinct", "nan_marks"], "Nanpercentile"),
        "nanpercentile_higher": (lambda x: K.nanpercentile(nan_at(x[0], x[1]), 40.0, axis=-1, method="higher"),
                                 ["distinct", "nan_marks"], "Nanpercentile"),
        "nanpercentile_nearest": (lambda x: K.nanpercentile(nan_at(x[0], x[1]), 70.0, axis=-1, method="nearest"),
                                  ["distinct", "nan_marks"], "Nanpercentile"),
        "nanpercentile_midpoint": (lambda x: K.nanpercentile(nan_at(x[0], x[1]), 30.0, axis=1, method="midpoint"),
                                   ["distinct", "nan_marks"], "Nanpercentile"),
        "depth_to_space": (lambda x: K.depth_to_space(x[0], 2), [("any", (2, 3, 8))], "DepthToSpace"),
        "depth_to_space_channels_first": (lambda x: K.depth_to_space(x[0], 2, data_format="channels_first"),
                                          [("any", (8, 2, 3))], "DepthToSpace"),
        "space_to_depth": (lambda x: K.space_to_depth(x[0], 2), [("any", (4, 6, 2))], "SpaceToDepth"),
        "space_to_depth_channels_first": (lambda x: K.space_to_depth(x[0], 2, data_format="channels_first"),
                                          [("any", (2, 4, 6))], "SpaceToDepth"),
        # pooling and convolutions (kernels: NumPy constants of their own generator, so that the
        # cases above keep their inputs)
        "max_pool_same": (lambda x: K.max_pool(x[0], 2, strides=1, padding="same"), [("distinct", (4, 4, 2))],
                          "MaxPool"),
        "max_pool_1d": (lambda x: K.max_pool(x[0], 2), [("distinct", (6, 3))], "MaxPool"),
        "average_pool_same_strides": (lambda x: K.average_pool(x[0], (2, 3), strides=2, padding="same"),
                                      [("any", (5, 5, 2))], "AveragePool"),
        "average_pool_channels_first": (lambda x: K.average_pool(x[0], 2, data_format="channels_first"),
                                        [("any", (2, 4, 4))], "AveragePool"),
        "conv_same_strides": (lambda x: K.conv(x[0], W(3, 3, 2, 3), strides=2, padding="same"),
                              [("any", (5, 5, 2))], "Conv"),
        "conv_1d_dilation": (lambda x: K.conv(x[0], W(2, 3, 4), dilation_rate=2), [("any", (7, 3))], "Conv"),
        "conv_channels_first": (lambda x: K.conv(x[0], W(2, 2, 2, 3), data_format="channels_first"),
                                [("any", (2, 4, 4))], "Conv"),
        "conv_3d": (lambda x: K.conv(x[0], W(2, 2, 2, 2, 3), padding="same"), [("any", (3, 3, 3, 2))], "Conv"),
        "depthwise_conv": (lambda x: K.depthwise_conv(x[0], W(3, 3, 2, 2), strides=2, padding="same"),
                           [("any", (5, 5, 2))], "DepthwiseConv"),
        "depthwise_conv_1d": (lambda x: K.depthwise_conv(x[0], W(3, 2, 1), dilation_rate=2), [("any", (7, 2))],
                              "DepthwiseConv"),
        "separable_conv": (lambda x: K.separable_conv(x[0], W(2, 2, 2, 2), W(1, 1, 4, 3), padding="same"),
                           [("any", (4, 4, 2))], "SeparableConv"),
        "adaptive_average_pool": (lambda x: K.adaptive_average_pool(x[0], (2, 3)), [("any", (5, 7, 2))],
                                  "AdaptiveAveragePool"),
        "adaptive_max_pool_channels_first": (lambda x: K.adaptive_max_pool(x[0], (3, 2), data_format="channels_first"),
                                             [("distinct", (2, 5, 4))], "AdaptiveMaxPool"),
        # images
        "rgb_to_grayscale": (lambda x: K.image.rgb_to_grayscale(x[0]), [("probs", (3, 2, 3))], "RGBToGrayscale"),
        "rgb_to_grayscale_channels_first": (lambda x: K.image.rgb_to_grayscale(x[0], data_format="channels_first"),
                                            [("probs", (3, 2, 3))], "RGBToGrayscale"),
        "rgb_to_hsv": (lambda x: K.image.rgb_to_hsv(x[0]), [("probs", (3, 2, 3))], "RGBToHSV"),
        "hsv_to_rgb": (lambda x: K.image.hsv_to_rgb(x[0]), [("probs", (3, 2, 3))], "HSVToRGB"),
        "hsv_to_rgb_channels_first": (lambda x: K.image.hsv_to_rgb(x[0], data_format="channels_first"),
                                      [("probs", (3, 2, 3))], "HSVToRGB"),
        "pad_images": (lambda x: K.image.pad_images(x[0], 1, 2, target_height=6, target_width=6),
                       [("any", (3, 2, 2))], "PadImages"),
        "pad_images_channels_first": (lambda x: K.image.pad_images(x[0], None, 1, 2, None, target_height=5,
                                                                   target_width=4, data_format="channels_first"),
                                      [("any", (2, 3, 2))], "PadImages"),
        "crop_images": (lambda x: K.image.crop_images(x[0], 1, 2, target_height=2, target_width=3),
                        [("any", (4, 6, 2))], "CropImages"),
        "crop_images_from_far_sides": (lambda x: K.image.crop_images(x[0], None, None, 1, 2, target_height=2,
                                                                     target_width=3),
                                       [("any", (4, 6, 2))], "CropImages"),
        "resize_bilinear": (lambda x: K.image.resize(x[0], (5, 3)), [("any", (3, 4, 2))], "Resize"),
        "resize_bicubic_crop": (lambda x: K.image.resize(x[0], (4, 4), interpolation="bicubic",
                                                         crop_to_aspect_ratio=True), [("any", (3, 5, 2))], "Resize"),
        "resize_nearest_pad_channels_first": (lambda x: K.image.resize(x[0], (4, 6), interpolation="nearest",
                                                                       pad_to_aspect_ratio=True, fill_value=0.5,
                                                                       data_format="channels_first"),
                                              [("any", (2, 3, 3))], "Resize"),
        "affine_transform": (lambda x: K.image.affine_transform(x[0], x[1]),
                             [("any", (4, 5, 2)), ("affine", (8,))], "AffineTransform"),
        "affine_transform_nearest_reflect": (lambda x: K.image.affine_transform(
            x[0], np.array([0.9, 0.2, 0.4, -0.1, 1.1, 0.3, 0.0, 0.0], P), interpolation="nearest", fill_mode="reflect",
            data_format="channels_first"), [("any", (2, 4, 5))], "AffineTransform"),
        # attention
        "dot_product_attention": (lambda x: K.dot_product_attention(x[0], x[1], x[2]),
                                  [("any", (3, 2, 4)), ("any", (5, 2, 4)), ("any", (5, 2, 4))], "DotProductAttention"),
        "dot_product_attention_causal_scale": (lambda x: K.dot_product_attention(x[0], x[1], x[2], scale=0.3,
                                                                                 is_causal=True),
                                               [("any", (4, 2, 3)), ("any", (4, 2, 3)), ("any", (4, 2, 3))],
                                               "DotProductAttention"),
        "dot_product_attention_mask_bias": (lambda x: K.dot_product_attention(
            x[0], x[1], x[2], bias=W(2, 3, 5), mask=np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1], [1, 0, 0, 0, 0]], bool)),
            [("any", (3, 2, 4)), ("any", (5, 2, 4)), ("any", (5, 2, 4))], "DotProductAttention"),
        "dot_product_attention_grouped": (lambda x: K.dot_product_attention(x[0], x[1], x[2]),
                                          [("any", (3, 4, 2)), ("any", (3, 2, 2)), ("any", (3, 2, 2))],
                                          "DotProductAttention"),
    }


INT_KINDS = ("classes", "positions", "not_row0", "labels")
# Operations whose saved models Keras 3.15.1 cannot load back itself (its files are right:
# Strata loads them and predicts Keras's output).
# Histogram's: its range is read back as a list, which its constructor refuses.
KERAS_CANNOT_RELOAD = ("AdaptiveAveragePool", "AdaptiveMaxPool", "Histogram")
# write_case_file's eager: outputs from the keras.ops calls run eagerly, not from the model.
EAGER = False


def failure_of(e):
    """An exception's type and message, the message Keras wraps in "Exception encountered when
    calling ..." unwrapped (and its terminal bold marks dropped)."""
    lines = [line.strip() for line in str(e).split("\n") if line.strip()]
    message = lines[1] if len(lines) > 1 and lines[0].startswith("Exception encountered") else lines[0]
    return "%s: %s" % (type(e).__name__, re.sub(r"\x1b\[[0-9;]*m", "", message)[:200])


def op_cases():
    out = []
    for name, case in cases().items():
        # (fn, kinds, op) or (fn, kinds, op, batch): a fixed batch size, for the operations Keras
        # 3.15 computes only on inputs whose batch size is known (rearrange, correlate, lu_factor)
        fn, kinds, op = case[:3]
        batch = case[3] if len(case) > 3 else None
        keras.backend.clear_session()
        specs = [k if isinstance(k, tuple) else (k, (3, 4)) for k in kinds]
        ins = [keras.Input(shape, batch_size=batch, name="x%d" % i, dtype="int32" if kind in INT_KINDS else "float32")
               for i, (kind, shape) in enumerate(specs)]
        model = keras.Model(ins if len(ins) > 1 else ins[0], fn(ins), name=name)
        xs = [make((batch or 2,) + shape, kind) for kind, shape in specs]
        tins = [tf.constant(a) for a in xs]
        cannot_compute = None
        if EAGER:  # the model's operation fails in Keras; its keras.ops function, called eagerly, does not
            try:
                model(tins if len(tins) > 1 else tins[0])
            except Exception as e:  # noqa: BLE001 (the failure is the point: it is recorded)
                cannot_compute = failure_of(e)
            assert cannot_compute, (name, "Keras computes this model: not an eager-only case")
        with tf.GradientTape() as tape:
            for t in tins:
                if t.dtype.is_floating:
                    tape.watch(t)
            y = fn(tins) if EAGER else model(tins if len(tins) > 1 else tins[0])
            if not tf.is_tensor(y):  # ndim's result is a Python int; predict gives it as int32
                y = tf.constant(y, "int32")
            floating = y.dtype.is_floating
            projection = rng.uniform(-1.0, 1.0, tuple(y.shape)).astype("float32")
            loss = tf.reduce_sum(tf.cast(y, "float32") * projection) if floating else None
        # an int32 input has no gradient: zeros, as for an unconnected one
        grads = None
        if floating:
            watched = [t for t in tins if t.dtype.is_floating]
            try:
                found = iter(tape.gradient(loss, watched, unconnected_gradients=tf.UnconnectedGradients.ZERO))
                grads = [next(found) if t.dtype.is_floating else tf.zeros(t.shape) for t in tins]
            except LookupError:  # TensorFlow registers no gradient (slice_update's XlaDynamicUpdateSlice)
                grads = None
            if grads is not None and not all(np.isfinite(np.asarray(g)).all() for g in grads):
                grads = None  # JSON holds no NaN: the case checks the output only
        y = np.asarray(y)
        path = os.path.join(OPS_DIR, name + ".keras")
        model.save(path)
        cannot_reload = None
        try:
            if EAGER:
                keras.saving.load_model(path)  # it loads; computing it is what fails
                raise StopIteration
            again = keras.saving.load_model(path)(xs if len(xs) > 1 else xs[0])
            again = np.asarray(again if tf.is_tensor(again) else tf.constant(again, "int32"))
            assert again.dtype == y.dtype and np.array_equal(again, y), name
        except StopIteration:
            pass
        except TypeError as e:  # Keras 3.15.1 reads output_size back as a list, then adds it to a tuple
            assert op in KERAS_CANNOT_RELOAD, (name, e)
            cannot_reload = "TypeError: " + str(e).split("\n")[0][:160]
        config = model.get_config()
        entries = [jsonable(l) for l in config["layers"] if l["class_name"] != "InputLayer"]
        assert any(e["class_name"] == op for e in entries), (name, [e["class_name"] for e in entries])
        out.append({
            "name": name,
            "operation": op,
            "file": "tests/data/keras_ops/ops/%s.keras" % name,
            "layers": entries,
            # which of the last operation's results ("output_layers" is one ["layer", node, index])
            "output_index": config["output_layers"][2] if isinstance(config["output_layers"][0], str)
            else config["output_layers"][0][2],
            "inputs": [arr(a) for a in xs],
            "output": arr(y),
            "projection": arr(projection) if grads is not None else None,
            "input_grads": [arr(np.asarray(g)) for g in grads] if grads is not None else None,
            **({"keras_cannot_reload": cannot_reload} if cannot_reload else {}),
            **({"batch_size": batch} if batch else {}),
            **({"keras_cannot_compute": cannot_compute} if cannot_compute else {}),
        })
    return out


# ------------------------------------------------------------------ the issue's models
def causal_transformer():
    """Token ids -> embeddings plus learned positions, one causal self-attention block.
    The positions are cumsum(ones_like(ids)) - 1 and the causal mask compares them."""
    keras.backend.clear_session()
    keras.utils.set_random_seed(38)
    vocab, steps, dim = 11, 6, 8
    ids = keras.Input((steps,), dtype="int32", name="tokens")
    x = L.Embedding(vocab, dim, name="token_embedding")(ids)
    positions = K.cumsum(K.ones_like(ids), axis=1) - 1
    x = x + L.Embedding(steps, dim, name="position_embedding")(positions)
    causal = K.greater_equal(K.expand_dims(positions, 2), K.expand_dims(positions, 1))
    attended = L.MultiHeadAttention(2, 4, name="attention")(x, x, attention_mask=causal)
    x = L.LayerNormalization(name="norm_1")(x + attended)
    h = L.Dense(16, activation="relu", name="ffn_1")(x)
    x = L.LayerNormalization(name="norm_2")(x + L.Dense(dim, name="ffn_2")(h))
    out = L.Dense(vocab, name="logits")(x)
    model = keras.Model(ids, out, name="causal_transformer")
    inputs = rng.integers(0, vocab, (3, steps)).astype("int32")
    return model, inputs


def masked_mean():
    """A mean over the time steps that are not all zeros (padding): the mask is
    any(not_equal(x, 0), axis=-1), applied by multiplying and counting."""
    keras.backend.clear_session()
    keras.utils.set_random_seed(39)
    steps, features = 5, 3
    x = keras.Input((steps, features), name="sequence")
    mask = K.any(K.not_equal(x, 0.0), axis=-1)
    weights = K.cast(mask, "float32")
    h = L.Dense(6, activation="tanh", name="encode")(x)
    summed = K.sum(h * K.expand_dims(weights, -1), axis=1)
    count = K.maximum(K.sum(weights, axis=1, keepdims=True), 1.0)
    out = L.Dense(2, name="head")(summed / count)
    model = keras.Model(x, out, name="masked_mean")
    inputs = rng.uniform(-1.0, 1.0, (4, steps, features)).astype("float32")
    inputs[0, 3:] = 0.0   # two padded steps
    inputs[1, 1:] = 0.0   # one real step
    inputs[2, 2, 1] = 0.0  # a zero that is not padding
    inputs[3] = 0.0       # nothing at all: the count floor of 1
    return model, inputs


def issue_models():
    out = []
    for build in (causal_transformer, masked_mean):
        model, x = build()
        y = np.asarray(model(x))
        base = os.path.join(MODELS_DIR, model.name)
        np.save(base + ".input0.npy", x)
        np.save(base + ".output0.npy", y)
        files, reload_errors = [], {}
        for ext in (".keras", ".h5"):
            model.save(base + ext)
            files.append("tests/data/keras_ops/" + model.name + ext)
            try:
                again = np.asarray(keras.saving.load_model(base + ext)(x))
            except ValueError as e:  # Keras 3.15.1's legacy .h5 reader knows no operation class
                assert ext == ".h5", (model.name, e)
                reload_errors[ext] = str(e).split(".")[0]
                continue
            assert np.allclose(again, y, atol=1e-6), (model.name, ext)
        out.append({"name": model.name, "files": files, "keras_cannot_reload": reload_errors,
                    "operations": sorted({l["class_name"] for l in model.get_config()["layers"]
                                          if l.get("module", "").startswith("keras.src.ops")})})
    return out


def make_with_fixed(fixed, own=None):
    """A make_fn for write_case_file: a kind named in `fixed` gives its values as int32 (checked
    against the shape asked), `own(shape, kind)` makes the script's other kinds (None when the
    kind is not its own), and this module's make the rest."""
    shared = make  # write_case_file replaces the module's make with the function returned

    def made(shape, kind):
        if kind in fixed:
            a = np.array(fixed[kind], np.int32)
            assert a.shape == tuple(shape), (kind, a.shape, shape)
            return a
        value = own(shape, kind) if own is not None else None
        return value if value is not None else shared(shape, kind)

    return made


def write_case_file(script, folder, out_name, cases_fn, seed, notes, make_fn=None, int_kinds=(), extra=None,
                    eager=False):
    """Runs op_cases over another script's cases (its own seeded generator, its own kinds of
    inputs through make_fn, int_kinds fed as int32) into tests/data/keras_ops/<folder>/ and
    writes tests/data/<out_name> (plus the sections `extra` returns, made after the cases).
    With `eager`, each case's model is one Keras saves but cannot compute: its output and
    gradients are those of the case's keras.ops calls run eagerly."""
    global cases, make, OPS_DIR, rng, INT_KINDS, EAGER
    EAGER = eager
    OPS_DIR = os.path.join(MODELS_DIR, folder)
    os.makedirs(OPS_DIR, exist_ok=True)
    cases = cases_fn
    if make_fn is not None:
        make = make_fn
    INT_KINDS = INT_KINDS + tuple(int_kinds)
    rng = np.random.default_rng(seed)
    out = op_cases()
    for c in out:
        c["file"] = "tests/data/keras_ops/%s/%s.keras" % (folder, c["name"])
    doc = {
        "generator": {"script": script, "keras": keras.__version__, "tensorflow": tf.__version__,
                      "numpy": np.__version__, "python": platform.python_version(), "backend": "tensorflow"},
        "notes": notes,
        "cases": out,
    }
    if extra is not None:
        doc.update(extra())
    path = os.path.join(DATA, out_name)
    with open(path, "w") as f:
        json.dump(doc, f, separators=(",", ":"), allow_nan=False)
        f.write("\n")
    print("wrote", path, os.path.getsize(path), "bytes,", len(out), "cases")


def main():
    os.makedirs(OPS_DIR, exist_ok=True)
    doc = {
        "generator": {"script": "tests/reference/make_keras_ops_goldens.py", "keras": keras.__version__,
                      "tensorflow": tf.__version__, "numpy": np.__version__,
                      "python": platform.python_version(), "backend": "tensorflow"},
        "notes": [
            "input_grads: d sum(output * projection) / d input, TF GradientTape with unconnected "
            "gradients as zeros (floor, ceil, trunc, round, floor_divide and stop_gradient pass none); "
            "null where the output is bool or int (no gradient), or where Keras's gradient is not finite "
            "(sinc at 0: the 0 / 0 of tf.where's other branch).",
            "Inputs keep 0.05 away from the kinks and steps of the operations, except round's halves.",
            "Keras's bool outputs are Strata's 0/1 floats; argmax/argmin are int32 in Keras.",
        ],
        "models": issue_models(),
        "cases": op_cases(),
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(doc["cases"]), "cases")


if __name__ == "__main__":
    main()
