#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for STFTSpectrogram.

Writes
  tests/data/stft_spectrogram_golden.json        cases (keras_layer_case.py's format) with
                                                 the kernels as Keras initializes them (not
                                                 randomized: the C++ test also checks that a
                                                 fresh Strata layer makes the same): every
                                                 mode, windows hann, hamming, blackman,
                                                 SciPy's others without parameters and
                                                 none, periodic, scaling
                                                 density/spectrum/none, padding valid/same,
                                                 one and two channels, channels_first,
                                                 expand_dims
  tests/data/stft_spectrogram/<name>.keras       a model saved by Keras (stft_dense: log
  tests/data/stft_spectrogram/<name>.h5          spectrogram, Flatten, Dense), a seeded
  .../<name>.input0.npy, .output0.npy            input and Keras's predictions

Needs SciPy (Keras's windows). Regenerate with (keras 3.15.1, tensorflow 2.21, scipy):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_stft_spectrogram_goldens.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keras_layer_case import new, run_case, save_model  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "stft_spectrogram_golden.json")
MODELS = os.path.join(DATA, "stft_spectrogram")
rng = np.random.default_rng(20263804)


def x(*shape):
    return rng.standard_normal(shape).astype("float32")


def cases():
    S = L.STFTSpectrogram
    c = []

    def add(name, layer, inputs):
        c.append(run_case(rng, name, layer, [inputs], randomize=False))

    add("log_hann_density", new(S, mode="log", frame_length=16, frame_step=4, fft_length=16), x(2, 64, 1))
    add("magnitude_hamming_periodic_spectrum_same",
        new(S, mode="magnitude", frame_length=10, frame_step=3, window="hamming", periodic=True, scaling="spectrum",
            padding="same"), x(2, 50, 2))
    add("psd_default_fft_expand_dims", new(S, mode="psd", frame_length=12, expand_dims=True), x(2, 40, 2))
    add("real_channels_first", new(S, mode="real", frame_length=8, frame_step=2, data_format="channels_first"),
        x(2, 2, 30))
    add("imag_blackman_no_scaling", new(S, mode="imag", frame_length=8, frame_step=4, window="blackman", scaling=None),
        x(2, 33, 1))
    add("stft_no_window_channels_first_expand", new(S, mode="stft", frame_length=8, frame_step=8, window=None,
                                                    data_format="channels_first", expand_dims=True), x(2, 1, 40))
    # Later cases draw from a generator of their own, so that the ones above (and the model
    # below) keep their inputs: the angle mode, and SciPy's other windows without parameters.
    more = np.random.default_rng(20261205)

    def add_more(name, layer, shape):
        c.append(run_case(more, name, layer, [more.standard_normal(shape).astype("float32")], randomize=False))

    add_more("angle_hann", new(S, mode="angle", frame_length=8, frame_step=4), (2, 40, 2))
    windows = ["bartlett", "triang", "flattop", "parzen", "bohman", "blackmanharris", "nuttall", "barthann", "cosine",
               "exponential", "tukey", "taylor", "lanczos", "hamming_periodic", "bart"]
    for k, window in enumerate(windows):
        add_more("magnitude_window_" + window,
                 new(S, mode="magnitude", frame_length=9 + k % 2, frame_step=3, window=window, periodic=k % 3 == 0),
                 (2, 30, 1))
    return c


def model():
    os.makedirs(MODELS, exist_ok=True)
    keras.backend.clear_session()
    keras.utils.set_random_seed(38)
    i = keras.Input((64, 1), name="audio")
    h = L.STFTSpectrogram(mode="log", frame_length=16, frame_step=8)(i)
    m = keras.Model(i, L.Dense(2)(L.Flatten()(h)), name="stft_dense")
    save_model(rng, m, os.path.join(MODELS, "stft_dense"))


def main():
    keras.utils.set_random_seed(1)
    doc = {"keras_version": keras.__version__, "cases": cases()}
    model()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(doc["cases"]), "cases")


if __name__ == "__main__":
    main()
