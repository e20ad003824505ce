#!/usr/bin/env python3
"""examples/structured_data_classification's model in real Keras, and a check of Strata's file.

Not a golden-file generator. Two uses:

  Train the same model on the same rows with the same settings, for the accuracies that
  docs/preprocessing.md quotes beside Strata's:

    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/structured_data_classification_keras.py --seed=1

  Load the model that `build/examples/structured_data_classification --save=DIR/model.keras`
  wrote, predict its test columns (DIR/model.<input>.npy) and compare with the
  predictions Strata wrote (DIR/model.predictions.npy):

    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/structured_data_classification_keras.py --check=DIR/model.keras

Versions used for the figures in the docs: keras 3.15.1, tensorflow-cpu 2.21.0. The data
are scikit-learn's copy of the Boston housing table (Debian's python3-sklearn); every
fifth row is a test row; the label is MEDV > 21.2; the B column is left out.
"""
import argparse
import csv
import os

import numpy as np

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402

CSV = "/usr/lib/python3/dist-packages/sklearn/datasets/data/boston_house_prices.csv"
NUMERIC = ["CRIM", "ZN", "INDUS", "NOX", "RM", "DIS", "PTRATIO", "LSTAT"]
INPUTS = ["numeric", "age", "chas", "rad", "tax"]


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))[1:]  # the first line holds the counts
    header, body = rows[0], rows[1:]
    col = {name: [r[header.index(name)] for r in body] for name in header}
    num = lambda names: np.array([[float(col[n][i]) for n in names] for i in range(len(body))], np.float32)
    data = {
        "numeric": num(NUMERIC),
        "age": num(["AGE"]),
        "chas": num(["CHAS"]).astype(np.int64),
        "rad": np.array([[v] for v in col["RAD"]]),
        "tax": num(["TAX"]),
    }
    label = (num(["MEDV"]) > np.float32(21.2)).astype(np.float32)
    test = np.arange(len(body)) % 5 == 4
    split = lambda rows: ([data[k][rows] for k in INPUTS], label[rows])
    return split(~test), split(test)


def build(train_x):
    L = keras.layers
    numeric = keras.Input((len(NUMERIC),), name="numeric")
    age = keras.Input((1,), name="age")
    chas = keras.Input((1,), dtype="int64", name="chas")
    rad = keras.Input((1,), dtype="string", name="rad")
    tax = keras.Input((1,), name="tax")
    normalize = L.Normalization()
    normalize.adapt(train_x[0])
    age_bucket = L.Discretization(num_bins=4)
    age_bucket.adapt(train_x[1])
    chas_lookup = L.IntegerLookup(output_mode="one_hot")
    chas_lookup.adapt(train_x[2])
    rad_lookup = L.StringLookup(output_mode="one_hot")
    rad_lookup.adapt(train_x[3])
    age_index = age_bucket(age)
    features = L.Concatenate()([
        normalize(numeric),
        L.CategoryEncoding(4, output_mode="one_hot")(age_index),
        chas_lookup(chas),
        rad_lookup(rad),
        L.Hashing(16, output_mode="one_hot")(tax),
        L.HashedCrossing(32, output_mode="one_hot")([rad, age_index]),
    ])
    x = L.Dense(32, activation="relu")(features)
    x = L.Dropout(0.5)(x)
    return keras.Model([numeric, age, chas, rad, tax], L.Dense(1, activation="sigmoid")(x))


def check(path):
    stem = path[: path.rfind(".")]
    model = keras.models.load_model(path)
    import tensorflow as tf
    inputs = [tf.constant(np.load(f"{stem}.{name}.npy")) for name in INPUTS]  # strings included
    expected = np.load(stem + ".predictions.npy")
    got = model.predict_on_batch(inputs)
    diff = float(np.max(np.abs(got - expected)))
    print(f"Keras {keras.__version__} loaded {path}: max |keras - strata| over {expected.size} probabilities = {diff:.3g}")
    return 0 if diff < 1e-5 else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--csv", default=CSV)
    p.add_argument("--check", default="")
    a = p.parse_args()
    if a.check:
        raise SystemExit(check(a.check))
    keras.utils.set_random_seed(a.seed)
    (train_x, train_y), (test_x, test_y) = load(a.csv)
    print(f"{len(train_y)} training and {len(test_y)} test rows")
    model = build(train_x)
    model.compile(optimizer="adam", loss="binary_crossentropy", metrics=["accuracy"])
    # Keras's fit takes string columns through tf.data (its NumPy adapter refuses them);
    # a buffer of the whole set reshuffles every epoch, as fit(shuffle=True) does.
    import tensorflow as tf
    as_data = lambda x, y: tf.data.Dataset.from_tensor_slices((tuple(x), y))
    train = as_data(train_x, train_y).shuffle(len(train_y), seed=a.seed).batch(a.batch_size)
    model.fit(train, epochs=a.epochs, verbose=0)
    loss, accuracy = model.evaluate(as_data(test_x, test_y).batch(a.batch_size), verbose=0)
    print(f"test accuracy: {accuracy:.4f}  test loss: {loss:.4f}")


if __name__ == "__main__":
    main()
