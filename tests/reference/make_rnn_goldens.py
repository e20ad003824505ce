"""Golden values for Strata's recurrent layers, from real Keras 3 (JAX backend).

Regenerate (from the repository root):
    python3 -m venv /tmp/venv_rnn && /tmp/venv_rnn/bin/pip install keras jax jaxlib
    KERAS_BACKEND=jax /tmp/venv_rnn/bin/python tests/reference/make_rnn_goldens.py

Writes tests/data/rnn_golden.json: for every case, the layer config (read by
tests/layers/rnn_golden_test.cc, which builds the same model in Strata), the inputs,
the weights by Keras path, the outputs, a fixed random projection per output, and
jax.grad of sum(output * projection) with respect to the float inputs and every weight.
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import layers, ops  # noqa: E402

B, T, F = 2, 5, 3
rng = np.random.default_rng(1234)


def hard_sigmoid_keras2(x):
    return ops.clip(0.2 * x + 0.5, 0.0, 1.0)


def make_rnn(spec):
    kind = spec["type"]
    kw = {k: spec[k] for k in ("return_sequences", "return_state", "go_backwards") if k in spec}
    ra = spec.get("recurrent_activation")
    if ra == "hard_sigmoid_keras2":
        ra = hard_sigmoid_keras2
    units = spec["units"]
    if kind == "LSTM":
        return layers.LSTM(units, recurrent_activation=ra or "sigmoid", **kw)
    if kind == "GRU":
        return layers.GRU(units, recurrent_activation=ra or "sigmoid", reset_after=spec.get("reset_after", True), **kw)
    if kind == "SimpleRNN":
        return layers.SimpleRNN(units, activation=spec.get("activation", "tanh"), **kw)
    if kind == "StackedRNN":
        cells = [layers.LSTMCell(units), layers.GRUCell(units)]
        return layers.RNN(cells, **kw)
    raise ValueError(kind)


def build(spec):
    keras.backend.clear_session()
    inputs = []
    if spec.get("embedding"):
        x_in = keras.Input((T,), dtype="int32")
        inputs.append(x_in)
        x = layers.Embedding(7, F, mask_zero=True)(x_in)
    else:
        x_in = keras.Input((T, F))
        inputs.append(x_in)
        x = layers.Masking(0.0)(x_in) if spec.get("masking") else x_in
    if spec.get("bidirectional"):
        merge = spec.get("merge_mode", "concat")
        out = layers.Bidirectional(make_rnn(spec), merge_mode=None if merge == "none" else merge)(x)
    elif spec.get("initial_state"):
        states = [keras.Input((spec["units"],)) for _ in range(2 if spec["type"] == "LSTM" else 1)]
        inputs += states
        out = make_rnn(spec)(x, initial_state=states)
    else:
        out = make_rnn(spec)(x)
    outs = keras.tree.flatten(out)  # stacked cells return states nested per cell
    return keras.Model(inputs, outs), inputs


def make_case(name, spec):
    model, inputs = build(spec)
    xs = []
    for i, inp in enumerate(inputs):
        shape = (B,) + tuple(inp.shape[1:])
        if spec.get("embedding") and i == 0:
            v = rng.integers(1, 7, size=shape).astype(np.int32)
            v[0, 3:] = 0  # padding at the end of the first sequence
            v[1, 1] = 0   # and a masked step in the middle of the second
        else:
            v = rng.normal(size=shape).astype(np.float32)
            if i == 0 and (spec.get("masking")):
                v[0, 3:, :] = 0.0
                v[1, 1, :] = 0.0
        xs.append(v)
    for w in model.weights:
        w.assign(rng.uniform(-0.6, 0.6, size=w.shape).astype(np.float32))
    outs = model(xs if len(xs) > 1 else xs[0])
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    outs = [np.asarray(o) for o in outs]
    projs = [rng.normal(size=o.shape).astype(np.float32) for o in outs]
    tv = [w.value for w in model.trainable_variables]
    ntv = [w.value for w in model.non_trainable_variables]
    float_idx = [i for i, x in enumerate(xs) if x.dtype == np.float32]

    def loss(tv, fx):
        ins = list(xs)
        for i, v in zip(float_idx, fx):
            ins[i] = v
        o, _ = model.stateless_call(tv, ntv, ins if len(ins) > 1 else ins[0])
        o = list(o) if isinstance(o, (list, tuple)) else [o]
        return sum(jnp.sum(jnp.multiply(jnp.asarray(a), jnp.asarray(p))) for a, p in zip(o, projs))

    gw, gx = jax.grad(loss, argnums=(0, 1))(tv, [jnp.asarray(xs[i]) for i in float_idx])

    def arr(a):
        a = np.asarray(a)
        return {"shape": list(a.shape), "data": [round(float(v), 7) for v in a.reshape(-1)]}

    return {
        "name": name,
        "spec": spec,
        "inputs": [dict(arr(x), dtype=str(x.dtype)) for x in xs],
        "weights": [dict(arr(w.numpy()), path=w.path) for w in model.weights],
        "outputs": [arr(o) for o in outs],
        "projections": [arr(p) for p in projs],
        "grad_inputs": [arr(g) for g in gx],
        "grad_weights": [dict(arr(g), path=w.path) for g, w in zip(gw, model.trainable_variables)],
    }


def cases():
    out = []
    for kind in ("SimpleRNN", "LSTM", "GRU"):
        for rs in (False, True):
            for st in (False, True):
                for gb in (False, True):
                    out.append((f"{kind}_seq{int(rs)}_state{int(st)}_back{int(gb)}",
                                dict(type=kind, units=4, return_sequences=rs, return_state=st, go_backwards=gb)))
        for rs in (False, True):
            for gb in (False, True):
                out.append((f"{kind}_masked_seq{int(rs)}_back{int(gb)}",
                            dict(type=kind, units=4, return_sequences=rs, go_backwards=gb, masking=True)))
    for rs in (False, True):
        for gb in (False, True):
            out.append((f"GRU_reset_before_seq{int(rs)}_back{int(gb)}",
                        dict(type="GRU", units=4, reset_after=False, return_sequences=rs, go_backwards=gb)))
    out.append(("GRU_reset_before_masked", dict(type="GRU", units=4, reset_after=False, return_sequences=True,
                                                masking=True)))
    out.append(("LSTM_hard_sigmoid", dict(type="LSTM", units=4, recurrent_activation="hard_sigmoid",
                                          return_sequences=True)))
    out.append(("LSTM_hard_sigmoid_keras2", dict(type="LSTM", units=4, recurrent_activation="hard_sigmoid_keras2",
                                                 return_sequences=True)))
    out.append(("GRU_hard_sigmoid_keras2", dict(type="GRU", units=4, recurrent_activation="hard_sigmoid_keras2")))
    out.append(("SimpleRNN_relu", dict(type="SimpleRNN", units=4, activation="relu", return_sequences=True)))
    out.append(("LSTM_initial_state", dict(type="LSTM", units=4, initial_state=True, return_sequences=True)))
    out.append(("GRU_initial_state", dict(type="GRU", units=4, initial_state=True, return_state=True)))
    out.append(("StackedRNN", dict(type="StackedRNN", units=4, return_sequences=True, return_state=True)))
    out.append(("StackedRNN_back", dict(type="StackedRNN", units=4, go_backwards=True, masking=True)))
    for merge in ("concat", "sum", "mul", "ave", "none"):
        for rs in (False, True):
            out.append((f"Bidirectional_LSTM_{merge}_seq{int(rs)}",
                        dict(type="LSTM", units=3, bidirectional=True, merge_mode=merge, return_sequences=rs)))
    out.append(("Bidirectional_GRU_masked_seq1", dict(type="GRU", units=3, bidirectional=True, return_sequences=True,
                                                      masking=True)))
    out.append(("Bidirectional_LSTM_masked_seq0", dict(type="LSTM", units=3, bidirectional=True, masking=True)))
    out.append(("Bidirectional_LSTM_state", dict(type="LSTM", units=3, bidirectional=True, return_state=True)))
    out.append(("Embedding_mask_zero_LSTM", dict(type="LSTM", units=4, embedding=True, return_sequences=True)))
    out.append(("Embedding_mask_zero_Bidirectional_GRU",
                dict(type="GRU", units=3, embedding=True, bidirectional=True)))
    return out


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    data = {"keras_version": keras.__version__, "cases": [make_case(n, s) for n, s in cases()]}
    path = os.path.join(root, "data", "rnn_golden.json")
    with open(path, "w") as f:
        json.dump(data, f, separators=(",", ":"))
    print(f"wrote {len(data['cases'])} cases to {path} ({os.path.getsize(path)} bytes)")


if __name__ == "__main__":
    main()
