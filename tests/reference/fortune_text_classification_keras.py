#!/usr/bin/env python3
"""Trains examples/fortune_text_classification's model in real Keras, to compare accuracies.

Not a golden-file generator: it reads the same fortunes as the example (Debian's
`fortunes`: computers, politics, science; every fifth fortune of each collection a test
sample; a fortune's lines joined by newlines, as bytes), builds the same model (a
TextVectorization adapted on the training fortunes, Embedding, Dropout(0.5), two
Conv1D(7, strides 3, relu), GlobalMaxPooling1D, Dense(relu), Dropout(0.5), Dense(3,
softmax); Adam, sparse categorical crossentropy, batch 32, shuffled each epoch) and prints
the test accuracy, which docs/preprocessing.md ("Tutorial: text classification with
TextVectorization") quotes beside Strata's with the same flags. Run with exactly:

    pip install keras tensorflow-cpu
    KERAS_BACKEND=tensorflow python3 tests/reference/fortune_text_classification_keras.py --seed=1

Versions used for the figures in the docs: keras 3.15.1, tensorflow-cpu 2.21.0,
numpy 2.4.6, Python 3.11.7.
"""
import argparse
import os

import numpy as np

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import layers  # noqa: E402

COLLECTIONS = ["computers", "politics", "science"]


def read_fortunes(path):
    """The fortunes of one file: the lines between lines holding a single '%', joined by
    newlines, as the example's std::getline reads them."""
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    if lines and lines[-1] == b"":
        lines = lines[:-1]
    fortunes, current = [], None
    for line in lines:
        if line == b"%":
            if current:
                fortunes.append(current)
            current = None
        else:
            current = line if not current else current + b"\n" + line
    if current:
        fortunes.append(current)
    return fortunes


def load(data_dir):
    train, test = ([], []), ([], [])
    for label, name in enumerate(COLLECTIONS):
        for i, fortune in enumerate(read_fortunes(os.path.join(data_dir, name))):
            split = test if i % 5 == 4 else train
            split[0].append(fortune)
            split[1].append(label)
    return train, test


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--max_tokens", type=int, default=5000)
    p.add_argument("--sequence_length", type=int, default=64)
    p.add_argument("--embedding_dim", type=int, default=32)
    p.add_argument("--filters", type=int, default=64)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data_dir", default="/usr/share/games/fortunes")
    args = p.parse_args()
    print("flags:", vars(args))

    (x_train, y_train), (x_test, y_test) = load(args.data_dir)
    keras.utils.set_random_seed(args.seed)
    vectorize = layers.TextVectorization(max_tokens=args.max_tokens, output_sequence_length=args.sequence_length)
    vectorize.adapt(tf.constant(x_train))
    print(f"{len(x_train)} training and {len(x_test)} test fortunes, "
          f"{vectorize.vocabulary_size()} tokens in the vocabulary")

    text = keras.Input((1,), dtype="string", name="text")
    x = layers.Embedding(vectorize.vocabulary_size(), args.embedding_dim)(vectorize(text))
    x = layers.Dropout(0.5)(x)
    x = layers.Conv1D(args.filters, 7, strides=3, activation="relu")(x)
    x = layers.Conv1D(args.filters, 7, strides=3, activation="relu")(x)
    x = layers.GlobalMaxPooling1D()(x)
    x = layers.Dense(args.filters, activation="relu")(x)
    x = layers.Dropout(0.5)(x)
    model = keras.Model(text, layers.Dense(3, activation="softmax", name="collection")(x))
    model.compile(optimizer=keras.optimizers.Adam(), loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    as_rows = lambda texts: tf.reshape(tf.constant(texts), (-1, 1))  # noqa: E731
    train = (tf.data.Dataset.from_tensor_slices((as_rows(x_train), np.array(y_train, "int32")))
             .shuffle(len(x_train), seed=args.seed, reshuffle_each_iteration=True).batch(args.batch_size))
    model.fit(train, epochs=args.epochs, verbose=2)
    test = tf.data.Dataset.from_tensor_slices((as_rows(x_test), np.array(y_test, "int32"))).batch(args.batch_size)
    loss, accuracy = model.evaluate(test, verbose=0)
    print(f"Test accuracy: {accuracy:.4f}  (test loss {loss:.4f})")


if __name__ == "__main__":
    main()
