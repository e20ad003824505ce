"""Golden files from real Keras for the C++ io tests (tests/io/keras_files_test.cc).

Writes, under tests/data/:
  keras_golden/<name>.{keras,h5}, <name>.input.npy, <name>.output.npy
      small Dense models built and saved by Keras 3 (both formats), with inputs and
      Keras's predictions;
  keras_models/<id>.input.npy, <id>.output.npy (+ <id>.loader.txt)
      inputs and Keras's predictions for every real file in /work/shared/keras-models
      (loaded by keras.models.load_model, or, for Keras 2 era files Keras 3 refuses, by
      a legacy path: the model_config patched for Keras 3 and the weights set from the
      file's own weight_names in order; loader.txt says which). Keras 2 files keep
      Keras 2's hard_sigmoid (clip(0.2x + 0.5, 0, 1)), which Keras 3 redefined: the
      goldens are what the model computed in the Keras that saved it.

Run:
  python3 -m venv /tmp/venv_files && /tmp/venv_files/bin/pip install keras jax jaxlib h5py
  KERAS_BACKEND=jax /tmp/venv_files/bin/python tests/reference/make_keras_goldens.py [SHARED_DIR]
"""
import json
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "jax")
import h5py  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
SHARED = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared")


def small_models():
    keras.utils.set_random_seed(7)
    out = {}
    inp = keras.Input((4,), name="x")
    h = keras.layers.Dense(8, activation="relu", name="hidden")(inp)
    h = keras.layers.Dropout(0.3, name="drop")(h)
    y = keras.layers.Dense(3, activation="softmax", name="probs")(h)
    out["functional_mlp"] = (keras.Model(inp, y, name="functional_mlp"), [(5, 4)])

    out["sequential_mlp"] = (keras.Sequential([
        keras.Input((6,)),
        keras.layers.Dense(5, activation="tanh"),
        keras.layers.Dense(2),
        keras.layers.Activation("sigmoid"),
    ], name="sequential_mlp"), [(5, 6)])

    a = keras.Input((2, 3), name="a")
    b = keras.Input((5,), name="b")
    fa = keras.layers.Flatten(name="flat")(a)
    shared = keras.layers.Dense(4, activation="elu", name="shared")
    ya = shared(fa)
    yb = keras.layers.Dense(6, name="proj")(b)
    yb = shared(yb)
    r = keras.layers.Reshape((2, 2), name="reshape")(ya)
    out["multi_io_shared"] = (keras.Model([a, b], [r, yb], name="multi_io_shared"), [(3, 2, 3), (3, 5)])

    inner_in = keras.Input((4,))
    inner = keras.Model(inner_in, keras.layers.Dense(3, activation="relu")(inner_in), name="inner")
    x = keras.Input((4,))
    z = keras.layers.Dense(2)(inner(x))
    out["nested"] = (keras.Model(x, z, name="nested"), [(4, 4)])
    return out


def write_small():
    rng = np.random.default_rng(0)
    for name, (model, shapes) in small_models().items():
        model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
        xs = [rng.standard_normal(s).astype("float32") for s in shapes]
        if name == "functional_mlp":  # one step, so the file holds optimizer state (iteration 1)
            model.train_on_batch(xs[0], np.full((shapes[0][0], 3), 1 / 3, dtype="float32"))
        ys = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
        ys = ys if isinstance(ys, (list, tuple)) else [ys]
        base = os.path.join(DATA, "keras_golden", name)
        model.save(base + ".keras")
        model.save(base + ".h5")
        for i, x in enumerate(xs):
            np.save(f"{base}.input{i}.npy", x)
        for i, y in enumerate(ys):
            np.save(f"{base}.output{i}.npy", np.asarray(y, dtype="float32"))
        print("wrote", name)


def patched_config(cfg):
    """Keras 2 era configs that Keras 3 rejects: rewrite what changed (recursively)."""
    if isinstance(cfg, list):
        return [patched_config(v) for v in cfg]
    if not isinstance(cfg, dict):
        return cfg
    cfg = {k: patched_config(v) for k, v in cfg.items()}
    cls, c = cfg.get("class_name"), cfg.get("config")
    if cls == "Sequential" and isinstance(c, list):  # Keras <= 2.2.2: a bare list
        cfg["config"] = c = {"name": "sequential", "layers": c}
    if cls == "Sequential" and c["layers"] and c["layers"][0]["class_name"] != "InputLayer":
        first = c["layers"][0]["config"]
        if "batch_input_shape" in first:
            c["layers"].insert(0, {"class_name": "InputLayer", "config": {
                "batch_shape": first.pop("batch_input_shape"), "dtype": first.get("dtype", "float32"),
                "name": first["name"] + "_input"}})
    if isinstance(c, dict):
        for k in ("activation", "recurrent_activation"):
            if c.get(k) == "hard_sigmoid":
                c[k] = "hard_sigmoid_keras2"  # Keras 2's definition (Keras 3 redefined it)
        if cls == "GRU" and "reset_after" not in c:
            c["reset_after"] = False  # Keras < 2.1.4 layout
        if cls == "Embedding":
            c["dtype"] = "float32"  # Keras 2.0 wrote the input dtype here
        for k in ("time_major", "input_length", "implementation"):
            c.pop(k, None)
        if cls in ("Bidirectional", "TimeDistributed"):
            for k in ("layer", "backward_layer"):
                if isinstance(c.get(k), dict):
                    c[k].setdefault("module", "keras.layers")
                    c[k].setdefault("registered_name", None)
                    c[k].get("config", {}).pop("batch_input_shape", None)
    return cfg


def hard_sigmoid_keras2(x):
    return keras.ops.clip(0.2 * x + 0.5, 0.0, 1.0)


def legacy_load(path):
    with h5py.File(path, "r") as f:
        cfg = f.attrs["model_config"]
        cfg = json.loads(cfg.decode() if isinstance(cfg, bytes) else cfg)
        from keras.src.legacy.saving import saving_utils
        with keras.saving.custom_object_scope({"hard_sigmoid_keras2": hard_sigmoid_keras2}):
            model = saving_utils.model_from_config(patched_config(cfg))
        mw = f["model_weights"]
        names = [n.decode() if isinstance(n, bytes) else n for n in mw.attrs["layer_names"]]
        by_name = {l.name: l for l in model.layers}
        for n in names:
            wn = [w.decode() if isinstance(w, bytes) else w for w in mw[n].attrs["weight_names"]]
            if len(wn) == 0:
                continue
            by_name[n].set_weights([np.asarray(mw[n][w]) for w in wn])
    return model


def input_for(model, spec, rng):
    shape = [4] + [d for d in spec.shape[1:]]
    emb = [l for l in model.layers if l.__class__.__name__ == "Embedding"]
    # Token ids also when the input is declared float32 (gru_embed_k204: Keras 2.0 wrote the
    # InputLayer as float32). Its checked-in input0 came from standard normals; Keras fed them
    # as int32(trunc(x)) with jnp.take wrapping negatives, and the file now holds exactly those
    # ids (trunc(x) mod input_dim), so the checked-in output is unchanged.
    if "int" in str(spec.dtype) or emb:
        high = emb[0].input_dim if emb else 10
        ids = rng.integers(0, high, size=shape)
        return ids.astype("int32" if "int" in str(spec.dtype) else "float32")
    return rng.standard_normal(shape).astype("float32")


def write_real():
    manifest = json.load(open(os.path.join(SHARED, "keras-models", "manifest.json")))
    rng = np.random.default_rng(1)
    for entry in manifest["files"]:
        path = os.path.join(SHARED, "keras-models", entry["file"])
        base = os.path.join(DATA, "keras_models", entry["id"])
        loader = "keras.models.load_model"
        try:
            model = keras.models.load_model(path, compile=False)
        except Exception as e:  # noqa: BLE001
            print(entry["id"], "load_model failed:", str(e).splitlines()[0][:200])
            try:
                model = legacy_load(path)
                loader = "legacy (patched model_config + weights by weight_names)"
            except Exception as e2:  # noqa: BLE001
                print(entry["id"], "legacy load failed too:", str(e2).splitlines()[0][:300])
                open(base + ".loader.txt", "w").write("FAILED: " + str(e2).splitlines()[0] + "\n")
                continue
        xs = [input_for(model, t, rng) for t in model.inputs]
        ys = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
        ys = ys if isinstance(ys, (list, tuple)) else [ys]
        for i, x in enumerate(xs):
            np.save(f"{base}.input{i}.npy", x)
        for i, y in enumerate(ys):
            np.save(f"{base}.output{i}.npy", np.asarray(y, dtype="float32"))
        open(base + ".loader.txt", "w").write(f"keras {keras.__version__} ({keras.backend.backend()}): {loader}\n")
        print(entry["id"], "ok via", loader, [x.shape for x in xs], "->", [np.shape(y) for y in ys])


if __name__ == "__main__":
    write_small()
    write_real()
