#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for the keras.ops operations that
Keras 3.15 saves in a functional model but cannot compute there (issue #38): its operation
classes call the backend wrongly, while the keras.ops functions, called eagerly, compute.
Strata computes what the functions compute.

- conv_transpose: ConvTranspose.call passes output_padding where the backend takes padding
  (AttributeError: 'NoneType' object has no attribute 'lower'). The function:
  tf.nn.conv_transpose to Keras's output size (its length rule with padding and
  output_padding), kernel (window..., out_channels, in_channels).
- histogram: Histogram.call calls backend.math.histogram, which no backend defines
  (AttributeError). The function (backend.numpy.histogram): the values inside
  [min, max] (x's own, or `range`) counted into `bins` equal bins of
  tf.linspace(min, max, bins + 1) by searchsorted(right) on the inner edges (x's dtype);
  (counts, edges). It takes a 1-D x: in a functional model, the batch.
- view_as_complex: its TensorFlow backend multiplies a float32 tensor by the Python complex
  1j (TypeError). The function gives x[..., 0] + 1j x[..., 1]; view_as_real gives the pairs
  back, the one way Strata (which has no complex dtype) reads the result.

Each case's model is built and saved by Keras, which then fails to call it (recorded under
"keras_cannot_compute"); the output and the gradients of sum(output * projection) are the
case's keras.ops calls run eagerly on the same inputs. It runs make_keras_ops_goldens.py's
op_cases with eager=True over this file's cases, with its own seeded generator, and writes
  tests/data/keras_ops/eager_only/<case>.keras   one functional model per case
  tests/data/keras_ops_eager_only_golden.json    per case as keras_ops_golden.json's cases
tests/io/keras_ops_test.cc runs the cases of every such file alike.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_eager_only_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
from keras import ops as K  # noqa: E402

kernels = np.random.default_rng(20261203)


def kernel(*shape):
    return kernels.uniform(-1.0, 1.0, shape).astype("float32")


def cases():
    k2 = kernel(3, 3, 4, 2)  # (window, out_channels, in_channels)
    k2_even = kernel(2, 2, 3, 2)
    k1 = kernel(3, 2, 3)
    k3 = kernel(2, 2, 2, 2, 2)
    ct = K.conv_transpose
    return {
        "conv_transpose_2d": (lambda x: ct(x[0], k2, strides=1), [("any", (5, 5, 2))], "ConvTranspose"),
        "conv_transpose_2d_strided_same": (lambda x: ct(x[0], k2, strides=2, padding="same"), [("any", (4, 3, 2))],
                                           "ConvTranspose"),
        "conv_transpose_2d_output_padding": (
            lambda x: ct(x[0], k2, strides=2, padding="valid", output_padding=1), [("any", (3, 4, 2))], "ConvTranspose"),
        "conv_transpose_2d_same_output_padding": (
            lambda x: ct(x[0], k2_even, strides=(2, 3), padding="same", output_padding=(1, 2)), [("any", (3, 2, 2))],
            "ConvTranspose"),
        "conv_transpose_2d_dilated": (lambda x: ct(x[0], k2, strides=1, dilation_rate=2), [("any", (4, 4, 2))],
                                      "ConvTranspose"),
        "conv_transpose_2d_channels_first": (
            lambda x: ct(x[0], k2, strides=2, data_format="channels_first"), [("any", (2, 3, 4))], "ConvTranspose"),
        "conv_transpose_1d": (lambda x: ct(x[0], k1, strides=2), [("any", (5, 3))], "ConvTranspose"),
        "conv_transpose_3d": (lambda x: ct(x[0], k3, strides=2, padding="same"), [("any", (2, 3, 2, 2))],
                              "ConvTranspose"),
        "histogram_counts": (lambda x: K.histogram(x[0], bins=4)[0], [("any", ())], "Histogram", 9),
        "histogram_edges": (lambda x: K.histogram(x[0], bins=4)[1], [("any", ())], "Histogram", 9),
        "histogram_range_counts": (lambda x: K.histogram(x[0], bins=5, range=(-1.0, 1.5))[0], [("any", ())],
                                   "Histogram", 12),
        "histogram_range_edges": (lambda x: K.histogram(x[0], bins=5, range=(-1.0, 1.5))[1], [("any", ())],
                                  "Histogram", 12),
        "histogram_default_bins": (lambda x: K.histogram(x[0])[0], [("any", ())], "Histogram", 20),
        "view_as_complex_as_real": (lambda x: K.view_as_real(K.view_as_complex(x[0])), [("any", (3, 2))],
                                    "ViewAsComplex"),
        # values on the range's ends and inner edges, and outside it; on x's own edges
        "histogram_on_range_edges": (lambda x: K.histogram(x[0], bins=5, range=(-1.0, 1.5))[0],
                                     [("on_range_edges", ())], "Histogram", 10),
        "histogram_on_own_edges": (lambda x: K.histogram(x[0], bins=4)[0], [("on_own_edges", ())], "Histogram", 7),
    }


def on_edges(shape, kind):
    """The histogram cases' values that lie on bin edges (exact in float32)."""
    values = {"on_range_edges": [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5, -1.5, 2.0, 0.25, -0.75],
              "on_own_edges": [0.0, 1.0, 2.0, 3.0, 4.0, 2.0, 3.5]}.get(kind)
    if values is None:
        return None
    assert len(values) == shape[0], (kind, shape)
    return np.array(values, "float32")


def main():
    base.write_case_file("tests/reference/make_keras_ops_eager_only_goldens.py", "eager_only",
                         "keras_ops_eager_only_golden.json", cases, 20261203,
                         ["as keras_ops_golden.json's cases, the output and gradients from the keras.ops calls run "
                          "eagerly: keras_cannot_compute says how Keras fails to call the saved model"],
                         make_fn=base.make_with_fixed({}, on_edges), eager=True)


if __name__ == "__main__":
    main()
