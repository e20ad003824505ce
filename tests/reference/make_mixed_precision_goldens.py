#!/usr/bin/env python3
"""Keras 3 files of small models built under the mixed-precision dtype policies, for Strata's
emulation of those policies (float32 tensors, rounded to bfloat16 / float16 where Keras rounds).

For each policy in ("mixed_bfloat16", "bfloat16", "mixed_float16", "float16") and each model
below, writes tests/data/mixed_precision/<policy>_<model>.keras, <..>.h5 (where Keras reloads
its own .h5), a seeded input (<..>.input0.npy, float32, batch 3; int32 ids for "embed") and
Keras's prediction cast to float32 (<..>.output0.npy):

  dense           Input(6) -> Dense(5, relu) -> Dense(4, tanh) -> Dense(3, sigmoid)
                  -> Dense(3, softmax)
  einsum          Input((4, 6)) -> EinsumDense("abc,cd->abd", (4, 5), bias_axes="d")
                  -> Activation("gelu")
  conv            Input((8, 8, 3)) -> Conv2D(4, 3, padding="same", relu) -> DepthwiseConv2D(3)
                  -> BatchNormalization() -> MaxPooling2D() -> GlobalAveragePooling2D() -> Dense(2)
  norm            Input((5, 6)) -> LayerNormalization() -> Dense(6) -> Add()([., input])
                  -> Multiply()([., .]) -> GlobalAveragePooling1D()
  embed           int32 ids Input((4,)) -> Embedding(10, 6) -> Dense(3)
  attention       Input((4, 8)) -> MultiHeadAttention(2, 4)(x, x) -> Dense(2)
  float32_output  the dense model with its last Dense given dtype="float32"

Only the layers carry the policy (every layer's config has a DTypePolicy); the Input layers stay
float32.  The weights are drawn from a seeded generator (kernels, biases, embeddings, LayerNorm's
gamma/beta and BatchNormalization's gamma/beta/moving statistics all non-trivial) and assigned
in float32; a variable stored in bfloat16/float16 (the non-mixed policies) rounds them.

Keras writes its .keras zips "stored"; they are rewritten here with deflate (same members, same
bytes; Keras and Strata read both) to keep the directory small.  .h5 files are written only for
the dense and conv models (size), and not for the "bfloat16" policy: Keras writes a bfloat16 .h5
(opaque 2-byte datasets without a dtype attribute) but cannot load it back ("ValueError: No cast
function available"; checked here for every model, recorded in the manifest).

Each file is reloaded by Keras and must predict the same.  The prediction is also reproduced by
mixed_precision_emulation.py in two modes ("simple": the planned rule; "keras": the rule with
Keras's deviations) and tests/data/mixed_precision/manifest.json records, per file, the policy,
the model, its layer classes, the file types and max|emulated - keras| / max|keras| for both
modes.  The "keras" mode must stay within one unit in the last place of the format (it is
bit-exact here).  The bfloat16 goldens depend on TensorFlow's oneDNN graph fusions (on by default
on x86 Linux; TF_ENABLE_ONEDNN_OPTS=0 changes them); the float16 ones do not.

Regenerate with (keras 3.15.1, tensorflow 2.21, CPU):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_mixed_precision_goldens.py
"""
import json
import os
import sys
import tempfile
import zipfile

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

import mixed_precision_emulation as emu  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "mixed_precision")
POLICIES = ("mixed_bfloat16", "bfloat16", "mixed_float16", "float16")
H5_MODELS = ("dense", "conv")  # .h5 files kept (size); every model's .h5 reload is checked
# One unit in the last place of the format, relative: the "keras" emulation must stay within it.
ULP = {"bfloat16": 2.0**-8, "float16": 2.0**-11}
rng = np.random.default_rng(20264400)


def dense_model(last_dtype=None):
    inp = keras.Input((6,), name="x")
    h = L.Dense(5, activation="relu", name="dense_relu")(inp)
    h = L.Dense(4, activation="tanh", name="dense_tanh")(h)
    h = L.Dense(3, activation="sigmoid", name="dense_sigmoid")(h)
    out = L.Dense(3, activation="softmax", name="dense_softmax",
                  **({"dtype": last_dtype} if last_dtype else {}))(h)
    return keras.Model(inp, out, name="dense")


def einsum_model():
    inp = keras.Input((4, 6), name="x")
    h = L.EinsumDense("abc,cd->abd", output_shape=(4, 5), bias_axes="d", name="einsum_dense")(inp)
    out = L.Activation("gelu", name="gelu")(h)
    return keras.Model(inp, out, name="einsum")


def conv_model():
    inp = keras.Input((8, 8, 3), name="x")
    h = L.Conv2D(4, 3, padding="same", activation="relu", name="conv")(inp)
    h = L.DepthwiseConv2D(3, name="depthwise")(h)
    h = L.BatchNormalization(name="bn")(h)
    h = L.MaxPooling2D(name="pool")(h)
    h = L.GlobalAveragePooling2D(name="gap")(h)
    out = L.Dense(2, name="out")(h)
    return keras.Model(inp, out, name="conv")


def norm_model():
    inp = keras.Input((5, 6), name="x")
    h = L.LayerNormalization(name="ln")(inp)
    h = L.Dense(6, name="dense")(h)
    h = L.Add(name="add")([h, inp])
    h = L.Multiply(name="square")([h, h])
    out = L.GlobalAveragePooling1D(name="gap")(h)
    return keras.Model(inp, out, name="norm")


def embed_model():
    inp = keras.Input((4,), dtype="int32", name="ids")
    h = L.Embedding(10, 6, name="embedding")(inp)
    out = L.Dense(3, name="dense")(h)
    return keras.Model(inp, out, name="embed")


def attention_model():
    inp = keras.Input((4, 8), name="x")
    h = L.MultiHeadAttention(2, 4, name="mha")(inp, inp)
    out = L.Dense(2, name="out")(h)
    return keras.Model(inp, out, name="attention")


MODELS = {
    "dense": dense_model,
    "einsum": einsum_model,
    "conv": conv_model,
    "norm": norm_model,
    "embed": embed_model,
    "attention": attention_model,
    "float32_output": lambda: dense_model(last_dtype="float32"),
}


def randomize(model):
    for w in model.weights:
        name = w.path.split("/")[-1]
        shape = tuple(w.shape)
        if name == "moving_variance":
            v = rng.uniform(0.3, 2.0, shape)
        elif name == "gamma":
            v = 1.0 + 0.3 * rng.standard_normal(shape)
        else:  # kernels, biases, embeddings, beta, moving_mean
            v = 0.5 * rng.standard_normal(shape)
        w.assign(v.astype("float32"))


def input_for(model, batch=3):
    t = model.inputs[0]
    shape = (batch,) + tuple(t.shape[1:])
    if "int" in str(t.dtype):
        return rng.integers(0, 10, size=shape).astype("int32")
    return rng.standard_normal(shape).astype("float32")


def predict(model, x):
    return np.asarray(model.predict(x, verbose=0)).astype("float32")


def deflate(path):
    """Rewrites Keras's stored zip with deflate: the same members and bytes."""
    with zipfile.ZipFile(path) as z:
        members = [(i, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for info, data in members:
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)


def h5_reloads(model, x, y):
    """Whether Keras reloads its own legacy .h5 of `model` and predicts the same."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.h5")
        try:
            model.save(path)
            again = keras.saving.load_model(path)
            return bool(np.array_equal(predict(again, x), y)), None
        except Exception as e:  # noqa: BLE001 - recorded in the manifest
            return False, f"{type(e).__name__}: {str(e).splitlines()[0][:160]}"


def classes(model):
    return sorted({type(layer).__name__ for layer in model.layers})


def main():
    os.makedirs(OUT, exist_ok=True)
    manifest = {}
    for policy in POLICIES:
        for name, build in MODELS.items():
            keras.backend.clear_session()
            keras.config.set_dtype_policy(policy)
            try:
                model = build()
            finally:
                keras.config.set_dtype_policy("float32")
            randomize(model)
            x = input_for(model)
            y = predict(model, x)
            stem = f"{policy}_{name}"
            base = os.path.join(OUT, stem)
            model.save(base + ".keras")
            deflate(base + ".keras")
            again = keras.saving.load_model(base + ".keras")
            assert np.array_equal(predict(again, x), y), base + ".keras"
            files = [".keras"]
            h5_ok, h5_error = h5_reloads(model, x, y)
            if h5_ok and name in H5_MODELS:
                model.save(base + ".h5")
                again = keras.saving.load_model(base + ".h5")
                assert np.array_equal(predict(again, x), y), base + ".h5"
                files.append(".h5")
            np.save(base + ".input0.npy", x)
            np.save(base + ".output0.npy", y)
            files += [".input0.npy", ".output0.npy"]
            low = "float16" if "float16" in policy else "bfloat16"
            diffs = {mode: emu.max_rel_diff(emu.run_model(model, x, mode), y)
                     for mode in ("simple", "keras")}
            assert diffs["keras"] <= ULP[low], (stem, diffs)
            entry = {
                "policy": policy,
                "model": name,
                "classes": classes(model),
                "files": files,
                "h5_reloads": h5_ok,
                "max_rel_diff": {k: float(f"{v:.3g}") for k, v in diffs.items()},
            }
            if h5_error:
                entry["h5_error"] = h5_error
            manifest[stem] = entry
            print(f"{stem:32s} simple {diffs['simple']:.3g}  keras {diffs['keras']:.3g}  "
                  f"h5 {'ok' if h5_ok else 'FAILS'}", flush=True)
    with open(os.path.join(OUT, "manifest.json"), "w") as f:  # one line per file
        f.write("{\n" + ",\n".join(json.dumps(k) + ": " + json.dumps(v, sort_keys=True)
                                   for k, v in sorted(manifest.items())) + "\n}\n")
    print("wrote", len(os.listdir(OUT)), "files to", OUT)


if __name__ == "__main__":
    main()
