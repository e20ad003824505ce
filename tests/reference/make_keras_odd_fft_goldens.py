#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops's Fourier transforms
of odd lengths (issue #38): rfft, irfft, fft, fft2, stft and istft whose transform length is
odd, one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, and writes
  tests/data/keras_ops/odd_fft/<case>.keras   one functional model per case
  tests/data/keras_ops_odd_fft_golden.json    per case as keras_ops_golden.json's cases
tests/io/keras_ops_test.cc runs the cases of every such file alike.

An odd-length real transform has bins 0 .. (n - 1) / 2, each but the first standing for
itself and its conjugate; there is no Nyquist bin.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_odd_fft_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
from keras import ops as K  # noqa: E402


def cases():
    pair = lambda shape: [("any", shape), ("any", shape)]  # noqa: E731
    return {
        "rfft_odd_real": (lambda x: K.rfft(x[0])[0], [("any", (3, 7))], "RFFT"),
        "rfft_odd_imag": (lambda x: K.rfft(x[0])[1], [("any", (3, 7))], "RFFT"),
        "rfft_odd_fft_length_imag": (lambda x: K.rfft(x[0], fft_length=9)[1], [("any", (2, 8))], "RFFT"),
        "rfft_length_one": (lambda x: K.rfft(x[0])[0], [("any", (3, 1))], "RFFT"),
        "irfft_odd_length": (lambda x: K.irfft((x[0], x[1]), fft_length=7), pair((3, 4)), "IRFFT"),
        "fft_odd_real": (lambda x: K.fft((x[0], x[1]))[0], pair((2, 5)), "FFT"),
        "fft_odd_imag": (lambda x: K.fft((x[0], x[1]))[1], pair((2, 5)), "FFT"),
        "fft2_odd_real": (lambda x: K.fft2((x[0], x[1]))[0], pair((3, 5)), "FFT2"),
        "ifft2_odd_imag": (lambda x: K.ifft2((x[0], x[1]))[1], pair((5, 3)), "IFFT2"),
        "stft_odd_fft_real": (lambda x: K.stft(x[0], 7, 3, 7)[0], [("any", (24,))], "STFT"),
        "stft_odd_fft_hamming_imag": (lambda x: K.stft(x[0], 5, 2, 9, window="hamming")[1], [("any", (2, 19))],
                                      "STFT"),
        "istft_odd_fft": (lambda x: K.istft((x[0], x[1]), 7, 3, 7), pair((6, 4)), "ISTFT"),
        "istft_odd_fft_length": (lambda x: K.istft((x[0], x[1]), 5, 2, 9, length=12, window="hamming"),
                                 pair((5, 5)), "ISTFT"),
    }


def main():
    base.write_case_file("tests/reference/make_keras_odd_fft_goldens.py", "odd_fft", "keras_ops_odd_fft_golden.json",
                         cases, 20261206, ["as keras_ops_golden.json's cases"])


if __name__ == "__main__":
    main()
