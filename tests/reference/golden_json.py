"""How the golden generators write arrays into JSON, in the format the C++ suites read
(tests/layers/golden_json.h): {"shape": [...], "values": [...]}, with "dtype" only when
the values are not float32. Imported by the make_*_goldens.py scripts beside it.
"""
import json

import numpy as np


def fnum(v):
    """The shortest decimal that reads back as the same float32 (ints and bools as they are)."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return float(str(np.float32(v)))


def arr(a):
    """An array as JSON: floats of any width as float32, bools and integers with their dtype."""
    a = np.asarray(a)
    if a.dtype == np.bool_:
        return {"shape": list(a.shape), "dtype": "bool", "values": [bool(v) for v in a.reshape(-1)]}
    if np.issubdtype(a.dtype, np.integer):
        return {"shape": list(a.shape), "dtype": str(a.dtype), "values": [int(v) for v in a.reshape(-1)]}
    return {"shape": list(a.shape), "values": [fnum(v) for v in a.astype("float32").reshape(-1)]}


def jsonable(obj):
    """A Keras config as Keras's json.dumps would write it (tuples -> lists)."""
    return json.loads(json.dumps(obj, default=lambda o: o.tolist() if hasattr(o, "tolist") else str(o)))
