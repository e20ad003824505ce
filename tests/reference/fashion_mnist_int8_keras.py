#!/usr/bin/env python3
"""Keras's own int8 accuracy on the Fashion-MNIST tutorials, beside Strata's.

Not a golden-file generator: trains examples/fashion_mnist_mlp's and
examples/fashion_mnist_cnn's models in real Keras with the examples' defaults, evaluates
each on the 10000 test images, then `model.quantize("int8")` (Keras quantizes the Dense
layers: their inputs per row, their kernels per column) and evaluates again. It prints
both accuracies and their difference in points, which docs/precision.md quotes beside
`build/examples/fashion_mnist_mlp --quantize=int8` and
`build/examples/fashion_mnist_cnn --quantize=int8`. Run with exactly:

    pip install keras tensorflow-cpu
    KERAS_BACKEND=tensorflow python3 tests/reference/fashion_mnist_int8_keras.py --seed=1

Versions used for the figures in the docs: keras 3.15.1, tensorflow-cpu 2.21.0. Reads
Debian's dataset-fashion-mnist files, as the examples do: pixels scaled to [0, 1], the
full 60000/10000 split, Adam 1e-3, sparse categorical crossentropy from logits, batch 32;
the MLP Flatten -> Dense(128, relu) -> Dense(10) for 10 epochs, the CNN Conv2D(32, 3,
relu) -> MaxPooling2D -> Conv2D(64, 3, relu) -> MaxPooling2D -> Flatten -> Dropout(0.25)
-> Dense(10) for 5.
"""
import argparse
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist_files import images, labels  # noqa: E402


def mlp():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Flatten(),
        keras.layers.Dense(128, activation="relu"),
        keras.layers.Dense(10),
    ])


def cnn():
    return keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Flatten(),
        keras.layers.Dropout(0.25),
        keras.layers.Dense(10),
    ])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--models", default="mlp,cnn")
    args = parser.parse_args()
    print("flags:", vars(args))
    x_train, y_train = images("train-images-idx3-ubyte.gz"), labels("train-labels-idx1-ubyte.gz")
    x_test, y_test = images("t10k-images-idx3-ubyte.gz"), labels("t10k-labels-idx1-ubyte.gz")
    for name in args.models.split(","):
        keras.utils.set_random_seed(args.seed)
        model, epochs = (mlp(), 10) if name == "mlp" else (cnn(), 5)
        model.compile(optimizer=keras.optimizers.Adam(1e-3),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
        model.fit(x_train, y_train, batch_size=32, epochs=epochs, verbose=2)
        float_accuracy = model.evaluate(x_test, y_test, verbose=0)[1]
        model.quantize("int8")
        int8_accuracy = model.evaluate(x_test, y_test, verbose=0)[1]
        print(f"{name}: float32 test accuracy {float_accuracy:.4f}, int8 {int8_accuracy:.4f}, "
              f"difference {100 * (int8_accuracy - float_accuracy):+.2f} points", flush=True)


if __name__ == "__main__":
    main()
