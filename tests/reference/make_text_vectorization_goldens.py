"""Goldens for Strata's TextVectorization, from Keras 3.15.1 on the TensorFlow backend.

Writes tests/data/text_vectorization/:
  layers.json         one case per option that changes the result: the layer's config as
                      Keras writes it, an input batch and Keras's output
  adapt.json          adapt cases: config, data, Keras's vocabulary (and idf weights)
  model_int.keras     Input(string) -> TextVectorization (adapted; vocabulary in the
                      assets) -> Embedding -> GlobalAveragePooling1D -> Dense
  model_tf_idf.keras  Input(string) -> TextVectorization (tf_idf, ngrams 2, adapted;
                      vocabulary in the assets, idf weights in model.weights.h5) -> Dense
  models.json         their inputs, predictions and vocabularies

Run: python3 tests/reference/make_text_vectorization_goldens.py
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import keras  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "text_vectorization")

TEXTS = ["The cat sat on the mat.", "the DOG, the cat!", "  Ünïcode ÀB straße\tand\nTabs ", "",
         "a-b c_d e'f (g) [h] {i} ~j~ @k #l", "日本語 テキスト 日本語", "repeat repeat repeat the the",
         "x\u00a0y z\x1cw"]
CORPUS = ["The cat sat on the mat.", "The dog ate my homework!", "the cat and the dog", "A bird, a plane?",
          "Straße café naïve", "cat cat cat dog", "日本語 テキスト", "mat mat sat"]


def tensor(values):
    a = np.asarray(values)
    return {"dtype": "string", "shape": list(a.shape), "values": [str(v) for v in a.ravel()]}


def result(y):
    y = np.asarray(y)
    if y.dtype.kind in ("S", "O", "U"):
        return {"dtype": "string", "shape": list(y.shape), "values": [v.decode("utf-8") for v in y.ravel()]}
    return {"dtype": str(y.dtype), "shape": list(y.shape), "values": y.ravel().tolist()}


def config_of(layer):
    return json.loads(json.dumps(layer.get_config(), default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))


def layer_cases():
    L = keras.layers
    vocab = ["the", "cat", "sat", "on", "mat", "dog", "a", "b", "repeat", "日本語", "straße", "t", "h", "e",
             "the cat", "cat sat", "the the", "repeat repeat", "c", "ab", "ünïcode", "àb", "tabs", "and",
             "the cat sat", "x y", "ef", "bd"]
    col = np.array(TEXTS)[:, None]
    cases = []

    def case(note, x=col, **kw):
        layer = L.TextVectorization(**kw)
        cases.append({"note": note, "config": config_of(layer), "input": tensor(x),
                      "output": result(layer(tf.constant(x)))})

    case("default standardize and split, padded to 12", vocabulary=vocab, output_sequence_length=12)
    case("truncated to 3", vocabulary=vocab, output_sequence_length=3)
    case("rank-1 input", x=np.array(TEXTS), vocabulary=vocab, output_sequence_length=6)
    case("standardize lower", vocabulary=vocab, standardize="lower", output_sequence_length=8)
    case("standardize strip_punctuation", vocabulary=vocab, standardize="strip_punctuation", output_sequence_length=8)
    case("standardize None", vocabulary=vocab, standardize=None, output_sequence_length=8)
    case("split character", vocabulary=vocab, split="character", output_sequence_length=20)
    case("split None, shape kept", vocabulary=vocab, split=None)
    case("split None, sequence length", vocabulary=vocab, split=None, output_sequence_length=2)
    case("ngrams 2", vocabulary=vocab, ngrams=2, output_sequence_length=16)
    case("ngrams (3,) only", vocabulary=vocab, ngrams=(3,), output_sequence_length=4)
    case("ngrams (1, 3)", vocabulary=vocab, ngrams=(1, 3), output_sequence_length=10)
    case("character ngrams 2", vocabulary=vocab, split="character", ngrams=(2,), output_sequence_length=10)
    case("multi_hot", vocabulary=vocab, output_mode="multi_hot")
    case("count", vocabulary=vocab, output_mode="count")
    case("count with ngrams", vocabulary=vocab, output_mode="count", ngrams=2)
    case("count, pad_to_max_tokens", vocabulary=vocab, output_mode="count", max_tokens=40, pad_to_max_tokens=True)
    case("multi_hot, rank-1 input", x=np.array(TEXTS), vocabulary=vocab, output_mode="multi_hot")
    case("multi_hot, split None over rows", x=np.array([["the", "cat", "zz"], ["", "b", "b"]]), vocabulary=vocab,
         output_mode="multi_hot", split=None)
    idf = [round(0.1 * (i + 1), 3) for i in range(len(vocab))]
    case("tf_idf with given idf weights", vocabulary=vocab, output_mode="tf_idf", idf_weights=idf)
    case("tf_idf, pad_to_max_tokens", vocabulary=vocab, output_mode="tf_idf", idf_weights=idf, max_tokens=35,
         pad_to_max_tokens=True)
    case("tf_idf, special tokens given", vocabulary=["", "[UNK]"][1:] + vocab, output_mode="tf_idf",
         idf_weights=[0.5] + idf)
    return cases


def adapt_cases():
    L = keras.layers
    cases = []

    def case(note, data=CORPUS, **kw):
        layer = L.TextVectorization(**kw)
        layer.adapt(data)
        c = {"note": note, "config": config_of(layer), "data": tensor(np.array(data)),
             "vocabulary": [str(v) for v in layer.get_vocabulary()]}
        if layer._output_mode == "tf_idf":
            c["idf_weights"] = [float(v) for v in layer._lookup_layer.idf_weights_const.numpy()]
        cases.append(c)

    case("int")
    case("max_tokens 6", max_tokens=6)
    case("ngrams 2, count", ngrams=2, output_mode="count")
    case("character split", split="character")
    case("standardize None", standardize=None, output_mode="multi_hot")
    case("tf_idf", output_mode="tf_idf")
    case("tf_idf, ngrams (1, 2), max_tokens 9", output_mode="tf_idf", ngrams=(1, 2), max_tokens=9)
    case("tf_idf, pad_to_max_tokens", output_mode="tf_idf", max_tokens=40, pad_to_max_tokens=True)
    return cases


def models():
    L = keras.layers
    keras.utils.set_random_seed(5)
    out = {}
    x = np.array(["the cat sat on the mat", "a dog!", "nothing known here", "", "cat cat dog mat the"])[:, None]
    # int mode into an embedding
    tv = L.TextVectorization(max_tokens=12, output_sequence_length=6, name="vectorize")
    tv.adapt(CORPUS)
    inp = keras.Input(shape=(1,), dtype="string", name="text")
    h = L.GlobalAveragePooling1D()(L.Embedding(tv.vocabulary_size(), 4, name="embed")(tv(inp)))
    m = keras.Model(inp, L.Dense(2, name="head")(h))
    m.save(os.path.join(OUT, "model_int.keras"))
    out["int"] = {"input": tensor(x), "prediction": result(m.predict(tf.constant(x), verbose=0)),
                  "vocabulary": [str(v) for v in tv.get_vocabulary()]}
    # tf_idf into a dense layer
    tv = L.TextVectorization(output_mode="tf_idf", ngrams=2, name="tfidf")
    tv.adapt(CORPUS)
    inp = keras.Input(shape=(1,), dtype="string", name="text")
    m = keras.Model(inp, L.Dense(3, name="head")(tv(inp)))
    m.save(os.path.join(OUT, "model_tf_idf.keras"))
    out["tf_idf"] = {"input": tensor(x), "prediction": result(m.predict(tf.constant(x), verbose=0)),
                     "vocabulary": [str(v) for v in tv.get_vocabulary()],
                     "idf_weights": [float(v) for v in tv._lookup_layer.idf_weights_const.numpy()]}
    return out


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "layers.json"), "w") as f:
        json.dump(layer_cases(), f, ensure_ascii=False)
    with open(os.path.join(OUT, "adapt.json"), "w") as f:
        json.dump(adapt_cases(), f, ensure_ascii=False)
    with open(os.path.join(OUT, "models.json"), "w") as f:
        json.dump(models(), f, ensure_ascii=False)
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
