#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for issue #38's keras.ops signal
operations: rfft, irfft, fft, fft2, ifft2, stft, extract_sequences, real, imag, conj and
angle of real tensors; and image.extract_patches / extract_patches_3d, gaussian_blur and
sobel_edges; cdist. A complex value is Keras's (real, imag) pair; a case's model outputs
one of the pair.

Writes, in make_keras_ops_goldens.py's format (its op_cases, run on these cases):
  tests/data/keras_ops/ops/<case>.keras     one functional model per case
  tests/data/keras_signal_ops_golden.json   per case: the file, the operation, its saved
                                            entries, inputs, Keras's output, a projection and
                                            the gradients of sum(output * projection)

Regenerate with (keras 3.15.1, tensorflow 2.21):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_keras_signal_ops_goldens.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops as K  # noqa: E402

OUT = os.path.join(base.DATA, "keras_signal_ops_golden.json")
base.rng = np.random.default_rng(20263839)


def signal_cases():
    return {
        "rfft_real": (lambda x: K.rfft(x[0])[0], [("any", (3, 8))], "RFFT"),
        "rfft_imag": (lambda x: K.rfft(x[0], fft_length=8)[1], [("any", (3, 8))], "RFFT"),
        "rfft_real_padded": (lambda x: K.rfft(x[0], fft_length=10)[0], [("any", (2, 7))], "RFFT"),
        "irfft": (lambda x: K.irfft((x[0], x[1]), fft_length=8), [("any", (3, 5)), ("any", (3, 5))], "IRFFT"),
        "irfft_default_length": (lambda x: K.irfft((x[0], x[1])), [("any", (2, 4)), ("any", (2, 4))], "IRFFT"),
        "fft_real": (lambda x: K.fft((x[0], x[1]))[0], [("any", (3, 4)), ("any", (3, 4))], "FFT"),
        "fft_imag": (lambda x: K.fft((x[0], x[1]))[1], [("any", (2, 6)), ("any", (2, 6))], "FFT"),
        "fft2_imag": (lambda x: K.fft2((x[0], x[1]))[1], [("any", (4, 6)), ("any", (4, 6))], "FFT2"),
        "fft2_real": (lambda x: K.fft2((x[0], x[1]))[0], [("any", (3, 2, 4)), ("any", (3, 2, 4))], "FFT2"),
        "ifft2_real": (lambda x: K.ifft2((x[0], x[1]))[0], [("any", (4, 2)), ("any", (4, 2))], "IFFT2"),
        "ifft2_imag": (lambda x: K.ifft2((x[0], x[1]))[1], [("any", (2, 6)), ("any", (2, 6))], "IFFT2"),
        "stft_real": (lambda x: K.stft(x[0], 8, 4, 8)[0], [("any", (20,))], "STFT"),
        "stft_hamming_short_imag": (lambda x: K.stft(x[0], 6, 3, 8, window="hamming")[1], [("any", (3, 17))],
                                    "STFT"),
        "stft_no_window_no_center": (lambda x: K.stft(x[0], 6, 4, 6, window=None, center=False)[0],
                                     [("any", (19,))], "STFT"),
        "stft_odd_hann_imag": (lambda x: K.stft(x[0], 7, 2, 10)[1], [("any", (16,))], "STFT"),
        "extract_sequences": (lambda x: K.extract_sequences(x[0], 4, 2), [("any", (3, 10))], "ExtractSequences"),
        "extract_sequences_stride_above_length": (lambda x: K.extract_sequences(x[0], 3, 4), [("any", (11,))],
                                                  "ExtractSequences"),
        "real": (lambda x: K.real(x[0]), ["any"], "Real"),
        "imag": (lambda x: K.imag(x[0]), ["any"], "Imag"),
        "conj": (lambda x: K.conj(x[0]), ["any"], "Conjugate"),
        "angle": (lambda x: K.angle(x[0]), ["any"], "Angle"),
        "extract_patches": (lambda x: K.image.extract_patches(x[0], 2), [("any", (4, 6, 3))], "ExtractPatches"),
        "extract_patches_same_strides": (lambda x: K.image.extract_patches(x[0], (2, 3), strides=(1, 2),
                                                                           padding="same"),
                                         [("any", (5, 6, 2))], "ExtractPatches"),
        "extract_patches_dilated_channels_first": (lambda x: K.image.extract_patches(
            x[0], 2, strides=1, dilation_rate=2, data_format="channels_first"), [("any", (2, 5, 5))],
            "ExtractPatches"),
        "extract_patches_3d": (lambda x: K.image.extract_patches_3d(x[0], (2, 2, 2)), [("any", (4, 4, 4, 2))],
                               "ExtractPatches"),
        "extract_patches_3d_strides_1": (lambda x: K.image.extract_patches_3d(x[0], 2, strides=1),
                                         [("any", (3, 3, 4, 1))], "ExtractPatches"),
        "gaussian_blur": (lambda x: K.image.gaussian_blur(x[0]), [("any", (5, 6, 3))], "GaussianBlur"),
        "gaussian_blur_uneven_channels_first": (lambda x: K.image.gaussian_blur(
            x[0], kernel_size=(3, 5), sigma=(0.8, 1.3), data_format="channels_first"), [("any", (2, 6, 7))],
            "GaussianBlur"),
        "sobel_edges": (lambda x: K.image.sobel_edges(x[0]), [("any", (4, 6, 3))], "SobelEdges"),
        "sobel_edges_channels_first": (lambda x: K.image.sobel_edges(x[0], data_format="channels_first"),
                                       [("any", (2, 5, 4))], "SobelEdges"),
        "cdist": (lambda x: K.cdist(x[0], x[1]), [("any", (3, 4)), ("any", (5, 4))], "CDist"),
        "cdist_broadcast_leading": (lambda x: K.cdist(x[0], x[1]), [("any", (2, 3, 4)), ("any", (1, 5, 4))],
                                    "CDist"),
    }


def main():
    os.makedirs(base.OPS_DIR, exist_ok=True)
    base.cases = signal_cases
    doc = {
        "generator": {"script": "tests/reference/make_keras_signal_ops_goldens.py", "keras": keras.__version__,
                      "backend": "tensorflow"},
        "cases": base.op_cases(),
    }
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(doc["cases"]), "cases")


if __name__ == "__main__":
    main()
