"""Strata -> real Keras round trip: models saved by Strata load in Keras 3 and predict the same
(models with None dims also on inputs of another size, <name>.other.input<i>.npy).

Builds build/tools/strata_save_samples (or takes its path), which writes sample models as
.h5 (tf.keras 2 layout) and .keras (Keras 3 zip) with inputs and Strata's predictions;
loads each file with keras.models.load_model and compares (1e-5 abs + 1e-4 rel); and
reads each model's to_json() with keras.models.model_from_json.

  python3 -m venv /tmp/venv_files && /tmp/venv_files/bin/pip install keras jax jaxlib h5py
  make -C build strata_save_samples
  KERAS_BACKEND=jax /tmp/venv_files/bin/python tests/reference/roundtrip_keras.py [build/tools/strata_save_samples]
The preprocessing samples (string inputs) need the TensorFlow backend:
  KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/roundtrip_keras.py
Exit status 0 only when every file loads and matches.
"""
import glob
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def numbered(base, kind):
    out = []
    while os.path.exists(f"{base}.{kind}{len(out)}.npy"):
        out.append(np.load(f"{base}.{kind}{len(out)}.npy"))
    return out


# Files Keras 3 cannot load whatever wrote them: it reads operation layers (keras.ops
# calls) back from no .h5 file, its own included ("Only input tensors may be passed as
# positional arguments"); Strata writes them as tf.keras's TFOpLambda there.
# And its .h5 loader turns any config string that names a Keras function into that
# function, so Attention's score_mode "dot" becomes keras.ops.dot and the layer refuses
# it (Keras 3.15.1, its own attention .h5 files included). Strata's .h5 files are in
# tf.keras 2's dialect, and Keras 3 builds MultiHeadAttention from no such file (a
# tf.keras-saved one fails too: "Unrecognized keyword arguments ... query_shape").
KERAS_CANNOT_LOAD = {"op_layers.h5": "Keras 3 loads no operation layers from .h5, its own included",
                     "attention.h5": "Keras 3 reads Attention's score_mode 'dot' from .h5 as keras.ops.dot, "
                                     "its own files included",
                     "transformer.h5": "Keras 3 reads MultiHeadAttention from no tf.keras-dialect .h5, "
                                       "tf.keras's own included",
                     "attention_masks.h5": "Keras 3 reads neither MultiHeadAttention nor Attention from a "
                                           "tf.keras-dialect .h5 (see above)"}


# Models with string inputs (the preprocessing layers) run only on Keras's TensorFlow
# backend: KERAS_BACKEND=tensorflow with tensorflow installed.
NEEDS_TENSORFLOW = ("preprocessing", "text_")


def as_keras_input(x):
    """NumPy string arrays as tf string tensors (Keras's predict refuses NumPy 'U' arrays)."""
    if x.dtype.kind in ("U", "S"):
        import tensorflow as tf
        return tf.constant(x)
    return x


def main():
    tool = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "tools", "strata_save_samples")
    failures = 0
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([tool, d], check=True)
        for path in sorted(glob.glob(os.path.join(d, "*.h5")) + glob.glob(os.path.join(d, "*.keras"))):
            base = path.rsplit(".", 1)[0]
            name = os.path.basename(path)
            if name in KERAS_CANNOT_LOAD:
                print(f"SKIP  {name}: {KERAS_CANNOT_LOAD[name]}")
                continue
            if name.startswith(NEEDS_TENSORFLOW) and keras.backend.backend() != "tensorflow":
                print(f"SKIP  {name}: string inputs need KERAS_BACKEND=tensorflow")
                continue
            try:
                model = keras.models.load_model(path)
                xs = [as_keras_input(x) for x in numbered(base, "input")]
                ys = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
                ys = ys if isinstance(ys, (list, tuple)) else [ys]
                expected = numbered(base, "output")
                assert len(ys) == len(expected), f"{len(ys)} outputs, Strata gave {len(expected)}"
                worst = 0.0
                for y, e in zip(ys, expected):
                    np.testing.assert_allclose(np.asarray(y), e, atol=1e-5, rtol=1e-4)
                    worst = max(worst, float(np.max(np.abs(np.asarray(y) - e))))
                # Models with None dims also hold inputs of another size and Strata's outputs.
                other = numbered(base + ".other", "input")
                if other:
                    ys = model.predict(other if len(other) > 1 else other[0], verbose=0)
                    ys = ys if isinstance(ys, (list, tuple)) else [ys]
                    for y, e in zip(ys, numbered(base + ".other", "output"), strict=True):
                        np.testing.assert_allclose(np.asarray(y), e, atol=1e-5, rtol=1e-4)
                        worst = max(worst, float(np.max(np.abs(np.asarray(y) - e))))
                    name += f" (and inputs of another size, {other[0].shape})"
                if name == "sequential_mlp.keras":  # trained one step by strata_save_samples
                    assert int(model.optimizer.iterations) == 1, "optimizer state not restored"
                    name += " (optimizer iteration 1 restored)"
                print(f"OK    {name}: Keras {keras.__version__} loads it, compiled={model.compiled}, "
                      f"max |Keras - Strata| = {worst:.2e}")
            except Exception as e:  # noqa: BLE001
                failures += 1
                print(f"FAIL  {name}: {type(e).__name__}: {str(e)[:400]}")
        for path in sorted(glob.glob(os.path.join(d, "*.json"))):
            name = os.path.basename(path)
            try:
                model = keras.models.model_from_json(open(path).read())
                base = path.rsplit(".", 1)[0]
                if name.startswith(NEEDS_TENSORFLOW) and keras.backend.backend() != "tensorflow":
                    print(f"SKIP  {name}: string inputs need KERAS_BACKEND=tensorflow")
                    continue
                reference = keras.models.load_model(base + ".keras")
                assert [l.name for l in model.layers] == [l.name for l in reference.layers]
                assert model.count_params() == reference.count_params()
                print(f"OK    {name}: keras.models.model_from_json reads Strata's to_json "
                      f"({len(model.layers)} layers, {model.count_params()} params)")
            except Exception as e:  # noqa: BLE001
                failures += 1
                print(f"FAIL  {name}: {type(e).__name__}: {str(e)[:400]}")
    print("all match" if failures == 0 else f"{failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
