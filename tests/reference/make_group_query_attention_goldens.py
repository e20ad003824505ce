#!/usr/bin/env python3
"""Golden data from real Keras 3 (TensorFlow backend) for GroupQueryAttention.

Writes
  tests/data/group_query_attention_golden.json   cases (keras_layer_case.py's format):
                                                 grouped, multi-query (one key/value head)
                                                 and one head per query head, a separate key,
                                                 no bias, the gate, causal, masks on the
                                                 inputs and passed with the call, returned
                                                 scores, dropout configured; and Keras's
                                                 refusals ("errors")
  tests/data/group_query_attention/<name>.keras  two functional models saved by Keras
  tests/data/group_query_attention/<name>.h5     (gqa_block, gqa_scores_gate), with a
  .../<name>.input0.npy, .output<i>.npy          seeded input (batch 3) and Keras's
                                                 predictions

Regenerate with (keras 3.15.1, tensorflow 2.21):
    KERAS_BACKEND=tensorflow python3 tests/reference/make_group_query_attention_goldens.py
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keras_layer_case import new, run_case, save_model, randomize_weights  # noqa: E402

import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers as L  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA = os.path.join(ROOT, "tests", "data")
OUT = os.path.join(DATA, "group_query_attention_golden.json")
MODELS = os.path.join(DATA, "group_query_attention")
rng = np.random.default_rng(20263801)


def x(*shape):
    return rng.standard_normal(shape).astype("float32")


def mask(b, t):
    m = rng.uniform(size=(b, t)) < 0.6
    m[:, 0] = True
    m[:, -1] = False
    return m


def cases():
    G = L.GroupQueryAttention
    c = []
    s = x(2, 4, 6)
    c.append(run_case(rng, "gqa_self_q4_kv2", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2),
                      [s, s.copy()], positional=True))
    c.append(run_case(rng, "gqa_cross_multi_query", new(G, head_dim=2, num_query_heads=3, num_key_value_heads=1),
                      [x(2, 3, 6), x(2, 5, 6)], positional=True))
    c.append(run_case(rng, "gqa_with_key_kv_equals_q", new(G, head_dim=2, num_query_heads=2, num_key_value_heads=2),
                      [x(2, 3, 6), x(2, 5, 6), x(2, 5, 4)], positional=True))
    c.append(run_case(rng, "gqa_no_bias", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2, use_bias=False),
                      [x(2, 3, 6), x(2, 5, 6)], positional=True))
    c.append(run_case(rng, "gqa_gate", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2, use_gate=True),
                      [x(2, 3, 6), x(2, 5, 6)], positional=True))
    s = x(2, 4, 6)
    c.append(run_case(rng, "gqa_causal", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2), [s, s.copy()],
                      positional=True, call_arguments={"use_causal_mask": True}))
    c.append(run_case(rng, "gqa_input_masks", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2),
                      [x(2, 3, 6), x(2, 5, 6)], positional=True, masks=[mask(2, 3), mask(2, 5)]))
    am = rng.uniform(size=(2, 3, 5)) < 0.7
    am[:, :, 0] = True
    c.append(run_case(rng, "gqa_mask_arguments", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2),
                      [x(2, 3, 6), x(2, 5, 6)], positional=True,
                      tensor_arguments={"query_mask": mask(2, 3), "value_mask": mask(2, 5), "attention_mask": am}))
    c.append(run_case(rng, "gqa_return_scores_masks", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2),
                      [x(2, 3, 6), x(2, 5, 6)], positional=True, masks=[mask(2, 3), mask(2, 5)],
                      call_arguments={"return_attention_scores": True, "use_causal_mask": True}))
    c.append(run_case(rng, "gqa_dropout_inference",
                      new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2, dropout=0.2, seed=3),
                      [x(2, 3, 6), x(2, 5, 6)], positional=True))
    # sliding_window (added later, with a generator of their own so that the cases and
    # models above keep their values).
    r2 = np.random.default_rng(20263842)

    def x2(*shape):
        return r2.standard_normal(shape).astype("float32")
    s = x2(2, 5, 6)
    c.append(run_case(r2, "gqa_sliding_window", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2,
                                                    sliding_window=2), [s, s.copy()], positional=True))
    s = x2(2, 6, 6)
    c.append(run_case(r2, "gqa_sliding_window_causal", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2,
                                                           sliding_window=3), [s, s.copy()], positional=True,
                      call_arguments={"use_causal_mask": True}))
    c.append(run_case(r2, "gqa_sliding_window_cross_masks",
                      new(G, head_dim=2, num_query_heads=2, num_key_value_heads=1, sliding_window=2),
                      [x2(2, 3, 6), x2(2, 6, 6)], positional=True,
                      masks=[r2.uniform(size=(2, 3)) < 0.7, np.array([[1, 1, 0, 1, 1, 1], [1, 0, 1, 1, 0, 1]], bool)]))
    c.append(run_case(r2, "gqa_sliding_window_scores", new(G, head_dim=3, num_query_heads=4, num_key_value_heads=2,
                                                           sliding_window=2), [x2(2, 4, 6), x2(2, 4, 6)],
                      positional=True, call_arguments={"return_attention_scores": True}))
    return c


def errors():
    out = []

    def attempt(what, fn):
        try:
            fn()
            out.append({"what": what, "message": None})
        except Exception as e:  # noqa: BLE001
            out.append({"what": what, "raises": type(e).__name__, "message": re.sub(r"\x1b\[[0-9;]*m", "", str(e))[:400]})

    attempt("GroupQueryAttention(head_dim=2, num_query_heads=3, num_key_value_heads=2)",
            lambda: L.GroupQueryAttention(head_dim=2, num_query_heads=3, num_key_value_heads=2))
    attempt("GroupQueryAttention(2, 2, 1) on Input((3, 6)), Input((4, 5)): last dims differ",
            lambda: L.GroupQueryAttention(2, 2, 1)(keras.Input((3, 6)), keras.Input((4, 5))))
    return out


def models():
    os.makedirs(MODELS, exist_ok=True)
    keras.backend.clear_session()
    keras.utils.set_random_seed(38)
    i = keras.Input((5, 8), name="x")
    a = L.GroupQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2, name="gqa")(i, i,
                                                                                                 use_causal_mask=True)
    h = L.LayerNormalization(epsilon=1e-6)(L.Add()([i, a]))
    m = keras.Model(i, L.Dense(3)(L.Flatten()(h)), name="gqa_block")
    randomize_weights(rng, m.get_layer("gqa"), scale=0.3)
    save_model(rng, m, os.path.join(MODELS, "gqa_block"))

    keras.backend.clear_session()
    i = keras.Input((4, 6), name="x")
    out, scores = L.GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=1, use_gate=True,
                                        use_bias=False, name="gqa")(i, i, return_attention_scores=True)
    m = keras.Model(i, [L.Dense(2)(out), scores], name="gqa_scores_gate")
    randomize_weights(rng, m.get_layer("gqa"), scale=0.5)
    save_model(rng, m, os.path.join(MODELS, "gqa_scores_gate"))


def main():
    keras.utils.set_random_seed(1)
    doc = {"keras_version": keras.__version__, "cases": cases(), "errors": errors()}
    models()
    with open(OUT, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT, os.path.getsize(OUT), "bytes,", len(doc["cases"]), "cases")


if __name__ == "__main__":
    main()
