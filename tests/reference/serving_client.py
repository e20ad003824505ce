"""A TensorFlow Serving REST client against strata-serve, written from TensorFlow
Serving's REST API documentation (https://www.tensorflow.org/tfx/serving/api_rest) with
`requests` and NumPy only: no Strata code, no Keras.

For every model in tests/data/keras_golden (both .keras and .h5), it lays the file out
as TensorFlow Serving expects (DIR/1/model.keras), starts strata-serve on it on a free
loopback port, reads the model status and metadata, sends the golden inputs in the row
format ({"instances": ...}) and the columnar format ({"inputs": ...}), and compares the
predictions with the ones real Keras made (.output<i>.npy), 1e-5 absolute + 1e-4
relative. Multi-input models are sent named inputs, as the documentation describes.

  apt-get install python3-requests python3-numpy
  cmake --build build --target strata_serve
  /usr/bin/python3 tests/reference/serving_client.py [build/tools/strata-serve]

Or point it at a server you started yourself, for one model:
  /usr/bin/python3 tests/reference/serving_client.py --url=http://127.0.0.1:8501 --model=NAME --golden=functional_mlp
Exit status 0 only when every request succeeds and matches.
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import requests

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "data", "keras_golden")

# Input and output names as tests/reference/make_keras_goldens.py gave them, in the
# order of the model's inputs and outputs (the .input<i>/.output<i> files). Models with
# one input and one output take their names from the metadata.
NAMES = {"multi_io_shared": (["a", "b"], ["reshape", "shared"])}


def numbered(base, kind):
    out = []
    while os.path.exists(f"{base}.{kind}{len(out)}.npy"):
        out.append(np.load(f"{base}.{kind}{len(out)}.npy"))
    return out


def close(got, want):
    got = np.asarray(got, dtype=np.float32)
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= 1e-5 + 1e-4 * np.abs(want)))


def check_model(url, model, golden):
    """Status, metadata, row and columnar predictions for one served model; returns failures."""
    failures = []
    base = os.path.join(GOLDEN, golden)
    xs, ys = numbered(base, "input"), numbered(base, "output")

    status = requests.get(f"{url}/v1/models/{model}", timeout=30)
    states = [v["state"] for v in status.json().get("model_version_status", [])]
    if status.status_code != 200 or "AVAILABLE" not in states:
        failures.append(f"status: {status.status_code} {status.text}")

    meta = requests.get(f"{url}/v1/models/{model}/metadata", timeout=30).json()
    sig = meta["metadata"]["signature_def"]["signature_def"]["serving_default"]
    in_names, out_names = NAMES.get(golden, (list(sig["inputs"]), list(sig["outputs"])))
    for name, x in zip(in_names, xs):
        dims = [int(d["size"]) for d in sig["inputs"][name]["tensor_shape"]["dim"]]
        if dims[1:] != list(x.shape[1:]) or sig["inputs"][name]["dtype"] != "DT_FLOAT":
            failures.append(f"metadata: input {name} is {sig['inputs'][name]}, the data is {x.shape} {x.dtype}")

    # Row format: one entry per example; named when the model has several inputs.
    n = xs[0].shape[0]
    if len(xs) == 1:
        instances = xs[0].tolist()
    else:
        instances = [{name: x[i].tolist() for name, x in zip(in_names, xs)} for i in range(n)]
    r = requests.post(f"{url}/v1/models/{model}:predict", json={"instances": instances}, timeout=30)
    if r.status_code != 200:
        failures.append(f"row format: {r.status_code} {r.text[:300]}")
    else:
        preds = r.json()["predictions"]
        for k, (name, y) in enumerate(zip(out_names, ys)):
            got = preds if len(ys) == 1 else [p[name] for p in preds]
            if not close(got, y):
                failures.append(f"row format: output {k} ({name}) differs from Keras")

    # Columnar format: a tensor, or an object of named tensors.
    inputs = xs[0].tolist() if len(xs) == 1 else {name: x.tolist() for name, x in zip(in_names, xs)}
    r = requests.post(f"{url}/v1/models/{model}/versions/1:predict", json={"inputs": inputs}, timeout=30)
    if r.status_code != 200:
        failures.append(f"columnar format: {r.status_code} {r.text[:300]}")
    else:
        outs = r.json()["outputs"]
        for k, (name, y) in enumerate(zip(out_names, ys)):
            if not close(outs if len(ys) == 1 else outs[name], y):
                failures.append(f"columnar format: output {k} ({name}) differs from Keras")

    # An error, as the documentation describes them: {"error": ...} with a 4xx status.
    r = requests.post(f"{url}/v1/models/{model}:predict", data="{not json", timeout=30)
    if r.status_code != 400 or "error" not in r.json():
        failures.append(f"malformed JSON: {r.status_code} {r.text[:200]}")
    return failures


def serve(exe, model_file, name):
    """Starts strata-serve on DIR/1/<model file>; returns (process, url, dir)."""
    tmp = tempfile.mkdtemp(prefix="strata_serving_client_")
    os.makedirs(os.path.join(tmp, "1"))
    shutil.copy(model_file, os.path.join(tmp, "1", "model" + os.path.splitext(model_file)[1]))
    proc = subprocess.Popen([exe, "--port=-1", "--rest_api_port=0", "--rest_api_bind=127.0.0.1", f"--model_name={name}",
                             f"--model_base_path={tmp}"], stdout=subprocess.PIPE, text=True)
    for line in proc.stdout:
        m = re.search(r"at http://(127\.0\.0\.1:\d+)/", line)
        if m:
            return proc, f"http://{m.group(1)}", tmp
    raise RuntimeError(f"strata-serve did not start on {model_file}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("exe", nargs="?", default=os.path.join(ROOT, "build", "tools", "strata-serve"))
    parser.add_argument("--url", help="a running server (with --model and --golden)")
    parser.add_argument("--model")
    parser.add_argument("--golden")
    args = parser.parse_args()

    if args.url:
        failures = check_model(args.url, args.model, args.golden)
        print(f"{args.golden}: {'ok' if not failures else 'FAILED'}")
        for f in failures:
            print("  " + f)
        return 1 if failures else 0

    total = 0
    for path in sorted(glob.glob(os.path.join(GOLDEN, "*.keras")) + glob.glob(os.path.join(GOLDEN, "*.h5"))):
        golden = os.path.splitext(os.path.basename(path))[0]
        proc, url, tmp = serve(args.exe, path, golden)
        try:
            failures = check_model(url, golden, golden)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
            shutil.rmtree(tmp)
        total += len(failures)
        print(f"{os.path.basename(path):28s} status, metadata, row, columnar, error: {'ok' if not failures else 'FAILED'}")
        for f in failures:
            print("  " + f)
    print("all match Keras" if total == 0 else f"{total} failures")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
