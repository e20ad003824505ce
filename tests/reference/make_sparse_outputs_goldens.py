"""Goldens for the preprocessing layers' sparse=True and TextVectorization's ragged=True,
from real Keras 3.15.1 (TensorFlow backend), issue #38: Keras returns a tf.SparseTensor of
the encoding, or a tf.RaggedTensor of each row's indices; Strata, whose tensors are dense,
returns the same values dense. Each output here is tf.sparse.to_dense of Keras's, or its
RaggedTensor.to_tensor() (rows padded with 0 to the batch's longest).

Writes tests/data/preprocessing/:
  sparse_outputs.json        "layers": per case the layer's Keras config (sparse: true), an
                             input and Keras's output made dense (the format of
                             lookup_tf_idf.json's "layers"), for StringLookup, IntegerLookup,
                             Hashing, HashedCrossing, Discretization, CategoryEncoding and
                             TextVectorization, in the modes where Keras 3.15.1 computes a sparse
                             output (its sparse CategoryEncoding "count"/"multi_hot" on float
                             counts and its lookups' sparse "tf_idf" fail inside Keras);
                             "ragged": TextVectorization(ragged=True) cases in the same form
                             (with and without output_sequence_length, which then only cuts
                             longer rows; split None; ngrams);
                             "model": model_sparse_outputs.keras's inputs and Keras's predictions
  model_sparse_outputs.keras Input(string, 3) -> StringLookup(multi_hot, sparse) -> Dense(2),
                             beside Input(int64, 2) -> CategoryEncoding(one_hot, sparse), the
                             sparse encoding itself a second output

  KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_sparse_outputs_goldens.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_lookup_tf_idf_goldens import OUT, tensor  # noqa: E402 (tests/data/preprocessing, and its arrays)

import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402


def dense(y):
    if isinstance(y, tf.SparseTensor):
        y = tf.sparse.to_dense(y)
    if isinstance(y, tf.RaggedTensor):
        y = y.to_tensor()
    y = np.asarray(y)
    return {"dtype": str(y.dtype), "shape": list(y.shape), "values": y.ravel().tolist()}


def layer_cases():
    L = keras.layers
    c = []

    def case(layer, x, dtype, note, inputs=None):
        y = layer(inputs if inputs is not None else tf.constant(x))
        assert isinstance(y, tf.SparseTensor) or layer.__class__.__name__ == "HashedCrossing", note
        entry = {"class_name": layer.__class__.__name__, "config": layer.get_config(), "note": note,
                 "output": dense(y)}
        if inputs is not None:
            entry["inputs"] = [tensor(v, d) for v, d in x]
        else:
            entry["input"] = tensor(x, dtype)
        c.append(entry)

    words = np.array([["a", "b", "a", "zz"], ["c", "c", "", "b"]])
    vocab = ["a", "b", "c"]
    case(L.StringLookup(vocabulary=vocab, output_mode="multi_hot", sparse=True), words, "string", "multi_hot")
    case(L.StringLookup(vocabulary=vocab, output_mode="count", sparse=True, mask_token=""), words, "string",
         "count with a mask token")
    case(L.StringLookup(vocabulary=vocab, output_mode="one_hot", sparse=True), np.array(["b", "q", "a"]), "string",
         "one_hot of a rank-1 input")
    ints = np.array([[10, 20, 0, 7], [30, 30, 10, 0]], dtype="int64")
    case(L.IntegerLookup(vocabulary=[10, 20, 30], output_mode="multi_hot", sparse=True), ints, "int64", "multi_hot")
    case(L.IntegerLookup(vocabulary=[10, 20, 30], output_mode="count", sparse=True, max_tokens=7,
                         pad_to_max_tokens=True), ints, "int64", "count padded to max_tokens")
    case(L.Hashing(num_bins=5, output_mode="multi_hot", sparse=True), ints, "int64", "multi_hot")
    case(L.Hashing(num_bins=4, output_mode="count", sparse=True, salt=7), words, "string", "count of strings, salted")
    case(L.Hashing(num_bins=6, output_mode="one_hot", sparse=True), np.array([3, 11, 4], "int64"), "int64",
         "one_hot of a rank-1 input")
    floats = np.array([[0.5, 1.5, -1.0], [2.0, 2.0, 0.2]], "float32")
    case(L.Discretization(bin_boundaries=[0.0, 1.0], output_mode="count", sparse=True), floats, "float32", "count")
    case(L.Discretization(bin_boundaries=[0.0, 1.0, 1.8], output_mode="multi_hot", sparse=True), floats, "float32",
         "multi_hot")
    case(L.CategoryEncoding(num_tokens=5, output_mode="one_hot", sparse=True), np.array([[1], [4], [0]], "int64"),
         "int64", "one_hot")
    pairs = [(np.array(["x", "y", "x"]), "string"), (np.array([1, 2, 2], "int64"), "int64")]
    case(L.HashedCrossing(num_bins=5, output_mode="one_hot", sparse=True), pairs, None, "one_hot of two features",
         inputs=(tf.constant(pairs[0][0]), tf.constant(pairs[1][0])))
    case(L.TextVectorization(vocabulary=["the", "cat", "sat"], output_mode="multi_hot", sparse=True),
         np.array([["the cat sat on the mat"], ["A cat!"]]), "string", "multi_hot")
    case(L.TextVectorization(vocabulary=["the", "cat", "sat"], output_mode="count", sparse=True, ngrams=2),
         np.array([["the cat the cat"], ["sat sat"]]), "string", "count with bigrams")
    return c


def ragged_cases():
    L = keras.layers
    c = []
    vocab = ["the", "cat", "sat", "on", "mat"]

    def case(layer, x, note, ragged_output=True):
        y = layer(tf.constant(x))
        assert isinstance(y, tf.RaggedTensor) == ragged_output, note
        c.append({"class_name": "TextVectorization", "config": layer.get_config(), "note": note,
                  "input": tensor(x, "string"), "output": dense(y)})

    sentences = np.array([["the cat sat on the mat"], ["A cat!"], ["mat mat dog"]])
    case(L.TextVectorization(vocabulary=vocab, ragged=True), sentences, "rows padded to the longest")
    case(L.TextVectorization(vocabulary=vocab, ragged=True, output_sequence_length=4), sentences,
         "output_sequence_length cuts the longer rows")
    case(L.TextVectorization(vocabulary=vocab, ragged=True, output_sequence_length=9), sentences,
         "a length beyond every row: padded to the longest only")
    case(L.TextVectorization(vocabulary=vocab, ragged=True, ngrams=2, output_sequence_length=7), sentences,
         "bigrams, cut at 7")
    tokens = np.array([["the", "cat", "sat"], ["on", "the", "mat"]])
    case(L.TextVectorization(vocabulary=vocab, ragged=True, split=None, output_sequence_length=2), tokens,
         "split None: the tokens cut at 2", ragged_output=False)
    return c


def model_golden():
    L = keras.layers
    keras.utils.set_random_seed(6)
    words = keras.Input(shape=(3,), dtype="string", name="words")
    ids = keras.Input(shape=(1,), dtype="int64", name="ids")
    encoded = L.StringLookup(vocabulary=["up", "down", "left"], output_mode="multi_hot", sparse=True,
                             name="word_lookup")(words)
    one_hot = L.CategoryEncoding(num_tokens=4, output_mode="one_hot", sparse=True, name="id_one_hot")(ids)
    y = L.Dense(2, name="head")(L.Concatenate()([L.Dense(3, name="word_dense")(encoded), one_hot]))
    model = keras.Model([words, ids], [y, one_hot])
    x_words = np.array([["up", "up", "right"], ["left", "down", "up"]])
    x_ids = np.array([[2], [0]], dtype="int64")
    prediction, encoding = model.predict([tf.constant(x_words), x_ids], verbose=0)
    model.save(os.path.join(OUT, "model_sparse_outputs.keras"))
    again = keras.saving.load_model(os.path.join(OUT, "model_sparse_outputs.keras"))
    assert np.allclose(again.predict([tf.constant(x_words), x_ids], verbose=0)[0], prediction)
    return {"words": tensor(x_words, "string"), "ids": tensor(x_ids, "int64"), "prediction": dense(prediction),
            "encoding": dense(encoding), "encoding_was_sparse": isinstance(encoding, tf.SparseTensor)}


def main():
    os.makedirs(OUT, exist_ok=True)
    doc = {"keras_version": keras.__version__, "layers": layer_cases(), "model": model_golden(),
           "ragged": ragged_cases()}
    with open(os.path.join(OUT, "sparse_outputs.json"), "w") as f:
        json.dump(doc, f, ensure_ascii=False)
    print("wrote sparse_outputs.json (%d layer cases) and model_sparse_outputs.keras in %s" % (len(doc["layers"]), OUT))


if __name__ == "__main__":
    main()
