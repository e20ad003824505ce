"""Goldens for StringLookup and IntegerLookup in output_mode "tf_idf", from real Keras 3
(TensorFlow backend), issue #38.

Writes tests/data/preprocessing/:
  lookup_tf_idf.json        "layers": per case the layer's Keras config (vocabulary and
                            idf_weights given), an input and Keras's output, as layers.json;
                            "adapt": per case the config, the data adapted on, Keras's
                            vocabulary, its idf weights (the padded ones the layer computes
                            with) and its output on a probe input
  model_tf_idf_lookup.keras Input(string, 4) -> StringLookup(tf_idf, adapted: vocabulary in
                            the assets, weights in model.weights.h5) -> Dense(3), beside
                            IntegerLookup(tf_idf, vocabulary and weights given) -> Dense(3)
  model_tf_idf_lookup.json  its inputs, Keras's prediction and both layers' weights

What Keras computes: the count encoding of the looked-up indices (a rank-1 input is one
sample), times idf_weights per index. Given weights without the special tokens in front get
their mean (np.average) for the mask and OOV slots; pad_to_max_tokens pads zeros. adapt
counts the documents each token appears in (rows of 2-D data; each element of 1-D data
given to adapt is a document) and weighs a token log(1 + documents / (1 + its documents)),
the OOV slots the float32 mean of those.

  KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_lookup_tf_idf_goldens.py
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras  # noqa: E402
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "preprocessing")


def tensor(values, dtype):
    a = np.asarray(values)
    if dtype == "string":
        return {"dtype": "string", "shape": list(a.shape), "values": [str(v) for v in a.ravel()]}
    return {"dtype": dtype, "shape": list(a.shape), "values": a.ravel().tolist()}


def output(y):
    y = np.asarray(y)
    return {"dtype": str(y.dtype), "shape": list(y.shape), "values": y.ravel().tolist()}


def layer_cases():
    L = keras.layers
    c = []
    words = np.array([["a", "b", "a", "zz"], ["c", "c", "", "b"], ["", "", "", ""]])
    vocab, idf = ["a", "b", "c"], [0.5, 1.25, 2.0]

    def case(layer, x, dtype, note):
        c.append({"class_name": layer.__class__.__name__, "config": layer.get_config(), "note": note,
                  "input": tensor(x, dtype), "output": output(layer(x))})

    case(L.StringLookup(vocabulary=vocab, idf_weights=idf, output_mode="tf_idf"), words, "string",
         "weights without the special tokens: the OOV slot their mean")
    case(L.StringLookup(vocabulary=vocab, idf_weights=idf, output_mode="tf_idf"), np.array(["a", "b", "q", "a"]),
         "string", "a rank-1 input is one sample")
    case(L.StringLookup(vocabulary=["[UNK]"] + vocab, idf_weights=[0.125] + idf, output_mode="tf_idf"), words,
         "string", "the OOV token's weight given")
    case(L.StringLookup(vocabulary=vocab, idf_weights=idf, output_mode="tf_idf", max_tokens=7,
                        pad_to_max_tokens=True), words, "string", "padded to max_tokens with zeros")
    case(L.StringLookup(vocabulary=vocab, idf_weights=idf, output_mode="tf_idf", mask_token="", num_oov_indices=2),
         words, "string", "a mask token (encodes to nothing) and two OOV slots")
    ints = np.array([[10, 20, 0, 7], [30, 30, 10, 0]], dtype="int64")
    case(L.IntegerLookup(vocabulary=[10, 20, 30], idf_weights=idf, output_mode="tf_idf", mask_token=0), ints, "int64",
         "integers with a mask token")
    case(L.IntegerLookup(vocabulary=[10, 20, 30], idf_weights=idf, output_mode="tf_idf", num_oov_indices=3,
                         max_tokens=9, pad_to_max_tokens=True), ints, "int64", "three OOV slots, padded")
    return c


def adapt_cases():
    L = keras.layers
    rng = np.random.default_rng(11)
    words = np.array(["apple", "banana", "cherry", "date", "elder", "fig", "", "日本"])
    docs = words[rng.integers(0, len(words), size=(40, 3))]
    probe = np.array([["apple", "apple", "fig", "kiwi"], ["", "date", "日本", "banana"]])
    out = []
    for kw, data in (({}, docs), ({"max_tokens": 5}, docs), ({"mask_token": "", "num_oov_indices": 2}, docs),
                     ({"max_tokens": 12, "pad_to_max_tokens": True}, docs), ({}, docs[:, 0])):
        layer = L.StringLookup(output_mode="tf_idf", **kw)
        layer.adapt(data)
        out.append({"class_name": "StringLookup", "config": {**layer.get_config(), "vocabulary": None},
                    "data": tensor(data, "string"), "vocabulary": [str(v) for v in layer.get_vocabulary()],
                    "idf_weights": [float(v) for v in layer.idf_weights_const.numpy()],
                    "input": tensor(probe, "string"), "output": output(layer(probe))})
    idata = rng.integers(-3, 6, size=(30, 4)).astype("int64")
    iprobe = np.array([[0, 1, 1, 9], [-3, 5, 2, 2]], dtype="int64")
    for kw in ({}, {"mask_token": 0}):
        layer = L.IntegerLookup(output_mode="tf_idf", **kw)
        layer.adapt(idata)
        out.append({"class_name": "IntegerLookup", "config": {**layer.get_config(), "vocabulary": None},
                    "data": tensor(idata, "int64"), "vocabulary": [int(v) for v in layer.get_vocabulary()],
                    "idf_weights": [float(v) for v in layer.idf_weights_const.numpy()],
                    "input": tensor(iprobe, "int64"), "output": output(layer(iprobe))})
    return out


def model_golden():
    L = keras.layers
    keras.utils.set_random_seed(5)
    rng = np.random.default_rng(12)
    words = np.array(["red", "green", "blue", "teal", "pink"])
    lookup = L.StringLookup(output_mode="tf_idf", name="colour_tf_idf")
    lookup.adapt(words[rng.integers(0, 5, size=(20, 4))])
    colours = keras.Input(shape=(4,), dtype="string", name="colours")
    codes = keras.Input(shape=(3,), dtype="int64", name="codes")
    codes_tf_idf = L.IntegerLookup(vocabulary=[3, 5, 8], idf_weights=[0.25, 0.75, 1.5], output_mode="tf_idf",
                                   name="code_tf_idf")
    y = L.Concatenate()([L.Dense(3, name="colour_dense")(lookup(colours)),
                         L.Dense(3, name="code_dense")(codes_tf_idf(codes))])
    model = keras.Model([colours, codes], y)
    x_colours = np.array([["red", "red", "blue", "mauve"], ["teal", "pink", "green", "green"]])
    x_codes = np.array([[3, 3, 4], [8, 5, 5]], dtype="int64")
    import tensorflow as tf
    prediction = model.predict([tf.constant(x_colours), x_codes], verbose=0)
    model.save(os.path.join(OUT, "model_tf_idf_lookup.keras"))
    with open(os.path.join(OUT, "model_tf_idf_lookup.json"), "w") as f:
        json.dump({"colours": tensor(x_colours, "string"), "codes": tensor(x_codes, "int64"),
                   "prediction": output(prediction),
                   "colour_vocabulary": [str(v) for v in lookup.get_vocabulary()],
                   "colour_idf_weights": [float(v) for v in lookup.idf_weights_const.numpy()],
                   "code_idf_weights": [float(v) for v in codes_tf_idf.idf_weights_const.numpy()]}, f,
                  ensure_ascii=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "lookup_tf_idf.json"), "w") as f:
        json.dump({"layers": layer_cases(), "adapt": adapt_cases()}, f, ensure_ascii=False)
    model_golden()
    print("wrote lookup_tf_idf.json, model_tf_idf_lookup.keras and .json in", OUT)


if __name__ == "__main__":
    main()
