#!/usr/bin/env python3
"""Keras's own accuracy on the Fashion-MNIST MLP tutorial trained under the mixed-precision
policies, beside Strata's.

Not a golden-file generator: trains examples/fashion_mnist_mlp's model in real Keras with the
example's defaults under "float32", "mixed_bfloat16" and "mixed_float16" (Keras's mixed
precision guide: keras.config.set_dtype_policy before the model is built, the output layer
given dtype="float32"; under mixed_float16 compile wraps Adam in a LossScaleOptimizer), and
evaluates each on the 10000 test images. docs/precision.md quotes the accuracies beside
`build/examples/fashion_mnist_mlp --dtype_policy=P --seed=S`. Run with exactly:

    pip install keras tensorflow-cpu
    KERAS_BACKEND=tensorflow python3 tests/reference/fashion_mnist_mixed_precision_keras.py --seed=1

Versions used for the figures in the docs: keras 3.15.1, tensorflow-cpu 2.21.0. Reads
Debian's dataset-fashion-mnist files, as the example does: pixels scaled to [0, 1], the full
60000/10000 split, Adam 1e-3, sparse categorical crossentropy from logits, batch 32,
Flatten -> Dense(128, relu) -> Dense(10), 10 epochs.
"""
import argparse
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fashion_mnist_files import images, labels  # noqa: E402


def mlp(policy):
    keras.config.set_dtype_policy(policy)
    try:
        return keras.Sequential([
            keras.Input((28, 28, 1)),
            keras.layers.Flatten(),
            keras.layers.Dense(128, activation="relu"),
            keras.layers.Dense(10, dtype="float32"),
        ])
    finally:
        keras.config.set_dtype_policy("float32")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--policies", default="float32,mixed_bfloat16,mixed_float16")
    args = parser.parse_args()
    print("flags:", vars(args))
    x_train, y_train = images("train-images-idx3-ubyte.gz"), labels("train-labels-idx1-ubyte.gz")
    x_test, y_test = images("t10k-images-idx3-ubyte.gz"), labels("t10k-labels-idx1-ubyte.gz")
    for policy in args.policies.split(","):
        keras.utils.set_random_seed(args.seed)
        model = mlp(policy)
        model.compile(optimizer=keras.optimizers.Adam(1e-3),
                      loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])
        model.fit(x_train, y_train, batch_size=32, epochs=10, verbose=0)
        accuracy = model.evaluate(x_test, y_test, verbose=0)[1]
        print(f"mlp under {policy} ({type(model.optimizer).__name__}): test accuracy {accuracy:.4f}", flush=True)


if __name__ == "__main__":
    main()
