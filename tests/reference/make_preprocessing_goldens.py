"""Goldens for the structured-data preprocessing layers, from real Keras 3 (TF backend).

Writes tests/data/preprocessing/:
  layers.json        per case: the layer's Keras config, an input (dtype, shape, values)
                     and Keras's output; Hashing, HashedCrossing, StringLookup,
                     IntegerLookup, CategoryEncoding, Discretization over many inputs
                     (unicode and empty strings, negative and large ints, salts, masks,
                     OOV, invert, every output mode)
  adapt.json         adapt results: vocabularies (Keras's frequency order and tie rule)
                     and Discretization's bin boundaries (its quantile algorithm)
  model_adapted.keras     a small model with string and int inputs through these layers,
                          its StringLookup adapted (vocabulary in the .keras assets)
  model_vocabulary.keras  the same with the vocabulary given (inline in the config),
  model_vocabulary.h5     also as .h5
  model_*.json            their inputs and Keras's predictions
  strings_U.npy, strings_S.npy, strings_npy.json   NumPy string arrays and their values
(cities.csv beside them is written by hand: CSV text columns for tests/io/string_data_test.cc.)

  KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_preprocessing_goldens.py
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "preprocessing")

STRINGS = ["", "a", "b", "hello", "héllo wörld", "日本語テキスト", "[UNK]", "0", "-1",
           "a somewhat longer string with more than sixty-four bytes in it, to reach the loop",
           "seventeen chars!!", "thirty-three bytes long string..."]
INTS = [0, 1, 2, 7, -1, -5, 42, 123456789012, -987654321098, 2**62]


def tensor(values, dtype):
    a = np.asarray(values)
    if dtype == "string":
        return {"dtype": "string", "shape": list(a.shape), "values": [str(v) for v in a.ravel()]}
    return {"dtype": dtype, "shape": list(a.shape), "values": a.ravel().tolist()}


def run(layer, x, dtype):
    arr = np.asarray(x, dtype=object if dtype == "string" else dtype)
    if dtype == "string":
        arr = arr.astype(str)
    y = layer(arr) if not isinstance(x, list) or dtype != "string" else layer(np.asarray(x).astype(str))
    y = np.asarray(y)
    if y.dtype.kind in ("S", "O", "U"):
        return {"dtype": "string", "shape": list(y.shape),
                "values": [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in y.ravel()]}
    return {"dtype": str(y.dtype), "shape": list(y.shape), "values": y.ravel().tolist()}


def case(cases, layer, x, dtype, note):
    cases.append({"class_name": layer.__class__.__name__, "config": layer.get_config(), "note": note,
                  "input": tensor(x, dtype), "output": run(layer, x, dtype)})


def layer_cases():
    c = []
    L = keras.layers
    s2 = np.array(STRINGS).reshape(-1, 1)
    ints2 = np.array(INTS, dtype="int64").reshape(-1, 1)
    # Hashing
    for bins in (1, 3, 1000, 2**31 - 1):
        case(c, L.Hashing(num_bins=bins), s2, "string", f"fast hash, {bins} bins")
    case(c, L.Hashing(num_bins=97, salt=133), s2, "string", "strong hash, int salt")
    case(c, L.Hashing(num_bins=97, salt=[5, 11]), s2, "string", "strong hash, pair salt")
    case(c, L.Hashing(num_bins=10, mask_value=""), s2, "string", "string mask")
    case(c, L.Hashing(num_bins=10, mask_value="a", salt=[1, 2]), s2, "string", "string mask, salted")
    case(c, L.Hashing(num_bins=64), ints2, "int64", "int64 as decimal strings")
    case(c, L.Hashing(num_bins=64, mask_value=0), ints2, "int64", "int mask")
    case(c, L.Hashing(num_bins=64, salt=[3, 4]), ints2, "int64", "salted ints")
    case(c, L.Hashing(num_bins=64), np.array([[0], [1], [-3], [2147483647]], dtype="int32"), "int32", "int32")
    case(c, L.Hashing(num_bins=64), np.array([[0.5], [1.9], [-3.7], [1e6]], dtype="float32"), "float32",
         "floats truncate")
    case(c, L.Hashing(num_bins=16, output_mode="one_hot"), s2, "string", "one_hot")
    case(c, L.Hashing(num_bins=16, output_mode="multi_hot"),
         np.array([["a", "b", "a"], ["", "x", "y"]]), "string", "multi_hot")
    case(c, L.Hashing(num_bins=16, output_mode="count"),
         np.array([["a", "b", "a"], ["", "x", "y"]]), "string", "count")
    case(c, L.Hashing(num_bins=5), np.array([["a", "b"], ["c", "d"]]), "string", "2-D int")
    # HashedCrossing
    a = np.array(["a", "b", "héllo", "", "zz"])
    b = np.array([1, -5, 123456789012, 0, 7], dtype="int64")
    for bins in (2, 100, 2**40):
        layer = L.HashedCrossing(num_bins=bins)
        y = np.asarray(layer((a, b)))
        c.append({"class_name": "HashedCrossing", "config": layer.get_config(), "note": f"string x int, {bins} bins",
                  "inputs": [tensor(a, "string"), tensor(b, "int64")],
                  "output": {"dtype": str(y.dtype), "shape": list(y.shape), "values": y.ravel().tolist()}})
    layer = L.HashedCrossing(num_bins=50, output_mode="one_hot")
    y = np.asarray(layer((a.reshape(-1, 1), a[::-1].copy().reshape(-1, 1))))
    c.append({"class_name": "HashedCrossing", "config": layer.get_config(), "note": "string x string, one_hot",
              "inputs": [tensor(a.reshape(-1, 1), "string"), tensor(a[::-1].copy().reshape(-1, 1), "string")],
              "output": {"dtype": str(y.dtype), "shape": list(y.shape), "values": y.ravel().tolist()}})
    layer = L.HashedCrossing(num_bins=1000)
    y = np.asarray(layer((b, b[::-1].copy(), a)))
    c.append({"class_name": "HashedCrossing", "config": layer.get_config(), "note": "three features",
              "inputs": [tensor(b, "int64"), tensor(b[::-1].copy(), "int64"), tensor(a, "string")],
              "output": {"dtype": str(y.dtype), "shape": list(y.shape), "values": y.ravel().tolist()}})
    # StringLookup
    vocab = ["a", "b", "héllo wörld", "", "日本語テキスト"]
    q = np.array([["a"], ["b"], ["zzz"], [""], ["日本語テキスト"], ["héllo wörld"], ["[UNK]"], ["A"]])
    case(c, L.StringLookup(vocabulary=vocab), q, "string", "default")
    case(c, L.StringLookup(vocabulary=vocab[:3], mask_token="", num_oov_indices=2), q, "string",
         "mask and two OOV")
    case(c, L.StringLookup(vocabulary=vocab[:3], num_oov_indices=3, salt=[9, 10]), q, "string", "salted OOV")
    case(c, L.StringLookup(vocabulary=vocab, num_oov_indices=0), q[:2], "string", "no OOV")
    for mode in ("one_hot", "multi_hot", "count"):
        case(c, L.StringLookup(vocabulary=vocab[:3], output_mode=mode), q[:6], "string", mode)
    case(c, L.StringLookup(vocabulary=vocab[:3], output_mode="multi_hot", mask_token=""),
         np.array([["a", "", "a"], ["zz", "b", "b"]]), "string", "multi_hot with mask")
    case(c, L.StringLookup(vocabulary=vocab[:3], output_mode="count", pad_to_max_tokens=True, max_tokens=8),
         np.array([["a", "b", "a"], ["zz", "b", "b"]]), "string", "count padded")
    case(c, L.StringLookup(vocabulary=vocab[:3], invert=True), np.array([[0], [1], [2], [3], [4], [9]]), "int64",
         "invert")
    case(c, L.StringLookup(vocabulary=vocab[:3], invert=True, mask_token="[MASK]"),
         np.array([[0], [1], [2], [3], [4], [9]]), "int64", "invert with mask")
    case(c, L.StringLookup(vocabulary=["[UNK]", "x", "y"]), np.array([["x"], ["q"]]), "string",
         "vocabulary with its OOV token in front")
    # IntegerLookup
    ivocab = [12, 7, -3, 123456789012]
    iq = np.array([[12], [7], [0], [-3], [5], [123456789012], [-1], [99]], dtype="int64")
    case(c, L.IntegerLookup(vocabulary=ivocab), iq, "int64", "default")
    case(c, L.IntegerLookup(vocabulary=ivocab, mask_token=0, num_oov_indices=3), iq, "int64", "mask, floormod OOV")
    case(c, L.IntegerLookup(vocabulary=ivocab, num_oov_indices=3, oov_method="farmhash"), iq, "int64",
         "farmhash OOV")
    case(c, L.IntegerLookup(vocabulary=ivocab, num_oov_indices=3, oov_method="farmhash", salt=[2, 3]), iq,
         "int64", "salted OOV")
    case(c, L.IntegerLookup(vocabulary=ivocab), iq.astype("int32"), "int32", "int32 input")
    for mode in ("one_hot", "multi_hot", "count"):
        case(c, L.IntegerLookup(vocabulary=ivocab, output_mode=mode), iq[:5], "int64", mode)
    case(c, L.IntegerLookup(vocabulary=ivocab, invert=True), np.array([[0], [1], [2], [4], [5], [8]]), "int64",
         "invert")
    case(c, L.IntegerLookup(vocabulary=ivocab, invert=True, mask_token=0, oov_token=-7),
         np.array([[0], [1], [2], [4], [5], [8]]), "int64", "invert with mask and oov_token")
    # CategoryEncoding
    ids = np.array([[0, 1, 1], [3, 2, 0], [4, 4, 4]], dtype="int64")
    for mode in ("multi_hot", "count"):
        case(c, L.CategoryEncoding(num_tokens=5, output_mode=mode), ids, "int64", mode)
        case(c, L.CategoryEncoding(num_tokens=5, output_mode=mode), ids[0], "int64", mode + " rank 1")
    case(c, L.CategoryEncoding(num_tokens=5, output_mode="one_hot"), np.array([[0], [3], [4]], dtype="int32"),
         "int32", "one_hot (batch, 1)")
    case(c, L.CategoryEncoding(num_tokens=5, output_mode="one_hot"), np.array([0, 3, 4], dtype="int64"), "int64",
         "one_hot (batch,)")
    # Discretization
    xs = np.array([[-1.5], [0.0], [0.2], [0.5], [1.0], [2.5], [10.0], [-100.0]], dtype="float32")
    case(c, L.Discretization(bin_boundaries=[0.0, 0.5, 1.0]), xs, "float32", "int")
    for mode in ("one_hot", "multi_hot", "count"):
        case(c, L.Discretization(bin_boundaries=[0.0, 0.5, 1.0], output_mode=mode),
             xs if mode == "one_hot" else xs.reshape(2, 4), "float32", mode)
    return c


def adapt_cases():
    out = []
    L = keras.layers
    rng = np.random.default_rng(7)
    words = np.array(["apple", "banana", "cherry", "date", "elder", "fig", "grape", "héllo", "", "日本"])
    data = words[rng.integers(0, len(words), size=(60, 2))]
    for kw in ({}, {"max_tokens": 5}, {"mask_token": "", "num_oov_indices": 2}, {"oov_token": "apple"},
               {"output_mode": "multi_hot"}):
        layer = L.StringLookup(**kw)
        layer.adapt(data)
        out.append({"class_name": "StringLookup", "config": {**layer.get_config(), "vocabulary": None},
                    "data": tensor(data, "string"), "vocabulary": layer.get_vocabulary()})
    ties = np.array(["b", "a", "c", "a", "b", "c", "d"])  # a, b, c tie: the tie rule decides
    layer = L.StringLookup()
    layer.adapt(ties)
    out.append({"class_name": "StringLookup", "config": {**layer.get_config(), "vocabulary": None},
                "data": tensor(ties, "string"), "vocabulary": layer.get_vocabulary()})
    idata = rng.integers(-4, 6, size=(50,)).astype("int64")
    for kw in ({}, {"max_tokens": 4}, {"mask_token": 0}):
        layer = L.IntegerLookup(**kw)
        layer.adapt(idata)
        out.append({"class_name": "IntegerLookup", "config": {**layer.get_config(), "vocabulary": None},
                    "data": tensor(idata, "int64"), "vocabulary": [int(v) for v in layer.get_vocabulary()]})
    for n, kw in ((37, {"num_bins": 4}), (250, {"num_bins": 10}), (300, {"num_bins": 7, "epsilon": 0.05}),
                  (5, {"num_bins": 8})):
        x = rng.normal(size=(n, 1)).astype("float32")
        layer = L.Discretization(**kw)
        layer.adapt(x)
        out.append({"class_name": "Discretization", "config": {**layer.get_config(), "bin_boundaries": None},
                    "data": tensor(x, "float32"), "bin_boundaries": [float(b) for b in layer.bin_boundaries]})
    # Discretization adapted over batches (a Dataset of 4 batches)
    import tensorflow as tf
    x = rng.uniform(-3, 3, size=(200, 1)).astype("float32")
    layer = L.Discretization(num_bins=5)
    layer.adapt(tf.data.Dataset.from_tensor_slices(x).batch(64))
    out.append({"class_name": "Discretization", "config": {**layer.get_config(), "bin_boundaries": None},
                "data": tensor(x, "float32"), "batch_size": 64, "bin_boundaries": [float(b) for b in layer.bin_boundaries]})
    return out


def model_golden(adapted):
    """adapted: the city vocabulary is learned by adapt (saved as a .keras asset, which
    Keras's .h5 cannot hold); else given (saved inline in the config, .keras and .h5)."""
    L = keras.layers
    keras.utils.set_random_seed(3)
    city = keras.Input(shape=(1,), dtype="string", name="city")
    code = keras.Input(shape=(1,), dtype="int64", name="code")
    tags = keras.Input(shape=(3,), dtype="string", name="tags")
    amount = keras.Input(shape=(1,), dtype="float32", name="amount")
    if adapted:
        lookup = L.StringLookup(name="city_lookup")
        lookup.adapt(np.array(["paris", "tokyo", "paris", "lima", "東京", "paris", "lima"]))
    else:
        lookup = L.StringLookup(vocabulary=["paris", "tokyo", "", "lima", "東京"], name="city_lookup")
    e = L.Flatten()(L.Embedding(lookup.vocabulary_size(), 4, name="city_embedding")(lookup(city)))
    ilookup = L.IntegerLookup(vocabulary=[10, 20, 30, -1000], output_mode="one_hot", name="code_lookup")
    h = L.Hashing(num_bins=8, output_mode="multi_hot", salt=[1, 2], name="tag_hash")(tags)
    cross = L.HashedCrossing(num_bins=6, output_mode="one_hot", name="cross")((city, code))
    d = L.Discretization(bin_boundaries=[-1.0, 0.0, 2.5], output_mode="one_hot", name="bins")(amount)
    x = L.Concatenate()([e, ilookup(code), h, cross, d])
    x = L.Dense(8, activation="relu")(x)
    out = L.Dense(1)(x)
    model = keras.Model([city, code, tags, amount], out)
    model.compile(optimizer="adam", loss="mse")
    n = 6
    inputs = {
        "city": np.array([["paris"], ["lima"], ["nowhere"], [""], ["東京"], ["tokyo"]]),
        "code": np.array([[10], [30], [5], [-1000], [20], [0]], dtype="int64"),
        "tags": np.array([["a", "b", ""], ["x", "x", "x"], ["日本", "b", "c"], ["", "", ""], ["q", "r", "s"],
                          ["a", "a", "b"]]),
        "amount": np.array([[-2.0], [0.0], [0.5], [3.0], [-1.0], [2.5]], dtype="float32"),
    }
    import tensorflow as tf
    pred = model.predict([tf.constant(inputs[k]) for k in ("city", "code", "tags", "amount")], verbose=0)
    base = os.path.join(OUT, "model_adapted" if adapted else "model_vocabulary")
    model.save(base + ".keras")
    if not adapted:
        model.save(base + ".h5")
    with open(base + ".json", "w") as f:
        json.dump({"inputs": {k: tensor(v, "string" if v.dtype.kind == "U" else str(v.dtype)) for k, v in inputs.items()},
                   "prediction": tensor(pred, "float32"), "vocabulary": lookup.get_vocabulary(),
                   "samples": n}, f, ensure_ascii=False, indent=0)


def npy_cases():
    """NumPy string arrays as np.save writes them ('U': UTF-32, 'S': bytes)."""
    words = np.array([["paris", ""], ["東京", "a much longer value"], ["héllo", "x"]])
    np.save(os.path.join(OUT, "strings_U.npy"), words)
    np.save(os.path.join(OUT, "strings_S.npy"), np.array([b"abc", b"", b"\xff\x00z"]))
    with open(os.path.join(OUT, "strings_npy.json"), "w") as f:
        json.dump({"U": tensor(words, "string"), "S_hex": [b"abc".hex(), b"".hex(), b"\xff\x00z".hex()]}, f,
                  ensure_ascii=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    npy_cases()
    with open(os.path.join(OUT, "layers.json"), "w") as f:
        json.dump(layer_cases(), f, ensure_ascii=False)
    with open(os.path.join(OUT, "adapt.json"), "w") as f:
        json.dump(adapt_cases(), f, ensure_ascii=False)
    model_golden(adapted=True)
    model_golden(adapted=False)
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
