#!/usr/bin/env python3
"""Trains examples/fashion_mnist_augmented's model in real Keras, to compare accuracies.

Not a golden-file generator: it prints each epoch's training loss and accuracy and the
test accuracy after the last epoch, which docs/preprocessing.md ("Tutorial: augmentation
layers") quotes beside Strata's `build/examples/fashion_mnist_augmented` with the same
flags. Run with exactly:

    pip install keras tensorflow-cpu
    KERAS_BACKEND=tensorflow python3 tests/reference/fashion_mnist_augmented_keras.py --seed=1

Versions used for the figures in the docs: keras 3.15.1, tensorflow-cpu 2.21.0,
numpy 2.4.6, Python 3.11.7. Reads Debian's dataset-fashion-mnist files, as the example
does, pixels scaled to [0, 1], the first --train_samples training images, all 10000 test
images. The model is Keras's "Image classification from scratch" recipe at Fashion-MNIST's
scale: RandomFlip("horizontal"), RandomRotation(0.1), a strided Conv2D stem, two blocks of
two SeparableConv2D + BatchNormalization with a strided 1x1 residual, a last
SeparableConv2D, global average pooling, Dropout(0.25), Dense(10); Adam, sparse
categorical crossentropy from logits.
"""
import argparse
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist_files import images, labels  # noqa: E402
from keras import layers  # noqa: E402


def build_model(width, rotation):
    inputs = keras.Input((28, 28, 1), name="image")
    x = layers.RandomFlip("horizontal", name="flip")(inputs)
    x = layers.RandomRotation(rotation, name="rotate")(x)
    x = layers.Conv2D(width, 3, strides=2, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    previous = x
    for size in (2 * width, 4 * width):
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(size, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.Activation("relu")(x)
        x = layers.SeparableConv2D(size, 3, padding="same")(x)
        x = layers.BatchNormalization()(x)
        x = layers.MaxPooling2D(3, strides=2, padding="same")(x)
        residual = layers.Conv2D(size, 1, strides=2, padding="same")(previous)
        x = layers.add([x, residual])
        previous = x
    x = layers.SeparableConv2D(8 * width, 3, padding="same")(x)
    x = layers.BatchNormalization()(x)
    x = layers.Activation("relu")(x)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Dropout(0.25)(x)
    return keras.Model(inputs, layers.Dense(10, name="logits")(x))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--learning_rate", type=float, default=1e-3)
    parser.add_argument("--width", type=int, default=16)
    parser.add_argument("--rotation", type=float, default=0.1)
    parser.add_argument("--train_samples", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print("flags:", vars(args))

    x_train, y_train = images("train-images-idx3-ubyte.gz"), labels("train-labels-idx1-ubyte.gz")
    x_test, y_test = images("t10k-images-idx3-ubyte.gz"), labels("t10k-labels-idx1-ubyte.gz")
    if args.train_samples > 0:
        x_train, y_train = x_train[: args.train_samples], y_train[: args.train_samples]
    keras.utils.set_random_seed(args.seed)
    model = build_model(args.width, args.rotation)
    model.compile(optimizer=keras.optimizers.Adam(args.learning_rate),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    model.fit(x_train, y_train, batch_size=args.batch_size, epochs=args.epochs, verbose=2)
    loss, accuracy = model.evaluate(x_test, y_test, verbose=0)
    print(f"Test accuracy: {accuracy:.4f}  (test loss {loss:.4f})")


if __name__ == "__main__":
    main()
