#!/usr/bin/env python3
"""Trains examples/fashion_mnist_cnn's model in real Keras, to compare accuracies.

Not a golden-file generator: it prints each epoch's training loss and accuracy and the
test accuracy after the last epoch, which docs/conv_layers.md quotes beside Strata's
`build/examples/fashion_mnist_cnn` with the same settings. Run with exactly:

    pip install keras tensorflow-cpu
    KERAS_BACKEND=tensorflow python3 tests/reference/fashion_mnist_cnn_keras.py --batch_size=128 --dropout=0.5 --seed=1

Versions used for the figures in the docs: keras 3.15.1, tensorflow-cpu 2.21.0,
numpy 2.4.6, Python 3.11.7. Reads Debian's dataset-fashion-mnist files, as the example
does: Conv2D(32, 3, relu) -> MaxPooling2D -> Conv2D(64, 3, relu) -> MaxPooling2D ->
Flatten -> Dropout -> Dense(10), Adam 1e-3, sparse categorical crossentropy from logits,
pixels scaled to [0, 1], the full 60000/10000 split, shuffled every epoch.
"""
import argparse
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist_files import images, labels  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--dropout", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("flags:", vars(args))

    x_train, y_train = images("train-images-idx3-ubyte.gz"), labels("train-labels-idx1-ubyte.gz")
    x_test, y_test = images("t10k-images-idx3-ubyte.gz"), labels("t10k-labels-idx1-ubyte.gz")
    keras.utils.set_random_seed(args.seed)
    model = keras.Sequential([
        keras.Input((28, 28, 1)),
        keras.layers.Conv2D(32, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Conv2D(64, 3, activation="relu"),
        keras.layers.MaxPooling2D(2),
        keras.layers.Flatten(),
        keras.layers.Dropout(args.dropout),
        keras.layers.Dense(10),
    ])
    model.compile(optimizer=keras.optimizers.Adam(1e-3),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs, verbose=2)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"Test accuracy: {accuracy:.4f}  (test loss {loss:.4f})")


if __name__ == "__main__":
    main()
