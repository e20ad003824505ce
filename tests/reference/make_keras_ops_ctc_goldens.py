#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops.ctc_loss and
keras.ops.ctc_decode (issue #38), one small functional model per case.

It runs make_keras_ops_goldens.py's op_cases over this file's cases, with its own seeded
generator, so that no other file's cases change, and writes
  tests/data/keras_ops/ctc/<case>.keras   one functional model per case
  tests/data/keras_ops_ctc_golden.json    per case as keras_ops_golden.json's cases (the file,
                                          the operation, its saved entries, inputs, Keras's
                                          output with its dtype, a projection and the
                                          gradients of sum(output * projection) w.r.t. the
                                          float inputs: the logits)
tests/io/keras_ops_test.cc runs the cases of every such file alike.

What Keras 3.15.1 computes, and so what the cases hold:
- ctc_loss(target, output, target_length, output_length, mask_index) is tf.nn.ctc_loss on
  the logits (batch, steps, classes), not time major: per sample, minus the log of the sum
  over every alignment of its first target_length labels with its first output_length steps
  of the log-softmax's probabilities; mask_index is the blank (negative counts from the end).
- ctc_decode(inputs, sequence_lengths, strategy="greedy") is tf.nn.ctc_greedy_decoder: per
  step the best class (ties to the lowest, the blank among them; mask_index None: the last
  class is the blank), repeats merged unless
  merge_repeated=False, blanks dropped; labels (1, batch, steps) int32 padded with -1 and
  scores (batch, 1), minus the sum of the chosen logits. Each of the two results is a case.
Labels, lengths and the sequences' lengths are model inputs (int32) with fixed values here.
"loss_class" holds keras.losses.CTC (labels padded with 0, every step of the logits) per
reduction with its gradient, and three SGD steps of a model compiled with loss="ctc"
(tests/losses/ctc_loss_test.cc).

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0 h5py
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_keras_ops_ctc_goldens.py
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_keras_ops_goldens as base  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops as K  # noqa: E402


# Fixed integer inputs by kind (two samples each).
FIXED = {
    "labels": [[1, 2, 2, 3], [3, 1, 0, 0]],          # the second padded with the blank 0
    "label_length": [4, 2],
    "logit_length": [10, 7],
    "labels_blank_last": [[0, 3, 3, 1], [2, 2, 0, 1]],  # classes 0..3, the blank 4
    "label_length_short": [3, 4],
    "repeats": [[2, 2, 2, 0], [1, 1, 0, 0]],         # repeats need a blank between
    "empty_label_length": [3, 0],                    # the second sample: no label at all
    "steps": [8, 5],
    "all_steps": [8, 8],
}


def own_kinds(shape, kind):
    if kind == "ties":  # whole numbers in [0, 2]: most steps' best class is tied
        return base.rng.integers(0, 3, shape).astype("float32")
    return None


def cases():
    logits = ("any", (10, 5))
    labels = [("labels", (4,)), logits, ("label_length", ()), ("logit_length", ())]

    def loss(**kw):
        return lambda x: K.ctc_loss(x[0], x[1], x[2], x[3], **kw)

    def decode(result, **kw):
        return lambda x: K.ctc_decode(x[0], x[1], **kw)[result]

    scores = [("any", (8, 5)), ("steps", ())]
    return {
        "ctc_loss": (loss(), labels, "CTCLoss"),
        "ctc_loss_blank_last": (loss(mask_index=4), [("labels_blank_last", (4,)), logits,
                                                     ("label_length_short", ()), ("logit_length", ())], "CTCLoss"),
        "ctc_loss_blank_negative": (loss(mask_index=-1), [("labels_blank_last", (4,)), logits,
                                                          ("label_length_short", ()), ("logit_length", ())], "CTCLoss"),
        "ctc_loss_repeats_and_empty": (loss(), [("repeats", (4,)), logits, ("empty_label_length", ()),
                                                ("logit_length", ())], "CTCLoss"),
        "ctc_decode_labels": (decode(0), scores, "CTCDecode"),
        "ctc_decode_scores": (decode(1), scores, "CTCDecode"),
        "ctc_decode_no_merge": (decode(0, merge_repeated=False), [("any", (8, 3)), ("all_steps", ())],
                                "CTCDecode"),
        "ctc_decode_blank_middle": (decode(0, mask_index=2), [("any", (8, 4)), ("steps", ())], "CTCDecode"),
        "ctc_decode_blank_middle_scores": (decode(1, mask_index=2), [("any", (8, 4)), ("steps", ())],
                                           "CTCDecode"),
        # ties go to the first of the largest, the blank among them; no mask_index: the last class
        "ctc_decode_ties": (decode(0, merge_repeated=False), [("ties", (8, 4)), ("all_steps", ())], "CTCDecode"),
        "ctc_decode_ties_blank_middle": (decode(0, mask_index=2), [("ties", (8, 4)), ("all_steps", ())],
                                         "CTCDecode"),
        "ctc_decode_mask_index_none": (decode(0, mask_index=None), [("any", (8, 4)), ("steps", ())], "CTCDecode"),
    }


def loss_class_section():
    """keras.losses.CTC on fixed labels (0-padded) and logits, per reduction, with the
    gradient of the default reduction w.r.t. the logits; and three SGD steps of a
    Dense(4) logits model compiled with loss="ctc" (its losses after each step)."""
    import keras
    import tensorflow as tf
    y_true = np.array([[1, 2, 2, 0], [3, 1, 3, 2], [2, 0, 0, 0]], np.int32)
    y_pred = base.rng.uniform(-2.0, 2.0, (3, 9, 4)).astype("float32")
    out = {"y_true": base.arr(y_true), "y_pred": base.arr(y_pred), "reductions": {}}
    for reduction in ("sum_over_batch_size", "sum", "none"):
        out["reductions"][reduction] = base.arr(np.asarray(keras.losses.CTC(reduction=reduction)(y_true, y_pred)))
    t = tf.constant(y_pred)
    with tf.GradientTape() as tape:
        tape.watch(t)
        loss = keras.losses.CTC()(y_true, t)
    out["gradient"] = base.arr(np.asarray(tape.gradient(loss, t)))

    keras.backend.clear_session()
    x = base.rng.standard_normal((3, 6, 3)).astype("float32")
    labels = np.array([[1, 2, 0], [3, 3, 1], [2, 0, 0]], np.int32)
    model = keras.Sequential([keras.Input((6, 3)), keras.layers.Dense(4, name="logits")])
    kernel = (base.rng.standard_normal((3, 4)) * 0.5).astype("float32")
    bias = (base.rng.standard_normal((4,)) * 0.1).astype("float32")
    model.set_weights([kernel, bias])
    model.compile(optimizer=keras.optimizers.SGD(0.1), loss="ctc")
    losses = [float(model.train_on_batch(x, labels)) for _ in range(3)]
    out["training"] = {"x": base.arr(x), "labels": base.arr(labels), "kernel": base.arr(kernel),
                       "bias": base.arr(bias), "learning_rate": 0.1, "losses": losses,
                       "kernel_after": base.arr(np.asarray(model.get_weights()[0]))}
    return out


def main():
    base.write_case_file("tests/reference/make_keras_ops_ctc_goldens.py", "ctc", "keras_ops_ctc_golden.json",
                         cases, 20261204,
                         ["as keras_ops_golden.json's cases; an output's dtype is Keras's (int32 labels)"],
                         make_fn=base.make_with_fixed(FIXED, own_kinds), int_kinds=tuple(FIXED),
                         extra=lambda: {"loss_class": loss_class_section()})


if __name__ == "__main__":
    main()
