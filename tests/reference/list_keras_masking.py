#!/usr/bin/env python3
"""Which keras.layers classes pass a Keras mask on, asked of Keras 3.15 itself (issue #38,
point 2: "masks where Keras passes them").

Writes tests/data/keras_api/keras_3_15_masking.json:

  keras_version  keras.__version__
  layers         one entry per layer class of tests/data/keras_api/keras_3_15_api.json
                 (list_keras_api.py) that can be called here, sorted by class_name:
                   class_name, config       the layer as built below (get_config after
                                            the call; a default-constructed layer where
                                            its constructor takes no required argument)
                   inputs                   [{"shape", "dtype"}] without the batch axis
                   masks                    the shape of the bool mask attached to each
                                            input (without the batch axis): the input's
                                            shape less its last axis, as Embedding's
                                            mask_zero and Masking make them, unless the
                                            entry in CASES says otherwise
                   supports_masking         layer.supports_masking after the call
                   call_takes_mask          whether call() has a `mask` argument (Keras
                                            then hands it the input's mask)
                   output_masks             per output: the shape (without the batch axis)
                                            of the mask Keras attaches to it, or null for
                                            none
                   output_is_input          whether the call returned its input tensor
                                            itself, which keeps the input's mask whatever
                                            supports_masking says (the image augmentation
                                            layers in inference, MaxNumBoundingBoxes)
  left_out       {class_name: why}: wrappers of other frameworks' code, cells and bases
                 that are not called on tensors by themselves, and classes this Keras
                 cannot construct here (STFTSpectrogram needs scipy).

How. Each layer is called eagerly (training=False) on seeded tensors of batch 2, a random
bool mask attached to every input (set_keras_mask), as a Functional model's layers are
called; the mask on each output is what Keras's __call__ attached (compute_mask of the
input's mask where supports_masking). This is an experiment on Keras, not a reading of its
source. A layer that raises on the call stops the script: a new Keras needs an entry in
CASES, not a silent omission.

The C++ suite (tests/layers/mask_propagation_keras_test.cc) builds every class Strata
registers from these configs and compares the masks its layers pass on; it never runs
Python. Regenerate with:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/list_keras_masking.py
"""
import json
import os
import sys
import warnings

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers as L  # noqa: E402
from keras.src.backend.common.masking import get_keras_mask, set_keras_mask  # noqa: E402

from golden_json import jsonable  # noqa: E402 (tests/reference/golden_json.py)

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
API = os.path.join(ROOT, "tests", "data", "keras_api", "keras_3_15_api.json")
OUT = os.path.join(ROOT, "tests", "data", "keras_api", "keras_3_15_masking.json")
rng = np.random.default_rng(20261201)

SEQ, IMG, VOL = (4, 6), (6, 6, 3), (4, 4, 4, 2)

LEFT_OUT = {
    "FlaxLayer": "wraps another framework's code",
    "JaxLayer": "wraps another framework's code",
    "TFSMLayer": "wraps another framework's code",
    "TorchModuleWrapper": "wraps another framework's code",
    "Lambda": "wraps Python code",
    "InputLayer": "makes the model's inputs; not called on tensors",
    "GRUCell": "a cell, called by RNN with its states",
    "LSTMCell": "a cell, called by RNN with its states",
    "SimpleRNNCell": "a cell, called by RNN with its states",
    "StackedRNNCells": "cells, called by RNN with their states",
    "Pipeline": "its layers' masks are what it passes on (Keras's Pipeline is a sequence of them)",
}


def case(*args, inputs=None, dtype="float32", masks=None, separate=False, **kwargs):
    """A layer's constructor arguments; its inputs' shapes (one list per input), their
    dtype, the masks' shapes when not the inputs' less their last axis, and whether the
    inputs are separate arguments (layer(q, v)) rather than a list."""
    return {"args": args, "kwargs": kwargs, "inputs": inputs, "dtype": dtype, "masks": masks, "separate": separate}


def default_inputs(class_name):
    if "3D" in class_name:
        return [VOL]
    if "2D" in class_name or class_name.startswith(("Random", "Aug", "Auto", "Cut", "Mix", "Equal", "Solar",
                                                           "Contrast", "MaxNumBounding", "Rand")):
        return [IMG]
    return [SEQ]


CASES = {
    "Activation": case("tanh"),
    "AdaptiveAveragePooling1D": case(2), "AdaptiveAveragePooling2D": case(2), "AdaptiveAveragePooling3D": case(2),
    "AdaptiveMaxPooling1D": case(2), "AdaptiveMaxPooling2D": case(2), "AdaptiveMaxPooling3D": case(2),
    "Add": case(inputs=[SEQ, SEQ]), "Subtract": case(inputs=[SEQ, SEQ]), "Multiply": case(inputs=[SEQ, SEQ]),
    "Average": case(inputs=[SEQ, SEQ]), "Maximum": case(inputs=[SEQ, SEQ]), "Minimum": case(inputs=[SEQ, SEQ]),
    "Concatenate": case(inputs=[SEQ, SEQ]),
    "Dot": case(2, inputs=[SEQ, SEQ]),
    "Attention": case(inputs=[SEQ, SEQ]), "AdditiveAttention": case(inputs=[SEQ, SEQ]),
    "MultiHeadAttention": case(2, 2, inputs=[SEQ, SEQ], separate=True),
    "GroupQueryAttention": case(2, 2, 1, inputs=[SEQ, SEQ], separate=True),
    "AlphaDropout": case(0.2), "Dropout": case(0.2), "GaussianDropout": case(0.2), "GaussianNoise": case(0.2),
    "SpatialDropout1D": case(0.2), "SpatialDropout2D": case(0.2), "SpatialDropout3D": case(0.2),
    "AveragePooling1D": case(2), "AveragePooling2D": case(2), "AveragePooling3D": case(2),
    "MaxPooling1D": case(2), "MaxPooling2D": case(2), "MaxPooling3D": case(2),
    "Bidirectional": case(L.LSTM(2, return_sequences=True)),
    "CategoryEncoding": case(num_tokens=5, inputs=[(4,)], dtype="int32", masks=[()]),
    "CenterCrop": case(4, 4, inputs=[IMG]),
    "Conv1D": case(2, 2), "Conv2D": case(2, 2), "Conv3D": case(2, 2),
    "Conv1DTranspose": case(2, 2), "Conv2DTranspose": case(2, 2), "Conv3DTranspose": case(2, 2),
    "ConvLSTM1D": case(2, 2, inputs=[(3, 6, 2)], masks=[(3,)]),
    "ConvLSTM2D": case(2, 2, inputs=[(3, 5, 5, 2)], masks=[(3,)]),
    "ConvLSTM3D": case(2, 2, inputs=[(3, 4, 4, 4, 2)], masks=[(3,)]),
    "Dense": case(3),
    "DepthwiseConv1D": case(2), "DepthwiseConv2D": case(2),
    "SeparableConv1D": case(2, 2), "SeparableConv2D": case(2, 2),
    "Discretization": case(bin_boundaries=[0.0, 1.0]),
    "EinsumDense": case("abc,cd->abd", (None, 3)),
    "Embedding": case(9, 3, inputs=[(4,)], dtype="int32", masks=[()]),
    "ReversibleEmbedding": case(9, 3, inputs=[(4,)], dtype="int32", masks=[()]),
    "GRU": case(2), "LSTM": case(2), "SimpleRNN": case(2),
    "RNN": case(L.LSTMCell(2)),
    "GroupNormalization": case(groups=2),
    "HashedCrossing": case(5, inputs=[(1,), (1,)], dtype="int32", masks=[(), ()]),
    "Hashing": case(5, inputs=[(4,)], dtype="int32", masks=[()]),
    "IntegerLookup": case(vocabulary=[1, 2, 3], inputs=[(4,)], dtype="int32", masks=[()]),
    "StringLookup": case(vocabulary=["a", "b"], inputs=[(4,)], dtype="string", masks=[()]),
    "TextVectorization": case(vocabulary=["a", "b"], inputs=[()], dtype="string", masks=[()]),
    "Normalization": case(mean=0.5, variance=2.0),
    "Permute": case((2, 1)),
    "RepeatVector": case(3, inputs=[(6,)], masks=[()]),
    "Rescaling": case(0.5),
    "Reshape": case((24,)),
    "Resizing": case(4, 4, inputs=[IMG]),
    "TimeDistributed": case(L.Dense(2)),
    "SpectralNormalization": case(L.Dense(2)),
    "MaxNumBoundingBoxes": case(3),
    "RandomCrop": case(4, 4),
    "RandomTranslation": case(0.1, 0.1), "RandomZoom": case(0.1), "RandomRotation": case(0.1),
    "RandomBrightness": case(0.2), "RandomColorDegeneration": case(0.2), "RandomContrast": case(0.2),
    "RandomHue": case(0.2), "RandomSaturation": case(0.2), "RandomSharpness": case(0.2),
    "RandomPosterization": case(2),
    "MelSpectrogram": case(inputs=[(4096,)], masks=[()]),
    # Keras's Softmax broadcasts its mask against the inputs from the right (NumPy's rule):
    # a mask of the steps alone, (batch, 4), does not fit (batch, 4, 6). One of the input's
    # shape does.
    "Softmax": case(masks=[SEQ]),
}


def make_values(shape, dtype):
    if dtype == "string":
        words = np.array(["a", "b", "c"])
        return tf.constant(words[rng.integers(0, 3, size=shape)])
    if dtype == "int32":
        return tf.constant(rng.integers(0, 4, size=shape).astype("int32"))
    return tf.constant(rng.standard_normal(shape).astype("float32"))


def probe(class_name, cls):
    c = CASES.get(class_name, case())
    input_shapes = c["inputs"] or default_inputs(class_name)
    mask_shapes = c["masks"] or [tuple(s[:-1]) for s in input_shapes]
    keras.backend.clear_session()
    layer = cls(*c["args"], **c["kwargs"])
    xs = [make_values((2,) + tuple(s), c["dtype"]) for s in input_shapes]
    for x, m in zip(xs, mask_shapes):
        set_keras_mask(x, tf.constant(rng.uniform(size=(2,) + tuple(m)) < 0.6))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "does not support masking and will destroy the mask"
        if c["separate"]:
            y = layer(*xs, training=False)
        else:
            y = layer(xs[0] if len(xs) == 1 else xs, training=False)
    ys = list(y) if isinstance(y, (list, tuple)) else [y]
    out_masks = [get_keras_mask(t) for t in ys]
    return {
        "class_name": class_name,
        "config": jsonable(layer.get_config()),
        "inputs": [{"shape": list(s), "dtype": c["dtype"]} for s in input_shapes],
        "masks": [list(m) for m in mask_shapes],
        "supports_masking": bool(layer.supports_masking),
        "call_takes_mask": bool(layer._call_has_mask_arg),
        "output_masks": [None if m is None else list(m.shape[1:]) for m in out_masks],
        "output_is_input": any(t is x for t in ys for x in xs),
    }


def main():
    with open(API) as f:
        api = json.load(f)
    entries, left_out = [], {}
    for e in api["layers"]:
        name = e["class_name"]
        if name in LEFT_OUT:
            left_out[name] = LEFT_OUT[name]
            continue
        cls = getattr(L, e["python_class"], None) or getattr(L, name)
        try:
            entries.append(probe(name, cls))
        except ImportError as ex:  # STFTSpectrogram: scipy
            left_out[name] = "Keras cannot construct it here: " + str(ex).split(".")[0]
    doc = {"keras_version": keras.__version__, "layers": sorted(entries, key=lambda x: x["class_name"]),
           "left_out": dict(sorted(left_out.items()))}
    with open(OUT, "w") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    passing = [x["class_name"] for x in doc["layers"] if any(m is not None for m in x["output_masks"])]
    print("wrote", OUT, len(entries), "classes;", len(passing), "pass a mask on:", ", ".join(passing))


if __name__ == "__main__":
    main()
