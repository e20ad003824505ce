"""Debian's dataset-fashion-mnist files as the tutorials' reference scripts read them (the
examples' Strata programs read the same files): pixels scaled to [0, 1], labels as int64.

Imported by fashion_mnist_cnn_keras.py, fashion_mnist_augmented_keras.py,
fashion_mnist_int8_keras.py and moving_fashion_next_frame_keras.py; not run on its own.
"""
import gzip

import numpy as np

DATA_DIR = "/usr/share/datasets/fashion-mnist/"


def images(name, channel_axis=True):
    """(N, 28, 28, 1) float32, or (N, 28, 28) without the channel axis."""
    with gzip.open(DATA_DIR + name) as f:
        raw = f.read()[16:]
    shape = (-1, 28, 28, 1) if channel_axis else (-1, 28, 28)
    return np.frombuffer(raw, np.uint8).reshape(shape).astype("float32") / 255.0


def labels(name):
    with gzip.open(DATA_DIR + name) as f:
        raw = f.read()[8:]
    return np.frombuffer(raw, np.uint8).astype("int64")
