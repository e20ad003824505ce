#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for EinsumDense equations beyond
one matrix product of the input and the kernel (issue #38 point 2): batched kernels (a
letter in the input, the kernel and the output: one matrix per index), input letters
summed alone (in neither the kernel nor the output), and diagonals (a letter repeated in
the input or the kernel, read as tf.einsum reads it), with and without bias and
activation, and one with a leading ellipsis.

Writes tests/data/einsum_dense_forms_golden.json: cases in the form
tests/layers/layer_golden_case.h reads (config, inputs, weights, outputs, projections,
gradients of sum(output * projection) w.r.t. the input and every trainable weight).

The C++ suites read it; they never run Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_einsum_dense_forms_goldens.py
"""
import json
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from golden_json import arr, jsonable  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "einsum_dense_forms_golden.json")
rng = np.random.default_rng(20263840)

# name -> (equation, output_shape, bias_axes, activation, input shape with a batch of 2)
CASES = {
    "batched_kernel": ("abc,bcd->abd", (3, 5), "d", None, (2, 3, 4)),
    "batched_kernel_r4": ("abcd,bde->abce", (2, 3, 5), "e", "tanh", (2, 2, 3, 4)),
    "batched_kernel_kept_first": ("abc,cbd->adb", (5, 3), "b", None, (2, 3, 4)),
    "batched_elementwise": ("abc,bc->abc", (3, 4), "c", "relu", (2, 3, 4)),
    "batched_kernel_reduced": ("abc,bc->ab", 3, None, None, (2, 3, 4)),
    "summed_alone": ("abc,cd->ad", 5, "d", None, (2, 3, 4)),
    "summed_alone_middle": ("abcd,de->ace", (3, 5), "e", "tanh", (2, 2, 3, 4)),
    "input_diagonal": ("abb,bc->ac", 5, "c", None, (2, 3, 3)),
    "kernel_diagonal": ("ab,bb->ab", 4, None, None, (2, 4)),
    "diagonal_and_batched": ("abbc,bcd->abd", (3, 5), None, None, (2, 3, 3, 4)),
    "leading_ellipsis_batched": ("...bc,bcd->...bd", (3, 5), "d", None, (2, 2, 3, 4)),
}


def run_case(name, equation, output_shape, bias_axes, activation, shape):
    layer = L.EinsumDense(equation, output_shape, bias_axes=bias_axes, activation=activation, name="einsum_dense")
    x = tf.constant(rng.standard_normal(shape).astype("float32"))
    layer(x)
    layer.set_weights([rng.uniform(-0.7, 0.7, size=tuple(w.shape)).astype("float32") for w in layer.weights])
    tvars = list(layer.trainable_variables)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = layer(x, training=False)
        proj = rng.standard_normal(tuple(y.shape)).astype("float32")
        loss = tf.reduce_sum(y * proj)
    gx = tape.gradient(loss, [x])
    gw = tape.gradient(loss, tvars)
    return {
        "name": name,
        "class_name": "EinsumDense",
        "config": jsonable(layer.get_config()),
        "inputs": [arr(np.asarray(x))],
        "masks": None,
        "call_arguments": {},
        "weights": [arr(np.asarray(w)) for w in layer.weights],
        "weight_names": [w.path for w in layer.weights],
        "outputs": [arr(np.asarray(y))],
        "projections": [arr(proj)],
        "input_grads": [arr(np.asarray(g)) for g in gx],
        "weight_grads": [arr(np.asarray(g)) for g in gw],
    }


def main():
    keras.utils.set_random_seed(40)
    cases = [run_case(name, *spec) for name, spec in CASES.items()]
    with open(OUT, "w") as f:
        json.dump({"keras_version": keras.__version__, "cases": cases}, f)
        f.write("\n")
    print("wrote", OUT, len(cases), "cases")


if __name__ == "__main__":
    main()
