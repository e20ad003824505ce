#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for MelSpectrogram.

Writes
  tests/data/mel_spectrogram_golden.json         cases (keras_layer_case.py's format; the
                                                 layer has no weights): hann and hamming
                                                 windows of even and odd sequence_length,
                                                 none, sequence_length below fft_length,
                                                 strides that do and do not divide it,
                                                 mag_exp 1, 1.5 and 2, power_to_db on and
                                                 off, a top_db floor that clamps, ref_power,
                                                 min_power, min_freq and max_freq
  tests/data/mel_spectrogram/<name>.keras        a model saved by Keras (mel_dense:
  tests/data/mel_spectrogram/<name>.h5           MelSpectrogram, Flatten, Dense), a seeded
  .../<name>.input0.npy, .output0.npy            input and Keras's predictions

Regenerate with (keras 3.15.1, tensorflow 2.21):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_mel_spectrogram_goldens.py
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
OUT = os.path.join(DATA, "mel_spectrogram_golden.json")
MODELS = os.path.join(DATA, "mel_spectrogram")
rng = np.random.default_rng(20263838)


def x(*shape):
    return rng.standard_normal(shape).astype("float32")


def cases():
    M = L.MelSpectrogram
    c = []

    def add(name, layer, inputs):
        c.append(run_case(rng, name, layer, [inputs], randomize=False))

    add("hann_db", new(M, fft_length=64, sequence_stride=16, sampling_rate=8000, num_mel_bins=16), x(2, 200))
    add("hamming_short_window_top_db_clamps",
        new(M, fft_length=64, sequence_stride=20, sequence_length=48, window="hamming", sampling_rate=8000,
            num_mel_bins=12, min_freq=100.0, max_freq=3000.0, top_db=10.0, mag_exp=1.0, ref_power=2.0), x(2, 150))
    # A quarter of the amplitude: at full amplitude the power case's input gradients (about 1,
    # sums of large terms that cancel) differ from Keras's by up to 2.2e-5 (the two float32
    # FFTs round differently), just over 1e-5 + 1e-5 relative.
    add("hann_odd_length_power",
        new(M, fft_length=32, sequence_stride=8, sequence_length=31, sampling_rate=16000, num_mel_bins=10,
            power_to_db=False), x(3, 90) * 0.25)
    add("no_window_mag_exp_1_5_min_power",
        new(M, fft_length=32, sequence_stride=12, window=None, sampling_rate=4000, num_mel_bins=8,
            mag_exp=1.5, min_power=1e-3, top_db=40.0), x(2, 100))
    # Odd FFT lengths, from a generator of their own (the cases above and the model below keep
    # their inputs).
    more = np.random.default_rng(20261207)
    for name, layer in [("hann_odd_fft_length", new(M, fft_length=33, sequence_stride=10, sampling_rate=8000,
                                                    num_mel_bins=8)),
                        ("hamming_odd_fft_length_short_window",
                         new(M, fft_length=31, sequence_stride=7, sequence_length=20, window="hamming",
                             sampling_rate=8000, num_mel_bins=6, power_to_db=False))]:
        c.append(run_case(more, name, layer, [more.standard_normal((2, 90)).astype("float32")], randomize=False))
    return c


def model():
    os.makedirs(MODELS, exist_ok=True)
    keras.backend.clear_session()
    keras.utils.set_random_seed(38)
    i = keras.Input((160,), name="audio")
    h = L.MelSpectrogram(fft_length=32, sequence_stride=16, sampling_rate=8000, num_mel_bins=8)(i)
    m = keras.Model(i, L.Dense(2)(L.Flatten()(h)), name="mel_dense")
    save_model(rng, m, os.path.join(MODELS, "mel_dense"))


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
