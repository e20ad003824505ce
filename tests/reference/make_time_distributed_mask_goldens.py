#!/usr/bin/env python3
"""Models saved by real Keras 3.15.1 (TensorFlow backend) whose TimeDistributed layers get a
mask (issue #38): Keras gives the wrapped layer mask[:, t] at each step when the layer's call
takes a mask (LSTM, GlobalAveragePooling1D) and passes the mask on.

Writes tests/data/time_distributed/<model>.{keras,h5}, <model>.input*.npy and
<model>.output0.npy:
  td_embedding_mask   token ids (batch, sentences, words) -> Embedding(mask_zero) ->
                      TimeDistributed(LSTM) and TimeDistributed(GlobalAveragePooling1D),
                      concatenated. Keras 3 records the mask as a NotEqual operation passed
                      with each call (its own .h5 reader cannot load that file back).
  td_mask_input       a float mask input passed with the call to TimeDistributed(LSTM,
                      return_sequences), whose output mask reaches a second
                      TimeDistributed(GlobalAveragePooling1D).
No sentence is masked whole: Keras's own model and the one it loads back from its file give
different answers there (zeros, NaN).

The C++ suites read these; they never run Python. Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_time_distributed_mask_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

if keras.backend.backend() != "tensorflow":
    sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_DIR = os.path.join(ROOT, "tests", "data", "time_distributed")
rng = np.random.default_rng(20261203)


def models():
    out = {}
    ids = keras.Input((3, 5), dtype="int32", name="ids")
    e = L.Embedding(10, 6, mask_zero=True, name="embedding")(ids)
    h = L.TimeDistributed(L.LSTM(4, name="lstm"), name="td_lstm")(e)
    a = L.TimeDistributed(L.GlobalAveragePooling1D(name="mean"), name="td_mean")(e)
    y = L.Concatenate(name="concat")([h, a])
    x = rng.integers(1, 10, (2, 3, 5)).astype("int32")
    x[0, 0, 3:] = 0
    x[0, 1, 1] = 0
    x[1, 2, :4] = 0
    out["td_embedding_mask"] = (keras.Model(ids, y, name="td_embedding_mask"), [x])

    x = keras.Input((3, 5, 6), name="x")
    m = keras.Input((3, 5), name="words")
    h = L.TimeDistributed(L.LSTM(4, return_sequences=True, name="lstm"), name="td_lstm")(x, mask=m)
    y = L.TimeDistributed(L.GlobalAveragePooling1D(name="mean"), name="td_mean")(h)
    mask = np.ones((2, 3, 5), np.float32)
    mask[0, 0, 2:] = 0
    mask[1, 1, ::2] = 0
    out["td_mask_input"] = (keras.Model([x, m], y, name="td_mask_input"),
                            [rng.standard_normal((2, 3, 5, 6)).astype("float32"), mask])
    for model, _ in out.values():
        for layer in model.layers:
            if layer.weights:
                layer.set_weights([(rng.standard_normal(tuple(w.shape)) * 0.5).astype("float32")
                                   for w in layer.weights])
    return out


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    keras.utils.set_random_seed(3)
    for name, (m, xs) in models().items():
        y = np.asarray(m(xs if len(xs) > 1 else xs[0], training=False))
        assert np.all(np.isfinite(y)), name
        base = os.path.join(OUT_DIR, name)
        m.save(base + ".keras")
        m.save(base + ".h5")
        for k, x in enumerate(xs):
            np.save(base + ".input%d.npy" % k, x)
        np.save(base + ".output0.npy", y)
        for ext in (".keras", ".h5"):
            try:
                again = keras.saving.load_model(base + ext)
            except ValueError as e:  # Keras 3.15.1's legacy .h5 reader knows no operation layers
                assert ext == ".h5" and "Unknown layer: 'NotEqual'" in str(e), (name, ext, e)
                print(name + ext, "does not load back in Keras:", str(e).split(".")[0])
                continue
            assert np.allclose(np.asarray(again(xs if len(xs) > 1 else xs[0], training=False)), y, atol=1e-6), (
                name, ext)
        print("wrote", base, y.shape)


if __name__ == "__main__":
    main()
