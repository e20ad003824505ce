#!/usr/bin/env python3
"""examples/fortune_transformer's model in real Keras, and a check of Strata's saved file.

Not a golden-file generator. Two uses:

  Train the same model on the same data with the same settings, for the accuracies that
  docs/attention.md quotes beside Strata's:

    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/fortune_transformer_keras.py --seed=1
    KERAS_BACKEND=jax /tmp/kvenv/bin/python tests/reference/fortune_transformer_keras.py --seed=1

  (The backends differ here: see docs/attention.md, "Tutorial". --initial, --dropout=0 and
  --shuffle=0 start from a saved model's weights without randomness, to compare training
  with `build/examples/fortune_transformer --initial=... --dropout=0 --noshuffle`.)

  Load a model that `build/examples/fortune_transformer --save=DIR/model.keras` wrote,
  predict its test inputs (DIR/model.tokens.npy, DIR/model.positions.npy) and compare
  with the predictions Strata wrote (DIR/model.predictions.npy):

    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/fortune_transformer_keras.py --check=DIR/model.keras

Versions used for the figures in the docs: keras 3.15.1, tensorflow-cpu 2.21.0, jax 0.10.2. The data
are Debian's `fortunes` collections computers, politics and science; every fifth fortune
of each is a test sample; tokens are lower-cased runs of ASCII letters and digits; the
vocabulary is the training set's words by falling count (ties alphabetical) after 0 (pad)
and 1 (out of vocabulary); sequences are cut or padded at the end to maxlen.
"""
import argparse
import os
import re
from collections import Counter

import numpy as np

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402

COLLECTIONS = ["computers", "politics", "science"]


def read_fortunes(path):
    fortunes, current = [], ""
    with open(path, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines = lines[:-1]
    for line in lines:
        if line == b"%":
            if current:
                fortunes.append(current)
            current = ""
        else:
            current += line.decode("latin-1") + "\n"
    if current:
        fortunes.append(current)
    return fortunes


def words_of(text):
    return re.findall(r"[a-z0-9]+", "".join(c.lower() if ord(c) < 128 else " " for c in text))


def load(data_dir):
    train, test = ([], []), ([], [])
    for label, name in enumerate(COLLECTIONS):
        for i, fortune in enumerate(read_fortunes(os.path.join(data_dir, name))):
            split = test if i % 5 == 4 else train
            split[0].append(words_of(fortune))
            split[1].append(label)
    return train, test


def vocabulary(texts, vocab_size):
    counts = Counter(w for t in texts for w in t)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: vocab_size - 2]
    return {w: i + 2 for i, (w, _) in enumerate(ranked)}


def encode(texts, index, maxlen):
    ids = np.zeros((len(texts), maxlen), np.int32)
    for i, t in enumerate(texts):
        for j, w in enumerate(t[:maxlen]):
            ids[i, j] = index.get(w, 1)
    return ids


def build(vocab_size, maxlen, embed_dim, num_heads, ff_dim, rate=0.1):
    L = keras.layers
    tokens = keras.Input((maxlen,), dtype="int32", name="tokens")
    positions = keras.Input((maxlen,), dtype="int32", name="positions")
    x = L.Add()([L.Embedding(vocab_size, embed_dim)(tokens), L.Embedding(maxlen, embed_dim)(positions)])
    attended = L.Dropout(rate)(L.MultiHeadAttention(num_heads, embed_dim)(x, x))
    out1 = L.LayerNormalization(epsilon=1e-6)(L.Add()([x, attended]))
    ffn = L.Dropout(rate)(L.Dense(embed_dim)(L.Dense(ff_dim, activation="relu")(out1)))
    x = L.LayerNormalization(epsilon=1e-6)(L.Add()([out1, ffn]))
    x = L.GlobalAveragePooling1D()(x)
    x = L.Dropout(rate)(x)
    x = L.Dense(20, activation="relu")(x)
    x = L.Dropout(rate)(x)
    return keras.Model([tokens, positions], L.Dense(len(COLLECTIONS), activation="softmax")(x))


def check(path):
    stem = path[: path.rfind(".")]
    model = keras.models.load_model(path)
    tokens, positions = np.load(stem + ".tokens.npy"), np.load(stem + ".positions.npy")
    expected = np.load(stem + ".predictions.npy")
    got = model.predict([tokens, positions], verbose=0)
    diff = float(np.max(np.abs(got - expected)))
    print(f"Keras {keras.__version__} loaded {path}: max |keras - strata| over {expected.size} probabilities = {diff:.3g}")
    return 0 if diff < 1e-4 else 1


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--vocab_size", type=int, default=5000)
    p.add_argument("--maxlen", type=int, default=64)
    p.add_argument("--embed_dim", type=int, default=32)
    p.add_argument("--num_heads", type=int, default=2)
    p.add_argument("--ff_dim", type=int, default=32)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--shuffle", type=int, default=1)
    p.add_argument("--initial", default="", help="start from this model file's weights")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data_dir", default="/usr/share/games/fortunes")
    p.add_argument("--check", default="")
    a = p.parse_args()
    if a.check:
        raise SystemExit(check(a.check))
    keras.utils.set_random_seed(a.seed)
    (train_texts, y_train), (test_texts, y_test) = load(a.data_dir)
    index = vocabulary(train_texts, a.vocab_size)
    x_train, x_test = encode(train_texts, index, a.maxlen), encode(test_texts, index, a.maxlen)
    p_train = np.tile(np.arange(a.maxlen, dtype=np.int32), (len(x_train), 1))
    p_test = np.tile(np.arange(a.maxlen, dtype=np.int32), (len(x_test), 1))
    print(f"{len(x_train)} training and {len(x_test)} test fortunes, {len(index)} words in the vocabulary")
    model = build(a.vocab_size, a.maxlen, a.embed_dim, a.num_heads, a.ff_dim, a.dropout)
    if a.initial:
        model.set_weights(keras.models.load_model(a.initial).get_weights())
    model.compile(optimizer="adam", loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.fit([x_train, p_train], np.array(y_train), batch_size=a.batch_size, epochs=a.epochs, verbose=2,
              shuffle=bool(a.shuffle))
    loss, accuracy = model.evaluate([x_test, p_test], np.array(y_test), verbose=0)
    print(f"test accuracy: {accuracy:.4f}  test loss: {loss:.4f}")


if __name__ == "__main__":
    main()
