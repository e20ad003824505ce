#!/usr/bin/env python3
"""The Keras API docs/layers.md must account for (issue #38 point 1), asked of Keras itself.

Writes tests/data/keras_api/keras_3_15_api.json:

  keras_version  keras.__version__
  layers         every layer class keras.layers exports, by the class_name a saved config
                 gives it (keras.saving.serialize_keras_object: the last part of the
                 class's first keras_export name; that is the Python class's __name__
                 for every class but GroupedQueryAttention, saved as GroupQueryAttention),
                 with its Python class, its module and the other names keras.layers has
                 for it (Convolution1D for Conv1D). Left out: Layer and Wrapper, base
                 classes a user subclasses (called on a tensor, Layer() raises
                 NotImplementedError, Wrapper(Dense(2)) a TypeError), listed under
                 "left_out".
  activations    every name in keras.activations that names an activation function (is in
                 keras.src.activations.ALL_OBJECTS, which leaves out get, serialize and
                 deserialize), with the name Dense(activation=name).get_config() saves
                 (swish is saved as silu, hard_swish as hard_silu).
  operations     every keras.ops call that is saved in a functional model as an entry of
                 its own: the class_name and module of that entry (keras.src.ops.*) and
                 the keras.ops functions that make it (names relative to keras.ops:
                 "abs", "numpy.abs", "image.resize").

How the operations are found. Every public function of keras.ops and of its submodules
(image, linalg, nn, numpy) is called on symbolic tensors (keras.Input): with the
arguments specific() gives it, or else with the first of generic()'s argument lists it
accepts. The operations whose nodes give the call's outputs are the function's (not
those of helpers in its arguments, such as `x > 0`); the functional model of the call
(keras.Model(inputs, outputs)) is saved with get_config() and json.dumps, and each such
operation's entry there gives the class_name and module recorded. This is an experiment
for every function, not a reading of the source. A function is left out, with why, under
"left_out"/"functions" when it gives no node (shape, dtype; arange computes a constant),
raises on symbolic tensors (bartlett, vectorize), cannot be saved (while_loop), or is
saved holding Python code, a lambda's marshalled bytecode or a function by name (map,
scan, switch: C++ cannot run them, as it cannot run a Lambda layer's). A function no
argument list fits stops the script: a new Keras needs an entry in specific(), not a
silent omission. "left_out"/"operation_classes_not_listed" names every Operation subclass
of the keras.src.ops modules that is not an operation here: those of the functions left
out, and classes no function makes (keras.src.ops.numpy.Abs: keras.ops.abs calls
absolute, saved as Absolute).

Everything is sorted; the file is the same on every run. The C++ suite
(tests/io/layers_doc_test.cc) reads the JSON; it never runs Python. Regenerate with:

    python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras==3.15.1 tensorflow-cpu==2.21.0
    KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/list_keras_api.py
"""
import importlib
import inspect
import json
import os
import pkgutil
import sys
import warnings

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import keras  # noqa: E402
import numpy as np  # noqa: E402
import keras.src.activations  # noqa: E402
import keras.src.ops  # noqa: E402
from keras import ops  # noqa: E402
from keras.src import api_export  # noqa: E402
from keras.src.backend import KerasTensor  # noqa: E402
from keras.src.ops.operation import Operation  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "keras_api", "keras_3_15_api.json")
OPS_SUBMODULES = ["image", "linalg", "nn", "numpy"]


def saved_class_name(cls):
    """The class_name serialize_keras_object writes for a class keras exports."""
    return api_export.get_name_from_symbol(cls).split(".")[-1]


def list_layers():
    by_class = {}
    for name in dir(keras.layers):
        obj = getattr(keras.layers, name)
        if inspect.isclass(obj) and issubclass(obj, keras.layers.Layer):
            by_class.setdefault(obj, []).append(name)
    layers, left_out = [], {}
    for cls, names in by_class.items():
        if cls in (keras.layers.Layer, keras.layers.Wrapper):
            left_out[cls.__name__] = "a base class: subclassed, never saved as such"
            continue
        saved = saved_class_name(cls)
        layers.append({"class_name": saved, "python_class": cls.__name__, "module": cls.__module__,
                       "aliases": sorted(n for n in names if n != saved)})
    # The experiment behind saved_class_name, on the classes whose names differ.
    for make, expected in [(lambda: keras.layers.Convolution1D(2, 3), "Conv1D"),
                           (lambda: keras.layers.GlobalMaxPool1D(), "GlobalMaxPooling1D"),
                           (lambda: keras.layers.GroupQueryAttention(2, 2, 2), "GroupQueryAttention"),
                           (lambda: keras.layers.Dense(2), "Dense")]:
        got = keras.saving.serialize_keras_object(make())["class_name"]
        if got != expected:
            sys.exit("a saved config names %s %r, not %r" % (type(make()).__name__, got, expected))
    return sorted(layers, key=lambda e: e["class_name"]), left_out


def list_activations():
    functions = set(keras.src.activations.ALL_OBJECTS)
    out = []
    for name in dir(keras.activations):
        if name.startswith("_") or getattr(keras.activations, name) not in functions:
            continue
        saved = keras.layers.Dense(2, activation=name).get_config()["activation"]
        out.append({"name": name, "saved_as": saved})
    return sorted(out, key=lambda e: e["name"])


def public_op_functions():
    """{function: [its names relative to keras.ops]}, each function once."""
    found = {}
    for prefix, module in [("", ops)] + [(s + ".", getattr(ops, s)) for s in OPS_SUBMODULES]:
        for name in dir(module):
            obj = getattr(module, name)
            if name.startswith("_") or inspect.ismodule(obj) or inspect.isclass(obj) or not callable(obj):
                continue
            found.setdefault(obj, []).append(prefix + name)
    return {f: sorted(names) for f, names in found.items()}


def inp(*shape, dtype="float32"):
    """A symbolic input with a batch axis of unknown size."""
    return keras.Input(shape, dtype=dtype)


def fixed(*shape, dtype="float32"):
    """A symbolic input of exactly this shape (a kernel, indices, a 1-D sequence)."""
    return keras.Input(batch_shape=shape, dtype=dtype)


# Functions generic()'s argument lists do not fit, each called on inputs of the shapes it
# takes. Those taking Python functions or giving no node are here too, so that why they
# are left out is the experiment's answer.
def specific():
    x, img, vol, seq = inp(4, 4), inp(8, 8, 3), inp(8, 8, 8, 3), fixed(5)
    xi, ids = inp(4, 4, dtype="int32"), fixed(6, dtype="int32")
    square, vec = fixed(4, 4), fixed(4)
    kernel2d = fixed(3, 3, 3, 4)
    return {
        "adaptive_average_pool": lambda f: f(img, (2, 2)),
        "adaptive_max_pool": lambda f: f(img, (2, 2)),
        "arange": lambda f: f(0, 4),
        "associative_scan": lambda f: f(lambda a, b: a + b, x),
        "bartlett": lambda f: f(x),
        "batch_normalization": lambda f: f(x, vec, vec, axis=-1),
        "blackman": lambda f: f(x),
        "broadcast_to": lambda f: f(x, (2, 4, 4)),
        "cast": lambda f: f(x, "int32"),
        "clip": lambda f: f(x, 0.0, 1.0),
        "cond": lambda f: f(ops.sum(x) > 0, lambda: x * 2.0, lambda: x * 3.0),
        "conv": lambda f: f(img, kernel2d),
        "conv_transpose": lambda f: f(img, fixed(3, 3, 4, 3)),
        "convert_to_numpy": lambda f: f(x),
        "correlate": lambda f: f(seq, fixed(3)),
        "cross": lambda f: f(inp(3), inp(3)),
        "ctc_loss": lambda f: f(inp(4, dtype="int32"), inp(6, 5), inp(dtype="int32"), inp(dtype="int32")),
        "custom_gradient": lambda f: f(x),
        "depth_to_space": lambda f: f(inp(4, 4, 8), 2),
        "depthwise_conv": lambda f: f(img, fixed(3, 3, 3, 1)),
        "diag": lambda f: f(inp(4)),
        "digitize": lambda f: f(x, np.array([0.0, 0.5, 1.0], "float32")),
        "dtype": lambda f: f(x),
        "einsum": lambda f: f("bij,bjk->bik", x, x),
        "empty": lambda f: f((2, 3)),
        "extract_sequences": lambda f: f(inp(10), 4, 2),
        "eye": lambda f: f(3),
        "fold": lambda f: f(inp(12, 9), (4, 4), 2),
        "fori_loop": lambda f: f(0, 3, lambda i, v: v * 2.0, x),
        "full": lambda f: f((2, 3), 1.0),
        "hamming": lambda f: f(x),
        "hanning": lambda f: f(x),
        "identity": lambda f: f(3),
        "image.affine_transform": lambda f: f(img, inp(8)),
        "image.crop_images": lambda f: f(img, top_cropping=1, left_cropping=1, target_height=4,
                                            target_width=4),
        "image.extract_patches_3d": lambda f: f(vol, (2, 2, 2)),
        "image.map_coordinates": lambda f: f(fixed(8, 8), fixed(2, 5), 1),
        "image.pad_images": lambda f: f(img, top_padding=1, left_padding=1, target_height=10,
                                           target_width=10),
        "image.perspective_transform": lambda f: f(img, inp(4, 2), inp(4, 2)),
        "image.resize": lambda f: f(img, (4, 4)),
        "image.scale_and_translate": lambda f: f(img, (1, 4, 4, 3), vec, vec, (1, 2),
                                                    "bilinear"),
        "in_top_k": lambda f: f(inp(dtype="int32"), inp(5), 2),
        "is_tensor": lambda f: f(x),
        "istft": lambda f: f((inp(3, 5), inp(3, 5)), 8, 4, 8),
        "jvp": lambda f: f(lambda v: v * 2.0, (x,), (x,)),
        "kaiser": lambda f: f(x, 1.0),
        "lstsq": lambda f: f(square, square),
        "map": lambda f: f(lambda v: v * 2.0, x),
        "moveaxis": lambda f: f(x, 1, 2),
        "ones": lambda f: f((2, 3)),
        "psnr": lambda f: f(img, img, 1.0),
        "rearrange": lambda f: f(fixed(2, 4, 4), "b h w -> b w h"),  # a None axis fails in Keras
        "saturate_cast": lambda f: f(x, "int32"),
        "scan": lambda f: f(lambda c, v: (c + v, c), vec, square),
        "scatter": lambda f: f(fixed(2, 2, dtype="int32"), fixed(2),
                                  (4, 4)),
        "searchsorted": lambda f: f(seq, fixed(3)),
        "segment_max": lambda f: f(fixed(6, 3), ids, 3),
        "segment_min": lambda f: f(fixed(6, 3), ids, 3),
        "segment_prod": lambda f: f(fixed(6, 3), ids, 3),
        "segment_sum": lambda f: f(fixed(6, 3), ids, 3),
        "select": lambda f: f([x > 0.0, x < -1.0], [x, x * 2.0]),
        "separable_conv": lambda f: f(img, fixed(3, 3, 3, 1),
                                         fixed(1, 1, 3, 4)),
        "shape": lambda f: f(x),
        "slice": lambda f: f(square, (0, 1), (2, 2)),
        "space_to_depth": lambda f: f(img, 2),
        "sparse_categorical_crossentropy": lambda f: f(inp(dtype="int32"), inp(5)),
        "stft": lambda f: f(inp(16), 8, 4, 8),
        "swapaxes": lambda f: f(x, 1, 2),
        "switch": lambda f: f(0, [lambda v: v * 2.0, lambda v: v * 3.0], x),
        "take_along_axis": lambda f: f(x, xi, axis=-1),
        "threshold": lambda f: f(x, 0.5, 0.0),
        "tri": lambda f: f(3),
        "unfold": lambda f: f(inp(3, 8, 8), 2),
        "unravel_index": lambda f: f(fixed(3, dtype="int32"), (4, 4)),
        "vander": lambda f: f(vec),
        "vectorize": lambda f: f(x),
        "vectorized_map": lambda f: f(lambda v: v * 2.0, x),
        "while_loop": lambda f: f(lambda v: ops.sum(v) < 10.0, lambda v: (v * 2.0,), (x,)),
        "zeros": lambda f: f((2, 3)),
    }


def generic():
    """Argument lists tried in order on the functions specific() does not name."""
    x, y, z = inp(4, 4), inp(4, 4), inp(4, 4)
    xi, yi = inp(4, 4, dtype="int32"), inp(4, 4, dtype="int32")
    return [(x,), (x, y), (x, y, z), ([x, y],), (xi,), (xi, yi), (inp(8, 8, 3),), (x, 1), (x, 2)]


def graph_inputs(outputs):
    """Every keras.Input the outputs depend on."""
    found, stack = {}, list(outputs)
    while stack:
        t = stack.pop()
        op, node_index = t._keras_history.operation, t._keras_history.node_index
        if isinstance(op, keras.layers.InputLayer):
            found.setdefault(id(t), t)
        else:
            stack.extend(op._inbound_nodes[node_index].input_tensors)
    return sorted(found.values(), key=lambda t: t.name)


def entry_of(config, op):
    return next(e for e in config["layers"] if e["name"] == op.name)


def holds_python_code(obj):
    """Whether a saved config holds a Python function: a lambda's bytecode or a function by name."""
    if isinstance(obj, dict):
        if obj.get("class_name") in ("__lambda__", "function"):
            return True
        return any(holds_python_code(v) for v in obj.values())
    if isinstance(obj, list):
        return any(holds_python_code(v) for v in obj)
    return False


def preferred(names):
    """A function's name to report it by: keras.ops.ones before keras.ops.numpy.ones."""
    return min(names, key=lambda n: (n.count("."), n))


def try_call(thunk):
    """(entries, why not): the (class_name, module) of the saved entries the call made
    (its outputs' operations, not those of argument helpers such as `x > 0`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Keras warns when it saves a lambda: the answer says so
        return call_and_save(thunk)


def call_and_save(thunk):
    try:
        out = thunk()
    except Exception as e:  # noqa: BLE001 - any failure is the answer
        return None, "raises %s when called on symbolic tensors" % type(e).__name__
    flat = keras.tree.flatten(out)
    if not flat or not all(isinstance(t, KerasTensor) for t in flat):
        if flat and all(keras.ops.is_tensor(t) for t in flat):
            return None, "no node: computes a tensor at once (no symbolic argument)"
        return None, "no node: returns %s" % ", ".join(sorted({type(t).__name__ for t in flat or [out]}))
    made = {t._keras_history.operation for t in flat}
    if all(isinstance(op, keras.layers.InputLayer) for op in made):
        return None, "no node: returns its input"
    model = keras.Model(graph_inputs(flat), out)
    try:
        config = json.loads(json.dumps(model.get_config()))  # as a file holds it (tuples as lists)
    except Exception as e:  # noqa: BLE001
        return None, "cannot be saved: %s saving %s" % (type(e).__name__, ", ".join(sorted(type(op).__name__
                                                                                            for op in made)))
    saved = {(e["class_name"], e["module"]) for e in config["layers"]}
    code = sorted({type(op).__name__ for op in made if holds_python_code(entry_of(config, op))})
    if code:
        return None, "saved with Python code (its function arguments, as Lambda's): %s" % ", ".join(code)
    entries = sorted((type(op).__name__, type(op).__module__) for op in made)
    if not set(entries) <= saved:
        sys.exit("%s is not in the saved config" % entries)
    return entries, None


def list_operations():
    spec = specific()
    operations, left_out, unfit = {}, {}, []
    for fn, names in sorted(public_op_functions().items(), key=lambda kv: preferred(kv[1])):
        key = next((n for n in names if n in spec), None)
        if key is not None:
            entries, why = try_call(lambda: spec[key](fn))
        else:
            entries, why = None, None
            for args in generic():
                entries, why = try_call(lambda: fn(*args))
                if entries is not None:
                    break
            if entries is None:
                unfit.append(preferred(names))
                continue
        if entries is None:
            left_out[preferred(names)] = why
            continue
        for cls, module in entries:
            e = operations.setdefault(cls, {"class_name": cls, "module": module, "functions": []})
            if e["module"] != module:
                sys.exit("operation %s saved from both %s and %s" % (cls, e["module"], module))
            e["functions"] = sorted(set(e["functions"]) | set(names))
    if unfit:
        sys.exit("no argument list fits these keras.ops functions; add them to specific(): " + ", ".join(unfit))
    return [operations[c] for c in sorted(operations)], left_out


def operation_classes():
    """Every Operation subclass the keras.src.ops modules define: class name -> module."""
    out = {}
    for m in pkgutil.iter_modules(keras.src.ops.__path__):
        if m.name.endswith("_test"):
            continue
        module = importlib.import_module("keras.src.ops." + m.name)
        for obj in vars(module).values():
            if inspect.isclass(obj) and issubclass(obj, Operation) and obj.__module__ == module.__name__:
                out[obj.__name__] = obj.__module__
    return out


def main():
    if keras.backend.backend() != "tensorflow":
        sys.exit("run with KERAS_BACKEND=tensorflow (got %s)" % keras.backend.backend())
    if not keras.__version__.startswith("3.15."):
        sys.exit("this writes Keras 3.15's list (got Keras %s)" % keras.__version__)
    layers, layers_left_out = list_layers()
    activations = list_activations()
    operations, functions_left_out = list_operations()
    made = {e["class_name"] for e in operations}
    unmade = {c: m for c, m in operation_classes().items() if c not in made and c != "Operation"}
    result = {
        "keras_version": keras.__version__,
        "layers": layers,
        "activations": activations,
        "operations": operations,
        "left_out": {
            "layers": layers_left_out,
            "activations": sorted(n for n in dir(keras.activations)
                                  if not n.startswith("_") and n not in {a["name"] for a in activations}),
            "functions": functions_left_out,
            "operation_classes_not_listed": unmade,
        },
    }
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)  # the lists are sorted already
        f.write("\n")
    print("%s: Keras %s, %d layers, %d activations, %d operations (%d functions left out)"
          % (os.path.relpath(OUT, ROOT), keras.__version__, len(layers), len(activations), len(operations),
             len(functions_left_out)))


if __name__ == "__main__":
    main()
