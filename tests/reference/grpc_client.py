"""TensorFlow Serving's own Python gRPC client (the `tensorflow-serving-api` package, used
unchanged: its PredictionServiceStub and ModelServiceStub, TensorFlow's make_tensor_proto
and make_ndarray) against strata-serve, checked against Keras's predictions.

For every model in tests/data/keras_golden (both .keras and .h5) it lays the file out as
TensorFlow Serving expects (DIR/1/model.keras), starts strata-serve with gRPC on a free
loopback port (REST off), and asks GetModelStatus, GetModelMetadata (the SignatureDefMap
in its Any) and Predict, sending the golden inputs as tf.make_tensor_proto writes NumPy
arrays (tensor_content) and as float_val fields. It compares the outputs with the ones
Keras made (.output<i>.npy) and, when Keras loads the file in this environment, with
Keras's predict on it now, 1e-5 absolute + 1e-4 relative. It then serves the
string/int64/float model of tests/data/preprocessing (string inputs as make_tensor_proto
writes them, in string_val) and checks TensorFlow Serving's error codes for an unknown
model, a wrong dtype and an unknown signature. Last, two models from a --model_config_file
written by TensorFlow Serving's own ModelServerConfig message (text_format), one with two
versions and labels: Predict and GetModelStatus by version_label, and an unknown label.
Then --monitoring_config_file: after a Predict and one for a model not served, the
Prometheus page on the REST port, read by Prometheus's own Python parser
(prometheus_client), counts both by status and times the answered one.

tensorflow-serving-api requires the `tensorflow` package; tensorflow-cpu provides the same
module under another name, and installing both puts two TensorFlows in one place. So use a
separate virtual environment, and install the client there without its dependencies:

  python3 -m venv /tmp/tfs_venv
  /tmp/tfs_venv/bin/pip install tensorflow-cpu==2.21.0 keras==3.15.1
  /tmp/tfs_venv/bin/pip install --no-deps tensorflow-serving-api==2.21.0
  /tmp/tfs_venv/bin/pip install prometheus_client
  cmake --build build --target strata_serve
  /tmp/tfs_venv/bin/python tests/reference/grpc_client.py [build/tools/strata-serve]

Exit status 0 only when every call succeeds (or fails with the expected code) and matches.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.request

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import grpc  # noqa: E402
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.core.framework import tensor_pb2, tensor_shape_pb2, types_pb2  # noqa: E402
from google.protobuf import text_format  # noqa: E402
from tensorflow_serving.apis import (get_model_metadata_pb2, get_model_status_pb2, model_service_pb2_grpc,  # noqa: E402
                                     predict_pb2, prediction_service_pb2_grpc)
from tensorflow_serving.config import model_server_config_pb2  # noqa: E402
from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "data", "keras_golden")
PREPROCESSING = os.path.join(ROOT, "tests", "data", "preprocessing")

# Input and output names in the order of the .input<i>/.output<i> files, where a model has
# several (as tests/reference/make_keras_goldens.py named them).
NAMES = {"multi_io_shared": (["a", "b"], ["reshape", "shared"])}


def numbered(base, kind):
    out = []
    while os.path.exists(f"{base}.{kind}{len(out)}.npy"):
        out.append(np.load(f"{base}.{kind}{len(out)}.npy"))
    return out


def close(got, want):
    got = np.asarray(got, dtype=np.float32)
    return got.shape == want.shape and bool(np.all(np.abs(got - want) <= 1e-5 + 1e-4 * np.abs(want)))


def keras_predictions(model_file, xs):
    """Keras's predictions for xs now, or None when Keras can't load the file here."""
    try:
        import keras
        model = keras.models.load_model(model_file, compile=False)
        ys = model.predict(xs if len(xs) > 1 else xs[0], verbose=0)
        return [np.asarray(y) for y in (ys if isinstance(ys, (list, tuple)) else [ys])]
    except Exception as e:  # a file this Keras can't read: the goldens still decide
        print(f"  (Keras did not load {os.path.basename(model_file)}: {type(e).__name__}; goldens only)")
        return None


def float_val_proto(x):
    """x as a TensorProto with float_val, as clients that fill the typed field send it."""
    proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=tensor_shape_pb2.TensorShapeProto(
        dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in x.shape]))
    proto.float_val.extend(x.flatten().tolist())
    return proto


def expect_code(failures, what, call, code):
    try:
        call()
        failures.append(f"{what}: succeeded, expected {code.name}")
    except grpc.RpcError as e:
        if e.code() != code:
            failures.append(f"{what}: {e.code().name} {e.details()}, expected {code.name}")
        return e.details()
    return ""


def check_model(target, model, golden, model_file):
    """Status, metadata and predictions for one served model; returns failures."""
    failures = []
    channel = grpc.insecure_channel(target)
    predict_stub = prediction_service_pb2_grpc.PredictionServiceStub(channel)
    model_stub = model_service_pb2_grpc.ModelServiceStub(channel)
    base = os.path.join(GOLDEN, golden)
    xs, ys = numbered(base, "input"), numbered(base, "output")

    status_request = get_model_status_pb2.GetModelStatusRequest()
    status_request.model_spec.name = model
    status = model_stub.GetModelStatus(status_request, timeout=30)
    states = [get_model_status_pb2.ModelVersionStatus.State.Name(v.state) for v in status.model_version_status]
    if states != ["AVAILABLE"]:
        failures.append(f"status: {status}")

    meta_request = get_model_metadata_pb2.GetModelMetadataRequest()
    meta_request.model_spec.name = model
    meta_request.metadata_field.append("signature_def")
    meta = predict_stub.GetModelMetadata(meta_request, timeout=30)
    signatures = get_model_metadata_pb2.SignatureDefMap()
    meta.metadata["signature_def"].Unpack(signatures)
    sig = signatures.signature_def["serving_default"]
    in_names, out_names = NAMES.get(golden, (list(sig.inputs), list(sig.outputs)))
    for name, x in zip(in_names, xs):
        dims = [d.size for d in sig.inputs[name].tensor_shape.dim]
        if dims[1:] != list(x.shape[1:]) or sig.inputs[name].dtype != types_pb2.DT_FLOAT:
            failures.append(f"metadata: input {name} is {sig.inputs[name]}, the data is {x.shape} {x.dtype}")

    live = keras_predictions(model_file, xs)
    for encoding, make in (("tensor_content", tf.make_tensor_proto), ("float_val", float_val_proto)):
        request = predict_pb2.PredictRequest()
        request.model_spec.name = model
        request.model_spec.signature_name = "serving_default"
        for name, x in zip(in_names, xs):
            request.inputs[name].CopyFrom(make(x))
        response = predict_stub.Predict(request, timeout=30)
        if response.model_spec.version.value != 1:
            failures.append(f"{encoding}: model_spec {response.model_spec}")
        for k, (name, y) in enumerate(zip(out_names, ys)):
            got = tf.make_ndarray(response.outputs[name])
            if not close(got, y):
                failures.append(f"{encoding}: output {k} ({name}) differs from Keras's golden")
            if live is not None and not close(got, live[k]):
                failures.append(f"{encoding}: output {k} ({name}) differs from Keras's predict now")
    return failures


def check_strings(target, model):
    """The string/int64/float preprocessing model: string inputs as make_tensor_proto writes them."""
    failures = []
    g = json.load(open(os.path.join(PREPROCESSING, "model_vocabulary.json")))
    stub = prediction_service_pb2_grpc.PredictionServiceStub(grpc.insecure_channel(target))
    request = predict_pb2.PredictRequest()
    request.model_spec.name = model
    for name, t in g["inputs"].items():
        dtype = {"string": object, "int64": np.int64, "float32": np.float32}[t["dtype"]]
        values = [v.encode() for v in t["values"]] if t["dtype"] == "string" else t["values"]
        request.inputs[name].CopyFrom(tf.make_tensor_proto(np.array(values, dtype=dtype).reshape(t["shape"])))
    response = stub.Predict(request, timeout=30)
    got = tf.make_ndarray(next(iter(response.outputs.values())))
    want = np.array(g["prediction"]["values"], np.float32).reshape(g["prediction"]["shape"])
    if not close(got, want):
        failures.append(f"strings: {got.tolist()} differs from Keras's {want.tolist()}")

    # TensorFlow Serving's error codes.
    bad = predict_pb2.PredictRequest()
    bad.CopyFrom(request)
    bad.model_spec.name = "no_such_model"
    expect_code(failures, "unknown model", lambda: stub.Predict(bad, timeout=30), grpc.StatusCode.NOT_FOUND)
    bad.CopyFrom(request)
    bad.inputs["amount"].CopyFrom(tf.make_tensor_proto(np.zeros((6, 1), np.float64)))
    details = expect_code(failures, "float64 for a float32 input", lambda: stub.Predict(bad, timeout=30),
                          grpc.StatusCode.INVALID_ARGUMENT)
    if "but double is provided" not in details:
        failures.append(f"float64 for a float32 input: message '{details}'")
    bad.CopyFrom(request)
    bad.model_spec.signature_name = "no_such_signature"
    expect_code(failures, "unknown signature", lambda: stub.Predict(bad, timeout=30),
                grpc.StatusCode.FAILED_PRECONDITION)
    return failures


def serve(exe, model_file, name):
    """Starts strata-serve, gRPC only, on DIR/1/<model file>; returns (process, target, dir)."""
    tmp = tempfile.mkdtemp(prefix="strata_grpc_client_")
    os.makedirs(os.path.join(tmp, "1"))
    shutil.copy(model_file, os.path.join(tmp, "1", "model" + os.path.splitext(model_file)[1]))
    proc = subprocess.Popen([exe, "--port=0", "--grpc_bind=127.0.0.1", "--rest_api_port=-1", f"--model_name={name}",
                             f"--model_base_path={tmp}"], stdout=subprocess.PIPE, text=True)
    for line in proc.stdout:
        m = re.search(r"gRPC API at (127\.0\.0\.1:\d+)", line)
        if m:
            return proc, m.group(1), tmp
    raise RuntimeError(f"strata-serve did not start on {model_file}")


def stop(proc, tmp):
    """Stops a strata-serve started here and removes its model directory."""
    proc.terminate()
    proc.wait(timeout=30)
    shutil.rmtree(tmp)


def check_config_file(exe):
    """Two models from a ModelServerConfig file, one with versions 1 and 2 and labels."""
    failures = []
    tmp = tempfile.mkdtemp(prefix="strata_grpc_config_")
    mlp, seq = os.path.join(tmp, "mlp"), os.path.join(tmp, "seq")
    for version, ext in ((1, ".keras"), (2, ".h5")):
        os.makedirs(os.path.join(mlp, str(version)))
        shutil.copy(os.path.join(GOLDEN, "functional_mlp" + ext), os.path.join(mlp, str(version), "model" + ext))
    os.makedirs(os.path.join(seq, "3"))
    shutil.copy(os.path.join(GOLDEN, "sequential_mlp.keras"), os.path.join(seq, "3", "model.keras"))
    config = model_server_config_pb2.ModelServerConfig()
    first = config.model_config_list.config.add(name="mlp", base_path=mlp, model_platform="tensorflow")
    first.model_version_policy.specific.versions.extend([1, 2])
    first.version_labels["stable"] = 1
    first.version_labels["canary"] = 2
    config.model_config_list.config.add(name="seq", base_path=seq, model_platform="tensorflow")
    config_file = os.path.join(tmp, "models.config")
    with open(config_file, "w") as f:
        f.write(text_format.MessageToString(config))
    proc = subprocess.Popen([exe, "--port=0", "--grpc_bind=127.0.0.1", "--rest_api_port=-1",
                             f"--model_config_file={config_file}"], stdout=subprocess.PIPE, text=True)
    try:
        target = None
        for line in proc.stdout:
            m = re.search(r"gRPC API at (127\.0\.0\.1:\d+)", line)
            if m:
                target = m.group(1)
                break
        channel = grpc.insecure_channel(target)
        predict_stub = prediction_service_pb2_grpc.PredictionServiceStub(channel)
        model_stub = model_service_pb2_grpc.ModelServiceStub(channel)
        for model, golden, label, version in (("mlp", "functional_mlp", "stable", 1),
                                              ("mlp", "functional_mlp", "canary", 2),
                                              ("seq", "sequential_mlp", None, 3)):
            base = os.path.join(GOLDEN, golden)
            (x,), (y,) = numbered(base, "input"), numbered(base, "output")
            request = predict_pb2.PredictRequest()
            request.model_spec.name = model
            if label:
                request.model_spec.version_label = label
            meta_request = get_model_metadata_pb2.GetModelMetadataRequest()
            meta_request.model_spec.CopyFrom(request.model_spec)
            meta_request.metadata_field.append("signature_def")
            signatures = get_model_metadata_pb2.SignatureDefMap()
            predict_stub.GetModelMetadata(meta_request, timeout=30).metadata["signature_def"].Unpack(signatures)
            sig = signatures.signature_def["serving_default"]
            request.inputs[list(sig.inputs)[0]].CopyFrom(tf.make_tensor_proto(x))
            response = predict_stub.Predict(request, timeout=30)
            if response.model_spec.version.value != version:
                failures.append(f"{model} {label}: answered by version {response.model_spec.version.value}")
            if not close(tf.make_ndarray(response.outputs[list(sig.outputs)[0]]), y):
                failures.append(f"{model} {label}: differs from Keras's golden")
            status_request = get_model_status_pb2.GetModelStatusRequest()
            status_request.model_spec.CopyFrom(request.model_spec)
            status = model_stub.GetModelStatus(status_request, timeout=30)
            if label and [v.version for v in status.model_version_status] != [version]:
                failures.append(f"{model} {label}: status {status}")
        unknown = predict_pb2.PredictRequest()
        unknown.model_spec.name = "mlp"
        unknown.model_spec.version_label = "beta"
        details = expect_code(failures, "unknown label", lambda: predict_stub.Predict(unknown, timeout=30),
                              grpc.StatusCode.INVALID_ARGUMENT)
        if details != "Unrecognized servable version label: beta":
            failures.append(f"unknown label: message '{details}'")
    except grpc.RpcError as e:
        failures.append(f"{e.code().name}: {e.details()}")
    finally:
        stop(proc, tmp)
    return failures


def check_metrics(exe):
    """A Predict answered and one for a model not served, then the Prometheus page."""
    failures = []
    tmp = tempfile.mkdtemp(prefix="strata_grpc_metrics_")
    os.makedirs(os.path.join(tmp, "1"))
    shutil.copy(os.path.join(GOLDEN, "functional_mlp.keras"), os.path.join(tmp, "1", "model.keras"))
    config_file = os.path.join(tmp, "monitoring.config")
    with open(config_file, "w") as f:  # tensorflow-serving-api ships no MonitoringConfig message
        f.write('prometheus_config {\n  enable: true\n  path: "/monitoring/prometheus/metrics"\n}\n')
    proc = subprocess.Popen([exe, "--port=0", "--grpc_bind=127.0.0.1", "--rest_api_port=0",
                             "--rest_api_bind=127.0.0.1", "--model_name=mlp", f"--model_base_path={tmp}",
                             f"--monitoring_config_file={config_file}"], stdout=subprocess.PIPE, text=True)
    try:
        page_url = target = None
        for line in proc.stdout:
            m = re.search(r"Prometheus metrics at (http://\S+)", line)
            page_url = m.group(1) if m else page_url
            m = re.search(r"gRPC API at (127\.0\.0\.1:\d+)", line)
            if m:
                target = m.group(1)
                break
        if target is None or page_url is None:
            raise RuntimeError("strata-serve did not print its gRPC address and metrics page")
        stub = prediction_service_pb2_grpc.PredictionServiceStub(grpc.insecure_channel(target))
        base = os.path.join(GOLDEN, "functional_mlp")
        (x,) = numbered(base, "input")
        request = predict_pb2.PredictRequest()
        request.model_spec.name = "mlp"
        meta_request = get_model_metadata_pb2.GetModelMetadataRequest()
        meta_request.model_spec.name = "mlp"
        meta_request.metadata_field.append("signature_def")
        signatures = get_model_metadata_pb2.SignatureDefMap()
        stub.GetModelMetadata(meta_request, timeout=30).metadata["signature_def"].Unpack(signatures)
        request.inputs[list(signatures.signature_def["serving_default"].inputs)[0]].CopyFrom(tf.make_tensor_proto(x))
        stub.Predict(request, timeout=30)
        request.model_spec.name = "absent"
        expect_code(failures, "absent model", lambda: stub.Predict(request, timeout=30), grpc.StatusCode.NOT_FOUND)
        with urllib.request.urlopen(page_url, timeout=30) as response:
            page = response.read().decode()
        samples = {(s.name, tuple(sorted(s.labels.items()))): s.value
                   for family in text_string_to_metric_families(page) for s in family.samples}
        # The parser names a counter's samples NAME_total, as OpenMetrics does.
        for name, labels, want in (
                (":tensorflow:serving:request_count_total", {"model_name": "mlp", "status": "OK"}, 1),
                (":tensorflow:serving:request_count_total", {"model_name": "absent", "status": "NOT_FOUND"}, 1),
                (":tensorflow:serving:request_latency_count",
                 {"model_name": "mlp", "API": "Predict", "entrypoint": "GRPC"}, 1),
                (":tensorflow:serving:request_latency_bucket",
                 {"model_name": "mlp", "API": "Predict", "entrypoint": "GRPC", "le": "+Inf"}, 1),
                (":tensorflow:cc:saved_model:load_attempt_count_total",
                 {"model_path": os.path.join(tmp, "1"), "status": "success"}, 1)):
            got = samples.get((name, tuple(sorted(labels.items()))))
            if got != want:
                failures.append(f"metrics: {name}{labels} is {got}, expected {want}")
    except (grpc.RpcError, OSError, ValueError, RuntimeError) as e:
        failures.append(f"metrics: {e}")
    finally:
        stop(proc, tmp)
    return failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("exe", nargs="?", default=os.path.join(ROOT, "build", "tools", "strata-serve"))
    args = parser.parse_args()

    total = 0
    cases = [(p, os.path.splitext(os.path.basename(p))[0])
             for p in sorted(glob.glob(os.path.join(GOLDEN, "*.keras")) + glob.glob(os.path.join(GOLDEN, "*.h5")))]
    cases.append((os.path.join(PREPROCESSING, "model_vocabulary.keras"), None))
    for path, golden in cases:
        proc, target, tmp = serve(args.exe, path, golden or "vocabulary")
        try:
            failures = check_model(target, golden, golden, path) if golden else check_strings(target, "vocabulary")
        except grpc.RpcError as e:
            failures = [f"{e.code().name}: {e.details()}"]
        finally:
            stop(proc, tmp)
        total += len(failures)
        what = "status, metadata, predict (tensor_content, float_val)" if golden else "strings, error codes"
        print(f"{os.path.basename(path):28s} {what}: {'ok' if not failures else 'FAILED'}")
        for f in failures:
            print("  " + f)
    failures = check_config_file(args.exe)
    total += len(failures)
    print(f"{'models.config':28s} two models, version labels: {'ok' if not failures else 'FAILED'}")
    for f in failures:
        print("  " + f)
    failures = check_metrics(args.exe)
    total += len(failures)
    print(f"{'monitoring.config':28s} Prometheus page: {'ok' if not failures else 'FAILED'}")
    for f in failures:
        print("  " + f)
    print("all match Keras" if total == 0 else f"{total} failures")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
