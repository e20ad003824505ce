"""tf.keras TFOpLambda files for tests/io/op_layers_test.cc: Python operators on symbolic
tensors with the constant first (1.0 - x, 2.0 / x) are saved with a "_CONSTANT_VALUE"
first operand; tensor-with-tensor (x * y) with y among the keyword arguments.

  TF_CPP_MIN_LOG_LEVEL=3 /tmp/kvenv/bin/python tests/reference/make_tf_op_lambda_goldens.py
Writes tests/data/op_layers/tf_reverse_ops.tf.h5 with .input0.npy and .output0.npy.
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tf_keras as K  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT = os.path.join(ROOT, "tests", "data", "op_layers")

x = K.Input((4,))
a = 1.0 - x
b = 2.0 / (x * x + 1.0)
y = K.layers.Dense(3, name="head")(a * b)
m = K.Model(x, y)
K.utils.set_random_seed(5)
path = os.path.join(OUT, "tf_reverse_ops.tf.h5")
m.save(path)
data = np.random.default_rng(5).normal(0, 1, (3, 4)).astype("float32")
np.save(os.path.join(OUT, "tf_reverse_ops.tf.input0.npy"), data)
np.save(os.path.join(OUT, "tf_reverse_ops.tf.output0.npy"), m.predict(data, verbose=0))
print("wrote", path)
