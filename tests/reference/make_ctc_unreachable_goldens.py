#!/usr/bin/env python3
"""Golden data from real Keras 3.15.1 (TensorFlow backend) for keras.ops.ctc_loss where the
labels cannot be aligned with the logits, or only barely (issue #38).

Keras calls tf.nn.ctc_loss on dense labels, which runs TensorFlow's batched forward-backward
(ctc_ops.ctc_loss_dense). Its states are a start state, one state per label of the padded
label row and one blank state after each of those; every state but the start begins with
log(1e-307) (about -706.9) rather than log 0, and every state but the sample's two final
ones ends with it. So a labelling no alignment gives has a finite loss, about 707 plus the
loss of the best path that stops short of the final states, with a finite gradient, and a
reachable labelling whose loss would pass that reads about 707 too. The states of the row's
padding (past label_length) begin and end with that weight (about e^-1414 together), so no
float32 result sees them; the padding cases check that none of its values changes that.

Each case: labels (int32, the padded rows), logits (batch, steps, classes), label_length,
logit_length, mask_index; Keras's losses and the gradient of their sum w.r.t. the logits.
TensorFlow computes them in float32, where terms near -707 and -1414 keep about four
significant digits of the posteriors (its gradients differ from exact ones by up to 3e-5),
so each case also holds "gradient_float64": the same TensorFlow functions (ctc_ops's
ctc_loss_and_grad and the ones it calls, read from the installed TensorFlow) run with
float64 in place of float32, log(1e-307) still rounded to float32 as TensorFlow rounds it.
tests/losses/ctc_loss_test.cc reads them.

Regenerate with exactly:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_ctc_unreachable_goldens.py
"""
import json
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inspect  # noqa: E402

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from keras import ops as K  # noqa: E402
from tensorflow.python.ops import ctc_ops  # noqa: E402

from golden_json import arr  # noqa: E402

rng = np.random.default_rng(20261202)


def logits(batch, steps, classes, scale=2.0):
    return rng.uniform(-scale, scale, (batch, steps, classes)).astype("float32")


def cases():
    return [
        # "1 1" needs a blank between its labels: three steps, two given.
        ("repeat_without_room", [[1, 1]], logits(1, 2, 3), [2], [2], 0),
        # Four labels, three steps; the second sample reachable, in the same batch.
        ("longer_than_the_steps", [[1, 2, 3, 1], [2, 3, 0, 0]], logits(2, 3, 4), [4, 2], [3, 3], 0),
        # No step at all: a finite loss for labels, none without.
        ("no_steps", [[1, 2], [0, 0]], logits(2, 4, 3), [2, 0], [0, 0], 0),
        # The padding past label_length: -1 (no class), the blank 0 and 7 (past the classes).
        ("padding_minus_one", [[2, 2, -1, -1]], logits(1, 2, 4), [2], [2], 0),
        ("padding_blank", [[2, 2, 0, 0]], logits(1, 2, 4), [2], [2], 0),
        ("padding_past_the_classes", [[2, 2, 7, 7]], logits(1, 2, 4), [2], [2], 0),
        # A blank in the middle: TensorFlow moves it to 0 and shifts the labels below it up,
        # so a padding of -1 becomes the blank.
        ("blank_middle_padding_minus_one", [[1, 1, -1], [3, 0, 3]], logits(2, 3, 4), [2, 3], [2, 3], 2),
        ("blank_last", [[0, 0, 1, 2], [2, 1, -1, -1]], logits(2, 3, 4), [4, 2], [3, 2], -1),
        # Reachable, but every step's logits far from the labels: the best path's loss (eight
        # labels at 120 each) is past 707, where paths stopping short of the final states weigh more.
        ("reachable_but_unlikely", [[1, 2, 1, 2, 1, 2, 1, 2]],
         np.tile(np.array([[[80.0, -40.0, -40.0]]], "float32"), (1, 16, 1)), [8], [16], 0),
        # A reachable batch with padding, as a check that nothing else moved.
        ("reachable", [[1, 2, 2, 0], [3, 1, -1, -1]], logits(2, 9, 4), [3, 2], [9, 6], 0),
    ]


def float64_ctc_loss_and_grad():
    """TensorFlow's ctc_loss_and_grad and its helpers, recompiled from their source with
    float64 wherever they make float32 tensors (log(1e-307) is still rounded to float32)."""
    namespace = dict(ctc_ops.__dict__)
    namespace["np"] = np
    edits = [
        ("dtypes.float32)", "dtypes.float64)"),
        ("math_ops.log(0.0)", "math_ops.log(np.float64(0.0))"),
        ("array_ops.ones([_get_dim(indices, 0)])", "array_ops.ones([_get_dim(indices, 0)], dtype=dtypes.float64)"),
        ("linalg_ops.eye(num_states)", "linalg_ops.eye(num_states, dtype=dtypes.float64)"),
        ("array_ops.zeros([batch_size])", "array_ops.zeros([batch_size], dtype=dtypes.float64)"),
        ("on_value=0.0,", "on_value=np.float64(0.0),"),
        ("off_value=math_ops.log(np.float64(0.0))", "off_value=np.float64(-np.inf)"),
        ("one_hot(labels, depth=num_labels)", "one_hot(labels, depth=num_labels, dtype=dtypes.float64)"),
        ("seq_lengths, depth=num_label_states, axis=0)", "seq_lengths, depth=num_label_states, axis=0, dtype=dtypes.float64)"),
        ("[num_duration_states, 1, batch_size])", "[num_duration_states, 1, batch_size], dtype=dtypes.float64)"),
        # log(1e-307) as TensorFlow has it: rounded to float32.
        ("dtypes.float64) + 1e-307), dtypes.float64)", "dtypes.float64) + 1e-307), dtypes.float32)"),
        ("initial_state_log_probs = array_ops.one_hot(", "log_0 = math_ops.cast(log_0, dtypes.float64)\n  initial_state_log_probs = array_ops.one_hot("),
    ]
    for name in ("ctc_state_log_probs", "_ilabel_to_state", "_ctc_state_trans", "_forward_backward_log",
                 "ctc_loss_and_grad", "_state_to_olabel"):
        source = inspect.getsource(getattr(ctc_ops, name))
        for old, new in edits:
            source = source.replace(old, new)
        exec(source, namespace)
    return namespace["ctc_loss_and_grad"]


def float64_gradient(labels, x, label_length, logit_length, mask_index):
    """As tf.nn.ctc_loss's dense path calls it: the blank moved to class 0, the labels below it up."""
    x = x.astype(np.float64)
    blank = mask_index + x.shape[2] if mask_index < 0 else mask_index
    if blank != 0:
        x = np.concatenate([x[:, :, blank:blank + 1], x[:, :, :blank], x[:, :, blank + 1:]], 2)
        labels = np.where(labels < blank, labels + 1, labels)
    loss, grad = float64_ctc_loss_and_grad()(
        tf.constant(np.transpose(x, (1, 0, 2))), tf.constant(labels),
        tf.constant(np.array(label_length, np.int32)), tf.constant(np.array(logit_length, np.int32)))
    grad = np.transpose(grad.numpy(), (1, 0, 2))
    if blank != 0:
        grad = np.concatenate([grad[:, :, 1:blank + 1], grad[:, :, :1], grad[:, :, blank + 1:]], 2)
    return loss.numpy(), grad


def main():
    out = {"generator": "tests/reference/make_ctc_unreachable_goldens.py", "cases": []}
    for name, labels, x, label_length, logit_length, mask_index in cases():
        labels = np.array(labels, np.int32)
        t = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(t)
            loss = K.ctc_loss(labels, t, np.array(label_length, np.int32), np.array(logit_length, np.int32),
                              mask_index=mask_index)
            total = tf.reduce_sum(loss)
        grad = tape.gradient(total, t)
        loss64, grad64 = float64_gradient(labels, x, label_length, logit_length, mask_index)
        assert np.allclose(loss64, np.asarray(loss), rtol=1e-6, atol=1e-4), (loss64, loss)
        assert np.allclose(grad64, np.asarray(grad), atol=1e-4), name
        out["cases"].append({"name": name, "labels": arr(labels), "logits": arr(x),
                             "label_length": arr(np.array(label_length, np.int32)),
                             "logit_length": arr(np.array(logit_length, np.int32)), "mask_index": mask_index,
                             "loss": arr(np.asarray(loss)), "gradient": arr(np.asarray(grad)),
                             "gradient_float64": arr(grad64)})
        print(name, np.asarray(loss), "float64:", loss64, "largest gradient difference",
              np.abs(grad64 - np.asarray(grad)).max())
    with open("tests/data/ctc_unreachable_golden.json", "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
