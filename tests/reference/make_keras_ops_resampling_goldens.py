#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops.image.scale_and_translate,
and keras.ops.image.resize with antialias=True (which TensorFlow computes with ScaleAndTranslate)
(issue #38), one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/resampling/<case>.keras   one functional model per case
  tests/data/keras_ops_resampling_golden.json    per case as keras_ops_golden.json's cases (the
                                                 file, the operation, its saved entries, inputs,
                                                 Keras's output with its dtype, a projection and
                                                 the gradients of sum(output * projection) w.r.t.
                                                 the inputs)
tests/io/keras_ops_test.cc runs the cases of every such file alike.

What Keras 3.15.1 computes, and so what the cases hold: per spatial axis in turn, a tensordot
with a weight matrix (input size, output size) whose column j samples the input at
((j + 0.5) - translation) / scale - 0.5 with the method's kernel (triangle, Keys cubic,
Lanczos 3 or 5) of the distance, stretched by 1 / scale when antialiasing a downsampling,
normalized, and zero where the sample falls outside the input. output_shape lists every axis,
the batch's as None; scale and translation are NumPy constants, one value per spatial axis.
Integer images make Keras's own model fail when run (its TensorFlow backend clips the
float32 result by int32 bounds: "cannot compute Minimum"), so no case has them; the method
"triangle", which Keras documents as linear, its TensorFlow backend refuses.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_resampling_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops as K  # noqa: E402


def f32(*v):
    return np.array(v, np.float32)


def st(shape, scale, translation, dims=(1, 2), **kw):
    return lambda x: K.image.scale_and_translate(x[0], shape, f32(*scale), f32(*translation), spatial_dims=dims, **kw)


def resize(size, interpolation, **kw):
    return lambda x: K.image.resize(x[0], size, interpolation=interpolation, antialias=True, **kw)


def cases():
    image = [("positive", (8, 8, 3))]
    op = "ScaleAndTranslate"
    return {
        # upsampling rows, downsampling columns (antialiased), translated both ways
        "scale_and_translate_bilinear": (st((None, 12, 6, 3), (1.5, 0.75), (0.5, -1.0), method="bilinear"), image,
                                         op),
        "scale_and_translate_linear_no_antialias": (
            st((None, 12, 6, 3), (1.5, 0.75), (0.5, -1.0), method="linear", antialias=False), image, op),
        "scale_and_translate_bilinear_halves": (st((None, 4, 4, 3), (0.5, 0.5), (0.0, 0.0), method="bilinear"),
                                                image, op),
        "scale_and_translate_bicubic": (st((None, 11, 5, 3), (1.4, 0.6), (-0.7, 0.3), method="bicubic"), image, op),
        "scale_and_translate_cubic_no_antialias": (
            st((None, 5, 5, 3), (0.6, 0.6), (0.2, 0.2), method="cubic", antialias=False), image, op),
        "scale_and_translate_lanczos3": (st((None, 10, 7, 3), (1.25, 0.8), (0.0, 0.5), method="lanczos3"), image,
                                         op),
        "scale_and_translate_lanczos5": (st((None, 9, 6, 3), (1.1, 0.7), (0.3, 0.0), method="lanczos5"), image, op),
        # samples moved off the image read nothing: zeros
        "scale_and_translate_out_of_bounds": (st((None, 8, 8, 3), (1.0, 2.0), (4.5, -6.0), method="bilinear"),
                                              image, op),
        # channels first (the spatial axes 2 and 3), and one spatial axis of a sequence counted from the end
        "scale_and_translate_channels_first": (st((None, 3, 6, 10), (0.75, 1.25), (0.0, 0.25), dims=(2, 3),
                                                  method="trilinear"), [("positive", (3, 8, 8))], op),
        "scale_and_translate_one_axis_negative": (st((None, 13, 4), (1.6,), (0.4,), dims=(-2,), method="tricubic"),
                                                  [("any", (10, 4))], op),
        # keras.ops.image.resize with antialias: TF's resize then runs ScaleAndTranslate (bilinear's
        # triangle, bicubic's Keys cubic, the Lanczos kernels) widening a shrink's kernel; nearest and
        # area ignore it
        "resize_antialias_bilinear": (resize((5, 3), "bilinear"), [("positive", (12, 9, 2))], "Resize"),
        "resize_antialias_bicubic": (resize((4, 11), "bicubic"), [("positive", (12, 9, 2))], "Resize"),
        "resize_antialias_lanczos3": (resize((5, 4), "lanczos3"), [("positive", (12, 9, 2))], "Resize"),
        "resize_antialias_lanczos5_grows": (resize((15, 4), "lanczos5"), [("positive", (12, 9, 2))], "Resize"),
        "resize_antialias_nearest": (resize((5, 4), "nearest"), [("positive", (12, 9, 2))], "Resize"),
        "resize_antialias_area": (resize((5, 4), "area"), [("positive", (12, 9, 2))], "Resize"),
        "resize_antialias_crop_to_aspect_ratio": (resize((4, 4), "bilinear", crop_to_aspect_ratio=True),
                                                  [("positive", (12, 9, 2))], "Resize"),
        "resize_antialias_channels_first": (resize((3, 5), "bicubic", data_format="channels_first"),
                                            [("positive", (2, 9, 12))], "Resize"),
    }


def main():
    base.write_case_file("tests/reference/make_keras_ops_resampling_goldens.py", "resampling",
                         "keras_ops_resampling_golden.json", cases, 20261201,
                         ["as keras_ops_golden.json's cases; an output's dtype is Keras's"])


if __name__ == "__main__":
    main()
