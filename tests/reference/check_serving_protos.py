"""Checks strata-serve's .proto files (serving/proto/) against the real ones: every message,
field, enum value and service method they declare must have the same full name, field
number, type, repeatedness and message/enum type as in the descriptors that TensorFlow and
`tensorflow-serving-api` ship, since those are the wire format. What they leave out (fields
and methods strata-serve never uses) is listed, not an error.

Needs protoc (protobuf-compiler) and the environment of tests/reference/grpc_client.py:
  /tmp/tfs_venv/bin/python tests/reference/check_serving_protos.py
Exit status 0 only when nothing differs.
"""
import os
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from google.protobuf import descriptor_pb2, descriptor_pool  # noqa: E402
# Importing them registers TensorFlow's and TensorFlow Serving's descriptors in the pool.
from tensorflow.core.protobuf import meta_graph_pb2  # noqa: E402,F401
from tensorflow_serving.apis import (get_model_metadata_pb2, get_model_status_pb2, model_service_pb2,  # noqa: E402,F401
                                     predict_pb2, prediction_service_pb2)
from tensorflow_serving.config import model_server_config_pb2  # noqa: E402,F401

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROTO_DIR = os.path.join(ROOT, "serving", "proto")
REPEATED = descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED


def ours():
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "set.pb")
        files = sorted(f for f in os.listdir(PROTO_DIR) if f.endswith(".proto"))
        subprocess.run(["protoc", "-I", PROTO_DIR, "-I", "/usr/include", f"--descriptor_set_out={out}"] + files,
                       check=True, cwd=PROTO_DIR)
        fds = descriptor_pb2.FileDescriptorSet()
        with open(out, "rb") as f:
            fds.ParseFromString(f.read())
        return fds


def check_enum(full, enum, pool, problems):
    real = pool.FindEnumTypeByName(full)
    for v in enum.value:
        rv = real.values_by_name.get(v.name)
        if rv is None or rv.number != v.number:
            problems.append(f"{full}.{v.name} = {v.number}, TensorFlow's is {rv.number if rv else 'missing'}")
    print(f"enum {full}: {len(enum.value)} of {len(real.values)} values")


def check_message(full, message, pool, problems):
    real = pool.FindMessageTypeByName(full)
    for f in message.field:
        rf = real.fields_by_name.get(f.name)
        if rf is None:
            problems.append(f"{full}.{f.name}: no such field in TensorFlow's")
            continue
        mine = (f.number, f.type, f.label == REPEATED, f.type_name.lstrip("."))
        theirs = (rf.number, rf.type, rf.is_repeated,
                  rf.message_type.full_name if rf.message_type else rf.enum_type.full_name if rf.enum_type else "")
        if mine != theirs:
            problems.append(f"{full}.{f.name}: (number, type, repeated, type name) {mine}, TensorFlow's {theirs}")
    for o in message.oneof_decl:
        if o.name not in real.oneofs_by_name:
            problems.append(f"{full}: oneof {o.name} is not TensorFlow's")
    left_out = sorted(set(real.fields_by_name) - {f.name for f in message.field})
    print(f"message {full}: {len(message.field)} of {len(real.fields)} fields"
          + (f" (left out: {', '.join(left_out)})" if left_out else ""))
    for nested in message.nested_type:
        check_message(f"{full}.{nested.name}", nested, pool, problems)
    for enum in message.enum_type:
        check_enum(f"{full}.{enum.name}", enum, pool, problems)


# Files of ours whose messages tensorflow-serving-api ships no descriptor of: listed, not
# checked (their fields were compared with TensorFlow Serving's source by hand).
UNSHIPPED = {"monitoring_config.proto"}


def main():
    pool = descriptor_pool.Default()
    problems = []
    for f in ours().file:
        if f.name in UNSHIPPED:
            print(f"{f.name}: not in tensorflow-serving-api's descriptors, not checked")
            continue
        for enum in f.enum_type:
            check_enum(f"{f.package}.{enum.name}", enum, pool, problems)
        for message in f.message_type:
            check_message(f"{f.package}.{message.name}", message, pool, problems)
        for service in f.service:
            real = pool.FindServiceByName(f"{f.package}.{service.name}")
            for m in service.method:
                rm = real.methods_by_name.get(m.name)
                if rm is None or (rm.input_type.full_name, rm.output_type.full_name) != (
                        m.input_type.lstrip("."), m.output_type.lstrip(".")):
                    problems.append(f"{f.package}.{service.name}.{m.name}: not TensorFlow Serving's")
            print(f"service {f.package}.{service.name}: {[m.name for m in service.method]} "
                  f"of {[m.name for m in real.methods]}")
    for p in problems:
        print("DIFFERS: " + p)
    print("the wire format matches TensorFlow's" if not problems else f"{len(problems)} differences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
