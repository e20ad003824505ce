#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops.ctc_decode with
strategy="beam_search" (issue #38), one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/ctc_beam/<case>.keras   one functional model per case
  tests/data/keras_ops_ctc_beam_golden.json    per case as keras_ops_golden.json's cases
tests/io/keras_ops_test.cc runs the cases of every such file alike.

What Keras 3.15.1 computes, and so what the cases hold: ctc_decode(inputs, sequence_lengths,
strategy="beam_search", beam_width, top_paths, mask_index) moves the mask_index column last
and calls tf.nn.ctc_beam_search_decoder (TensorFlow 2's, which never merges repeats:
merge_repeated is not passed on), which searches the log-softmax of each step's logits;
the labels come back (top_paths, batch, steps) int32 padded with -1, the classes after the
blank moved back up by one, and the scores (batch, top_paths) are the paths' log
probabilities, best first. Each of the two results is a case. mask_index None keeps the last
class as the blank; -1 is not a case (Keras slices an empty column for it and decodes twice
the classes). The sequences' lengths are model inputs (int32) with fixed values here.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_ctc_beam_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops as K  # noqa: E402

# Fixed sequence lengths (two samples each).
FIXED = {
    "steps": [9, 6],
    "all_steps": [9, 9],
    "one_empty": [9, 0],  # the second sample decodes no step: the empty labelling, log 1
}


def own_kinds(shape, kind):
    if kind == "peaked":  # logits whose best class stands out, so beams agree on a few paths
        return (base.rng.standard_normal(shape) * 3.0).astype("float32")
    return None


def cases():
    def beam(result, **kw):
        return lambda x: K.ctc_decode(x[0], x[1], strategy="beam_search", **kw)[result]

    five = [("any", (9, 5)), ("steps", ())]
    out = {}
    for name, kw, inputs in [
        ("defaults", {}, five),                                               # beam_width 100, mask_index 0
        ("top3_width4", {"beam_width": 4, "top_paths": 3}, five),            # pruned beams
        ("width1", {"beam_width": 1}, [("any", (9, 4)), ("all_steps", ())]),
        ("top2_blank_middle", {"beam_width": 6, "top_paths": 2, "mask_index": 2}, five),
        ("blank_none", {"beam_width": 8, "top_paths": 2, "mask_index": None}, [("any", (9, 4)), ("steps", ())]),
        ("blank_negative", {"beam_width": 8, "top_paths": 2, "mask_index": -2}, [("any", (9, 4)), ("steps", ())]),
        ("peaked_top4", {"beam_width": 10, "top_paths": 4}, [("peaked", (9, 6)), ("all_steps", ())]),
        ("empty_sample", {"beam_width": 5}, [("any", (9, 3)), ("one_empty", ())]),
        ("merge_repeated_false", {"beam_width": 5, "top_paths": 2, "merge_repeated": False}, five),
    ]:
        out["ctc_beam_%s_labels" % name] = (beam(0, **kw), inputs, "CTCDecode")
        out["ctc_beam_%s_scores" % name] = (beam(1, **kw), inputs, "CTCDecode")
    return out


def main():
    base.write_case_file("tests/reference/make_keras_ops_ctc_beam_goldens.py", "ctc_beam",
                         "keras_ops_ctc_beam_golden.json", cases, 20261205,
                         ["as keras_ops_golden.json's cases; an output's dtype is Keras's (int32 labels)"],
                         make_fn=base.make_with_fixed(FIXED, own_kinds), int_kinds=tuple(FIXED))


if __name__ == "__main__":
    main()
