"""What the check_*_resaved.py scripts share: how a file Strata saved is compared, in Keras,
with the file Keras wrote itself (their dtype policies, variables and predictions).

Imported by check_quantized_resaved.py, check_quantize_api_resaved.py and
check_mixed_precision_resaved.py; not run on its own.
"""
import numpy as np


def policies(model):
    """Each layer's dtype policy: its class and name."""
    return {layer.name: (type(layer.dtype_policy).__name__, layer.dtype_policy.name) for layer in model.layers}


def problems_with(model, keras_model, x, want, values=False):
    """What differs between `model` (Strata's file, loaded in Keras) and `keras_model` (Keras's):
    policies, each variable's dtype (and trainability and value where `values`), and the
    predictions for x against `want` (exactly). An empty list when nothing does."""
    problems = []
    if policies(model) != policies(keras_model):
        problems.append("policies %s, Keras's file has %s" % (policies(model), policies(keras_model)))
    ours = {w.path: w for w in model.weights}
    theirs = {w.path: w for w in keras_model.weights}
    if sorted(ours) != sorted(theirs):
        problems.append("variables %s, Keras's file has %s" % (sorted(ours), sorted(theirs)))
    else:
        for path, w in theirs.items():
            mine = ours[path]
            if mine.dtype != w.dtype:
                problems.append("%s: %s, Keras's %s" % (path, mine.dtype, w.dtype))
            elif values and (mine.trainable != w.trainable or not np.array_equal(np.asarray(mine), np.asarray(w))):
                problems.append("%s: trainable %s, Keras's %s, or other values" % (path, mine.trainable, w.trainable))
    got = np.asarray(model.predict(x, verbose=0), "float32")
    if not np.array_equal(got, want):
        problems.append("predictions differ by %g" % float(np.max(np.abs(got - want))))
    return problems


def report(label, problems):
    """Prints one line for a file; True when it failed."""
    print(("FAIL " if problems else "ok   ") + label + ("" if not problems else ": " + "; ".join(problems)))
    return bool(problems)
