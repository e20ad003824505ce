"""TensorFlow 2.21's stateless normal draws (tf.random.stateless_normal, the Philox algorithm
the CPU picks), which Keras's TensorFlow backend uses for image.elastic_transform's field:
core/tf_stateless_random.h reproduces them, tests/core/tf_stateless_random_test.cc compares.

Writes tests/data/tf_stateless_normal_golden.json: per case the int32 seed pair and the first
`count` draws of shape (count,) (draws are numbered in row-major order, so a prefix of any
shape's).

  python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install tensorflow-cpu==2.21.0
  /tmp/kvenv/bin/python tests/reference/make_tf_stateless_normal_goldens.py
"""
import json
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                   "tf_stateless_normal_golden.json")
SEEDS = [(7, 0), (0, 0), (-4, 0), (-2147483643, 0), (123, 456), (2147483647, -1)]


def main():
    cases = []
    for s in SEEDS:
        draws = tf.random.stateless_normal((1031,), seed=tf.constant(s, tf.int32)).numpy()
        cases.append({"seed": list(s), "draws": [float(v) for v in draws]})
    with open(OUT, "w") as f:
        json.dump({"tensorflow": tf.__version__, "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    print("wrote", OUT)


if __name__ == "__main__":
    main()
