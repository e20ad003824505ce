#!/usr/bin/env python3
"""Trains examples/moving_fashion_next_frame's model in real Keras, to compare test losses.

Not a golden-file generator: it makes the same moving Fashion-MNIST sequences as the
example (the same integer rules: each sequence one item shrunk to 14x14 by 2x2 means,
gliding and bouncing in a 32x32 frame), trains the same model (three ConvLSTM2D layers,
5x5, 3x3 and 1x1, return_sequences, BatchNormalization between, a Conv3D with a sigmoid;
binary crossentropy, Adam) and prints the test loss, which docs/recurrent.md ("Tutorial:
next-frame prediction") quotes beside Strata's with the same flags. Run with exactly:

    pip install keras tensorflow-cpu
    KERAS_BACKEND=tensorflow python3 tests/reference/moving_fashion_next_frame_keras.py --seed=1

Versions used for the figures in the docs: keras 3.15.1, tensorflow-cpu 2.21.0,
numpy 2.4.6, Python 3.11.7. Reads Debian's dataset-fashion-mnist files.
"""
import argparse
import os
import sys

import numpy as np

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist_files import images  # noqa: E402
from keras import layers  # noqa: E402

FRAME, ITEM = 32, 14
TRAVEL = FRAME - ITEM


def rule(i, k):
    return ((i + 1) * 2654435761 + k * 97) % 1000003


def bounce(start, speed, t):
    period = 2 * TRAVEL
    p = (start + speed * t) % period  # Python's % is already non-negative here
    return p if p <= TRAVEL else period - p


def moving_fashion(imgs, count, frames):
    out = np.zeros((count, frames, FRAME, FRAME, 1), "float32")
    for i in range(count):
        a = imgs[i]
        # the same float32 sums, in the same order, as the C++ example
        item = (((a[0::2, 0::2] + a[0::2, 1::2]) + a[1::2, 0::2]) + a[1::2, 1::2]) / np.float32(4)
        x0, y0 = rule(i, 1) % (TRAVEL + 1), rule(i, 2) % (TRAVEL + 1)
        vx, vy = rule(i, 3) % 5 - 2, rule(i, 4) % 5 - 2
        if vx == 0 and vy == 0:
            vx = 1
        for t in range(frames):
            x, y = bounce(x0, vx, t), bounce(y0, vy, t)
            out[i, t, y:y + ITEM, x:x + ITEM, 0] = item
    return out


def build_model(filters, steps):
    frames = keras.Input((steps, FRAME, FRAME, 1), name="frames")
    x = layers.ConvLSTM2D(filters, 5, padding="same", return_sequences=True)(frames)
    x = layers.BatchNormalization()(x)
    x = layers.ConvLSTM2D(filters, 3, padding="same", return_sequences=True)(x)
    x = layers.BatchNormalization()(x)
    x = layers.ConvLSTM2D(filters, 1, padding="same", return_sequences=True)(x)
    y = layers.Conv3D(1, 3, padding="same", activation="sigmoid", name="next_frames")(x)
    return keras.Model(frames, y)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=8)
    parser.add_argument("--filters", type=int, default=8)
    parser.add_argument("--frames", type=int, default=8)
    parser.add_argument("--train_sequences", type=int, default=400)
    parser.add_argument("--test_sequences", type=int, default=100)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("flags:", vars(args))

    train = moving_fashion(images("train-images-idx3-ubyte.gz", channel_axis=False), args.train_sequences, args.frames)
    test = moving_fashion(images("t10k-images-idx3-ubyte.gz", channel_axis=False), args.test_sequences, args.frames)
    keras.utils.set_random_seed(args.seed)
    model = build_model(args.filters, args.frames - 1)
    model.compile(optimizer=keras.optimizers.Adam(args.learning_rate), loss="binary_crossentropy", metrics=["mse"])
    model.fit(train[:, :-1], train[:, 1:], batch_size=args.batch_size, epochs=args.epochs, verbose=2)
    loss, mse = model.evaluate(test[:, :-1], test[:, 1:], verbose=0)
    print(f"Test loss (binary crossentropy): {loss:.4f}  (mse {mse:.5f})")


if __name__ == "__main__":
    main()
