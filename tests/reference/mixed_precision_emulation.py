#!/usr/bin/env python3
"""NumPy emulation of Keras 3's mixed-precision dtype policies on the TensorFlow CPU backend.

Strata emulates the policies "mixed_bfloat16", "bfloat16", "mixed_float16" and "float16":
tensors stay float32 and a round-to-nearest-even to bfloat16 / float16 (and back to float32)
is applied where Keras rounds.  This module is the reference for that rule, layer class by
layer class, used by make_mixed_precision_goldens.py to measure how close it comes to Keras.

Two modes:

  "simple"  the planned rule: (a) a layer whose compute dtype is bf16/f16 rounds its floating
            inputs when called, (b) rounds its variables where it reads them, (c) rounds the
            float output of every Keras-level op in its call (matmul / einsum / conv accumulate
            in float32 and round once; an activation is one op, rounded once).  BatchNormalization
            and LayerNormalization are float32 islands: inputs not rounded, variables read at
            their stored precision, math in float32, only the output rounded.
  "keras"   the simple rule plus what Keras / TensorFlow actually do where they differ
            (see DEVIATIONS below).  A set of DEVIATIONS keys applies only those.
            It reproduces model.predict on TensorFlow-CPU with oneDNN on (the default); eager
            calls and TF_ENABLE_ONEDNN_OPTS=0 give other bfloat16 bits.

The emulation reads each layer's variables from the Keras layer (their stored values: float32
under the mixed policies, already bf16/f16 under the pure ones) and walks the small models that
make_mixed_precision_goldens.py builds.  Everything here is float32 NumPy plus the two rounding
functions, so it can be ported to C++ line by line.
"""
import math

import numpy as np

DEVIATIONS = {
    "sigmoid": "TF's Sigmoid kernel on half types computes e = exp(x) in the low dtype and "
               "then e / (1 + e): round(e / round(1 + round(exp(x)))), 1 where exp overflows",
    "softmax_f16": "TF's CPU Softmax kernel on float16 is Eigen in half: round(x - max), "
                   "round(exp), an Eigen half sum (sequential half adds below 8 classes), "
                   "round(1 / sum), round(e * inv); on bfloat16 it is float32 inside, rounded once",
    "gelu": "tf.nn.gelu(approximate=False) is 0.5 * x * erfc(-x * 0.7071067811865476): four TF ops, "
            "each rounded, and the constant itself is cast to the low dtype",
    "depthwise_f16": "TF's CPU DepthwiseConv2D on float16 accumulates the taps in half: the "
                     "running sum is rounded after each tap (row-major over the kernel window, "
                     "the product itself exact in float32); bfloat16 rounds once",
    "batch_norm_input": "BatchNormalization keeps autocast on for its inputs: float32 inputs are "
                        "rounded to the compute dtype first, then upcast to float32",
    "onednn_fusion": "in graph mode (model.predict) with oneDNN on, grappler fuses a bfloat16 "
                     "MatMul (Dense on a 2-D input) / Conv2D / DepthwiseConv2D with its bias add "
                     "and a relu/tanh/sigmoid/gelu activation into one float32 kernel: one "
                     "rounding (also across layers: Dense then Activation; not modelled here)",
    "einsum_f16": "tf.einsum (used directly by ops.dot_product_attention) on float16 runs Eigen "
                  "in half arithmetic: each product rounded, each partial sum rounded",
    "attention_softmax": "MultiHeadAttention (no dropout, no returned scores) calls "
                         "ops.dot_product_attention: logits = round(einsum(q, k)), then "
                         "float32: logits * scale, softmax; probs rounded, einsum(probs, v) rounded",
}


# TensorFlow's grappler remapper, with oneDNN on (the default on x86 Linux), fuses a bfloat16
# MatMul / Conv2D / DepthwiseConv2dNative with the following bias add and a supported activation
# into one oneDNN kernel that accumulates, adds the bias and applies the activation in float32
# and rounds once.  float16 is not fused on CPUs without AVX512-FP16 (Eigen kernels, each op
# rounded).  Only graph execution (model.predict, tf.function) fuses; eager calls do not.
ONEDNN_BF16_FUSION = True
FUSABLE_ACTIVATIONS = ("relu", "tanh", "sigmoid", "gelu", "linear", None)


def round_bf16(x):
    """float32 -> bfloat16 -> float32, round to nearest even (NaN kept)."""
    x = np.asarray(x, np.float32)
    u = x.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    y = u.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), x, y).astype(np.float32)


def round_f16(x):
    """float32 -> IEEE half -> float32, round to nearest even (subnormals, overflow to inf)."""
    with np.errstate(over="ignore"):
        return np.asarray(x, np.float32).astype(np.float16).astype(np.float32)


def rounder(dtype):
    dtype = str(dtype)
    if dtype == "bfloat16":
        return round_bf16
    if dtype == "float16":
        return round_f16
    if dtype == "float32":
        return lambda v: np.asarray(v, np.float32)
    raise ValueError(dtype)


def f32(v):
    return np.asarray(v, np.float32)


def acc(v):
    """A float32-accumulated product (matmul / einsum / conv): exact sum, then float32."""
    return np.asarray(v, np.float64).astype(np.float32)


class Ctx:
    """Rounding for one layer: R rounds to its compute dtype.

    mode is "simple", "keras" (every deviation) or a set of DEVIATIONS keys (those only).
    """

    def __init__(self, layer, mode):
        self.layer = layer
        self.mode = mode
        self.compute = str(layer.dtype_policy.compute_dtype)
        self.R = rounder(self.compute)
        self.low = self.compute in ("bfloat16", "float16")

    @property
    def fused(self):
        """oneDNN's graph fusion of matmul/conv + bias (+ activation) in bfloat16: one rounding."""
        return self.has("onednn_fusion") and self.compute == "bfloat16" and ONEDNN_BF16_FUSION

    def has(self, deviation):
        """Whether this emulation applies one of DEVIATIONS (all of them in mode "keras")."""
        return self.mode == "keras" or (not isinstance(self.mode, str) and deviation in self.mode)

    def var(self, v):
        """A variable read under the layer's autocast scope: its stored value, rounded."""
        return self.R(np.asarray(v.numpy()).astype(np.float32))


def stored(v):
    return np.asarray(v.numpy()).astype(np.float32)


# ---------------------------------------------------------------- activations
def _erfc(v):
    return np.vectorize(math.erfc, otypes=[np.float64])(np.asarray(v, np.float64)).astype(np.float32)


def _eigen_half_sum(e, R):
    """Eigen's inner-most sum of a half tensor on AVX-512 CPUs (measured exact up to 48 classes)."""
    n = e.shape[-1]
    p = 8
    vec = (n // p) * p
    pacc = np.zeros(e.shape[:-1] + (p,), np.float32)
    for j in range(0, vec, p):
        pacc = R(pacc + e[..., j:j + p])
    s = np.zeros(e.shape[:-1], np.float32)
    for j in range(vec, n):
        s = R(s + e[..., j])
    if vec:
        s = R(s + R(pacc.sum(-1, dtype=np.float32)))
    return s


def softmax_f32(y, axis=-1):
    y = f32(y)
    e = np.exp(y - y.max(axis=axis, keepdims=True))
    return (e / e.sum(axis=axis, keepdims=True, dtype=np.float32)).astype(np.float32)


def activation(name, y, c):
    R = c.R
    if name in (None, "linear"):
        return y
    if name == "relu":
        return R(np.maximum(y, 0))
    if name == "tanh":
        return R(np.tanh(y))
    if name == "sigmoid":
        if c.has("sigmoid") and c.low:
            with np.errstate(over="ignore"):
                e = R(np.exp(y))
            return np.where(np.isinf(e), np.float32(1), R(e / R(np.float32(1) + e))).astype(np.float32)
        with np.errstate(over="ignore"):
            return R(np.float32(1) / (np.float32(1) + np.exp(-y)))
    if name == "softmax":
        if c.has("softmax_f16") and c.compute == "float16":
            e = R(np.exp(R(y - y.max(-1, keepdims=True))))
            inv = R(np.float32(1) / _eigen_half_sum(e, R))
            return R(e * inv[..., None])
        return R(softmax_f32(y))
    if name == "gelu":
        if c.has("gelu") and c.low:
            t = R(-y * R(np.float32(0.7071067811865476)))
            return R(R(np.float32(0.5) * y) * R(_erfc(t)))
        return R(np.float32(0.5) * y * _erfc(-y * np.float32(0.7071067811865476)))
    raise NotImplementedError(name)


def activation_f32(name, y):
    """An activation fused into a oneDNN kernel: float32 math, no rounding."""
    if name in (None, "linear"):
        return y
    if name == "relu":
        return np.maximum(y, 0).astype(np.float32)
    if name == "tanh":
        return np.tanh(y).astype(np.float32)
    if name == "sigmoid":
        with np.errstate(over="ignore"):
            return (np.float32(1) / (np.float32(1) + np.exp(-y))).astype(np.float32)
    if name == "gelu":
        return (np.float32(0.5) * y * _erfc(-y * np.float32(0.7071067811865476))).astype(np.float32)
    raise NotImplementedError(name)


def bias_activation(layer, y, c, bias=True, fusable=True):
    """The bias add and the activation after an accumulated product `y` (float32, unrounded)."""
    name = act_name(layer)
    b = c.var(layer.bias) if bias else None
    if c.fused and fusable:
        if b is not None:
            y = y + b
        if name in FUSABLE_ACTIVATIONS:
            return c.R(activation_f32(name, y))
        return activation(name, c.R(y), c)
    y = c.R(y)
    if b is not None:
        y = c.R(y + b)
    return activation(name, y, c)


def act_name(layer):
    a = getattr(layer, "activation", None)
    return None if a is None else a.__name__


# ---------------------------------------------------------------- layers
def dense(layer, x, mode):
    c = Ctx(layer, mode)
    x = c.R(x)
    y = acc(x.astype(np.float64) @ c.var(layer.kernel).astype(np.float64))
    # Only a 2-D input is a MatMul op that grappler fuses; a 3-D input is a BatchMatMulV2, not fused.
    return bias_activation(layer, y, c, layer.use_bias, fusable=x.ndim == 2)


def einsum_dense(layer, x, mode, equation=None, kernel=None, bias=None):
    c = Ctx(layer, mode)
    x = c.R(x)
    eq = equation or layer.equation
    y = c.R(acc(np.einsum(eq, x.astype(np.float64), c.var(layer.kernel).astype(np.float64))))
    if layer.bias is not None:
        y = c.R(y + c.var(layer.bias))
    return activation(act_name(layer), y, c)


def activation_layer(layer, x, mode):
    c = Ctx(layer, mode)
    return activation(layer.activation.__name__, c.R(x), c)


def _pad_same(x, k):
    lo = (k - 1) // 2
    return np.pad(x, ((0, 0), (lo, k - 1 - lo), (lo, k - 1 - lo), (0, 0)))


def conv2d(layer, x, mode):
    c = Ctx(layer, mode)
    x = c.R(x)
    k = c.var(layer.kernel)
    kh, kw = k.shape[:2]
    if layer.padding == "same":
        x = _pad_same(x, kh)
    n, h, w, _ = x.shape
    oh, ow = h - kh + 1, w - kw + 1
    out = np.zeros((n, oh, ow, k.shape[-1]), np.float64)
    for i in range(kh):
        for j in range(kw):
            out += np.einsum("nhwc,co->nhwo", x[:, i:i + oh, j:j + ow, :].astype(np.float64),
                             k[i, j].astype(np.float64))
    return bias_activation(layer, acc(out), c, layer.use_bias)


def depthwise_conv2d(layer, x, mode):
    c = Ctx(layer, mode)
    x = c.R(x)
    k = c.var(layer.kernel)  # (kh, kw, cin, mult); mult == 1 here
    assert k.shape[-1] == 1 and layer.padding == "valid"
    kh, kw = k.shape[:2]
    n, h, w, _ = x.shape
    oh, ow = h - kh + 1, w - kw + 1
    if c.has("depthwise_f16") and c.compute == "float16":
        y = np.zeros((n, oh, ow, k.shape[2]), np.float32)
        for i in range(kh):
            for j in range(kw):
                y = c.R(y + x[:, i:i + oh, j:j + ow, :] * k[i, j, :, 0])
    else:
        out = np.zeros((n, oh, ow, k.shape[2]), np.float64)
        for i in range(kh):
            for j in range(kw):
                out += x[:, i:i + oh, j:j + ow, :].astype(np.float64) * k[i, j, :, 0]
        return bias_activation(layer, acc(out), c, layer.use_bias)
    if layer.use_bias:
        y = c.R(y + c.var(layer.bias))
    return activation(act_name(layer), y, c)


def batch_norm(layer, x, mode):
    """A float32 island: float32 math on the stored variables, the output rounded."""
    c = Ctx(layer, mode)
    if c.has("batch_norm_input"):
        x = c.R(x)  # the layer's inputs are still autocast
    x = f32(x)
    mean, var = stored(layer.moving_mean), stored(layer.moving_variance)
    gamma, beta = stored(layer.gamma), stored(layer.beta)
    inv = (np.float32(1) / np.sqrt(var + np.float32(layer.epsilon))).astype(np.float32)
    inv = inv * gamma
    return c.R(x * inv + (beta - mean * inv))


def layer_norm(layer, x, mode):
    """A float32 island (autocast off for inputs and variables), the output rounded."""
    c = Ctx(layer, mode)
    x = f32(x)
    mean = x.mean(-1, keepdims=True, dtype=np.float32)
    var = np.square(x - mean).mean(-1, keepdims=True, dtype=np.float32)
    inv = (np.float32(1) / np.sqrt(var + np.float32(layer.epsilon))) * stored(layer.gamma)
    res = -mean * inv + stored(layer.beta)
    return c.R(x * inv + res)


def max_pool2d(layer, x, mode):
    c = Ctx(layer, mode)
    x = c.R(x)
    n, h, w, ch = x.shape
    p = layer.pool_size[0]
    x = x[:, :h // p * p, :w // p * p, :].reshape(n, h // p, p, w // p, p, ch)
    return x.max(axis=(2, 4))


def global_avg_pool(layer, x, mode):
    c = Ctx(layer, mode)
    x = c.R(x)
    axes = tuple(range(1, x.ndim - 1))
    return c.R(x.astype(np.float64).mean(axis=axes).astype(np.float32))  # ops.mean: float32 inside


def add(layer, xs, mode):
    c = Ctx(layer, mode)
    y = c.R(xs[0])
    for x in xs[1:]:
        y = c.R(y + c.R(x))
    return y


def multiply(layer, xs, mode):
    c = Ctx(layer, mode)
    y = c.R(xs[0])
    for x in xs[1:]:
        y = c.R(y * c.R(x))
    return y


def embedding(layer, ids, mode):
    c = Ctx(layer, mode)
    return c.R(stored(layer.embeddings)[ids])


def half_contraction(products, R):
    """tf.einsum (the Einsum op) on float16 CPU tensors: Eigen in half arithmetic.

    `products` are the float32 terms along the contracted index, in order.  Each product is
    rounded; below 8 terms they are summed one by one, each sum rounded; from 8 terms on, Eigen
    sums groups of 8 lanes (lane-wise half adds), then adds the lanes in float32 and rounds, then
    adds the leftover terms' sum.  Measured bit-exact for up to 8 terms; beyond that Eigen's
    blocking differs and this is only within a few half ulps.
    """
    p = [R(t) for t in products]
    n = len(p)
    vec = (n // 8) * 8
    lanes = None
    for k0 in range(0, vec, 8):
        blk = np.stack(p[k0:k0 + 8], -1)
        lanes = blk if lanes is None else R(lanes + blk)
    rest = None
    for t in p[vec:]:
        rest = t if rest is None else R(rest + t)
    if lanes is None:
        return rest
    packed = R(lanes.sum(-1, dtype=np.float32))
    return packed if rest is None else R(rest + packed)


def multi_head_attention(layer, query, value, mode):
    c = Ctx(layer, mode)
    R = c.R
    q = einsum_dense(layer._query_dense, R(query), mode)  # (B, T, N, H)
    k = einsum_dense(layer._key_dense, R(value), mode)    # (B, S, N, H)
    v = einsum_dense(layer._value_dense, R(value), mode)  # (B, S, N, H)
    half = c.has("einsum_f16") and c.compute == "float16"

    def contract(terms, whole):
        # tf.einsum: oneDNN (float32 accumulation, one rounding) for bfloat16, Eigen half for float16.
        return half_contraction(terms, R) if half else R(acc(whole))

    scale = np.float32(layer._inverse_sqrt_key_dim)
    if not c.has("attention_softmax"):
        q = R(q * R(scale))  # the simple rule: Keras's explicit path, query scaled first
    logits = contract([np.einsum("btn,bsn->bnts", q[..., h], k[..., h]) for h in range(q.shape[-1])],
                      np.einsum("btnh,bsnh->bnts", q.astype(np.float64), k.astype(np.float64)))
    if c.has("attention_softmax"):
        # ops.dot_product_attention: the rounded logits scaled in float32, softmax in float32.
        logits = logits * scale
    probs = R(softmax_f32(logits))
    ctx = contract([np.einsum("bnt,bnh->btnh", probs[..., s], v[:, s]) for s in range(v.shape[1])],
                   np.einsum("bnts,bsnh->btnh", probs.astype(np.float64), v.astype(np.float64)))
    return einsum_dense(layer._output_dense, ctx, mode)


# ---------------------------------------------------------------- models
LAYER_FNS = {
    "Dense": dense,
    "EinsumDense": einsum_dense,
    "Activation": activation_layer,
    "Conv2D": conv2d,
    "DepthwiseConv2D": depthwise_conv2d,
    "BatchNormalization": batch_norm,
    "LayerNormalization": layer_norm,
    "MaxPooling2D": max_pool2d,
    "GlobalAveragePooling2D": global_avg_pool,
    "GlobalAveragePooling1D": global_avg_pool,
    "Embedding": embedding,
}


def run_model(model, x, mode):
    """Walks a functional model's graph (single input, single output) with the emulation."""
    values = {id(model.inputs[0]): x}
    for layer in model.layers:
        cls = type(layer).__name__
        if cls == "InputLayer":
            continue
        for node in layer._inbound_nodes:
            args = [values[id(t)] for t in node.arguments.keras_tensors]
            if cls in LAYER_FNS:
                out = LAYER_FNS[cls](layer, args[0], mode)
            elif cls == "Add":
                out = add(layer, args, mode)
            elif cls == "Multiply":
                out = multiply(layer, args, mode)
            elif cls == "MultiHeadAttention":
                out = multi_head_attention(layer, args[0], args[1], mode)
            else:
                raise NotImplementedError(cls)
            values[id(node.outputs[0])] = out
    return f32(values[id(model.outputs[0])])


def max_rel_diff(emulated, keras_out):
    keras_out = f32(keras_out)
    return float(np.max(np.abs(f32(emulated) - keras_out)) / np.max(np.abs(keras_out)))
