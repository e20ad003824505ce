#!/usr/bin/env python3
"""Golden data for tf.keras's deprecated `causal` config key of Attention and
AdditiveAttention (issue #38 point 5: a key Strata did not honour was refused).

Older tf.keras versions (before use_causal_mask replaced it) wrote `"causal": true` in these
layers' configs; tf.keras 2.21 still takes the argument (`self.causal or use_causal_mask` in
its call) but no longer writes it. This script builds the model with tf_keras 2.21 and `causal=True`, records its
predictions, and saves it as .h5 with the key written into each layer's config, as the older
versions wrote it (the only change to the file tf_keras saved):

  tests/data/attention/causal_config.h5          the model (tf.keras's .h5 dialect)
  tests/data/attention/causal_config.input<i>.npy
  tests/data/attention/causal_config.output<i>.npy   tf_keras's predictions

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 tf-keras==2.21.0 h5py
    /tmp/kvenv/bin/python tests/reference/make_attention_causal_config_goldens.py
"""
import json
import os
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import h5py  # noqa: E402
import numpy as np  # noqa: E402
import tf_keras as K  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASE = os.path.join(ROOT, "tests", "data", "attention", "causal_config")
rng = np.random.default_rng(20263845)


def main():
    warnings.simplefilter("ignore")  # causal's deprecation
    K.utils.set_random_seed(45)
    q = K.Input((4, 3), name="query")
    v = K.Input((5, 3), name="value")
    qp = K.layers.Dense(3, name="query_projection")(q)
    a = K.layers.Attention(use_scale=True, causal=True, name="attention")([qp, v])
    b = K.layers.AdditiveAttention(causal=True, name="additive")([qp, v, v])
    m = K.Model([q, v], [a, b], name="causal_config")
    for layer in m.layers:
        if layer.weights:
            layer.set_weights([rng.uniform(-0.8, 0.8, size=w.shape).astype("float32") for w in layer.weights])
    xs = [rng.standard_normal((2, 4, 3)).astype("float32"), rng.standard_normal((2, 5, 3)).astype("float32")]
    ys = m.predict(xs, verbose=0)
    unmasked = K.Model([q, v], [K.layers.Attention(use_scale=True)([qp, v])]).predict(xs, verbose=0)
    assert not np.allclose(ys[0], unmasked, atol=1e-4), "causal made no difference"
    m.save(BASE + ".h5")
    with h5py.File(BASE + ".h5", "r+") as f:
        config = json.loads(f.attrs["model_config"])
        for layer in config["config"]["layers"]:
            if layer["class_name"] in ("Attention", "AdditiveAttention"):
                assert "causal" not in layer["config"]
                layer["config"]["causal"] = True
        f.attrs["model_config"] = json.dumps(config)
    for i, x in enumerate(xs):
        np.save("%s.input%d.npy" % (BASE, i), x)
    for i, y in enumerate(ys):
        np.save("%s.output%d.npy" % (BASE, i), np.asarray(y, "float32"))
    print("wrote", BASE + ".h5", [y.shape for y in ys])


if __name__ == "__main__":
    main()
