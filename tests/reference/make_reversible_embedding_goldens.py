#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for ReversibleEmbedding.

Writes
  tests/data/reversible_embedding_golden.json    cases (keras_layer_case.py's format): the
                                                 forward call with mask_zero, the reverse call
                                                 with tied weights, untied
                                                 (reverse_embeddings), logit_soft_cap and
                                                 reverse_dtype (bfloat16, float16, float32)
  tests/data/reversible_embedding/<name>.keras   a small language model saved by Keras
  tests/data/reversible_embedding/<name>.h5      (tied_lm: ids -> ReversibleEmbedding ->
  .../<name>.input0.npy, .output0.npy            Dense -> the same layer called with
                                                 reverse=True, whose node's kwargs hold
                                                 {"reverse": true}; untied_lm: the same
                                                 untied with a soft cap), a seeded input
                                                 (batch 3) and Keras's predictions

Regenerate with (keras 3.15.1, tensorflow 2.21):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_reversible_embedding_goldens.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keras_layer_case import new, run_case, save_model, randomize_weights  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "reversible_embedding_golden.json")
MODELS = os.path.join(DATA, "reversible_embedding")
rng = np.random.default_rng(20263802)


def cases():
    R = L.ReversibleEmbedding
    ids = rng.integers(0, 7, size=(2, 5)).astype("int32")
    ids[:, -1] = 0
    c = [run_case(rng, "forward_mask_zero", new(R, 7, 4, mask_zero=True), [ids])]
    x = rng.standard_normal((2, 3, 4)).astype("float32")
    c.append(run_case(rng, "reverse_tied", new(R, 7, 4), [x], call_arguments={"reverse": True}))
    c.append(run_case(rng, "reverse_untied", new(R, 7, 4, tie_weights=False), [x], call_arguments={"reverse": True}))
    c.append(run_case(rng, "reverse_soft_cap", new(R, 7, 4, logit_soft_cap=0.8), [x],
                      call_arguments={"reverse": True}))
    c.append(run_case(rng, "forward_untied", new(R, 7, 4, tie_weights=False), [ids]))
    # reverse_dtype (added later, with a generator of their own so that the cases and
    # models above keep their values): the reverse call computed in bfloat16 / float16.
    rng2 = np.random.default_rng(20263841)
    x2 = rng2.standard_normal((2, 3, 4)).astype("float32")
    c.append(run_case(rng2, "reverse_dtype_bfloat16", new(R, 7, 4, reverse_dtype="bfloat16"), [x2],
                      call_arguments={"reverse": True}))
    c.append(run_case(rng2, "reverse_dtype_float16_untied_soft_cap",
                      new(R, 7, 4, tie_weights=False, reverse_dtype="float16", logit_soft_cap=1.5), [x2],
                      call_arguments={"reverse": True}))
    c.append(run_case(rng2, "reverse_dtype_float32", new(R, 7, 4, reverse_dtype="float32"), [x2],
                      call_arguments={"reverse": True}))
    return c


def lm(name, **options):
    keras.backend.clear_session()
    keras.utils.set_random_seed(38)
    i = keras.Input((6,), dtype="int32", name="ids")
    emb = L.ReversibleEmbedding(11, 4, name="emb", **options)
    h = L.Dense(4, activation="tanh")(emb(i))
    m = keras.Model(i, emb(h, reverse=True), name=name)
    randomize_weights(rng, emb)
    return m


def main():
    keras.utils.set_random_seed(1)
    doc = {"keras_version": keras.__version__, "cases": cases()}
    os.makedirs(MODELS, exist_ok=True)
    m = lm("tied_lm", mask_zero=True)
    print("reverse node:", json.dumps(m.get_config()["layers"][1]["inbound_nodes"][1]["kwargs"]))
    save_model(rng, m, os.path.join(MODELS, "tied_lm"))
    save_model(rng, lm("untied_lm", tie_weights=False, logit_soft_cap=2.0), os.path.join(MODELS, "untied_lm"))
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(doc["cases"]), "cases")


if __name__ == "__main__":
    main()
