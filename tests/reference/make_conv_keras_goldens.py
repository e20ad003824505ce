"""Golden files from real Keras 3 for the convolution family's config units
(tests/io/conv_configs_test.cc): a small CNN with BatchNormalization, SeparableConv2D,
DepthwiseConv2D and merge layers, saved by Keras in both formats, with an input and
Keras's prediction.

Writes tests/data/keras_golden/cnn_bn_merge.{keras,h5}, .input0.npy, .output0.npy.

Run:
  python3 -m venv /tmp/venv_files && /tmp/venv_files/bin/pip install keras jax jaxlib h5py
  KERAS_BACKEND=jax /tmp/venv_files/bin/python tests/reference/make_conv_keras_goldens.py
"""
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
import keras  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BASE = os.path.join(ROOT, "tests", "data", "keras_golden", "cnn_bn_merge")


def model():
    keras.utils.set_random_seed(11)
    L = keras.layers
    x = keras.Input((10, 10, 3), name="image")
    h = L.Conv2D(6, 3, padding="same", activation="relu", name="conv")(x)
    h = L.BatchNormalization(momentum=0.9, name="bn")(h)
    a = L.SeparableConv2D(6, 3, padding="same", depth_multiplier=2, name="sep")(h)
    b = L.DepthwiseConv2D(3, padding="same", name="dw")(h)
    h = L.Add(name="add")([a, b])
    h = L.BatchNormalization(center=False, name="bn2")(h)
    h = L.MaxPooling2D(3, strides=2, padding="same", name="pool")(h)
    h = L.ZeroPadding2D(((1, 0), (0, 1)), name="pad")(h)
    h = L.Conv2DTranspose(4, 3, strides=2, padding="same", name="deconv")(h)
    g1 = L.GlobalAveragePooling2D(name="gap")(h)
    g2 = L.GlobalMaxPooling2D(name="gmp")(h)
    y = L.Concatenate(name="concat")([g1, g2])
    y = L.Dense(3, activation="softmax", name="out")(y)
    return keras.Model(x, y, name="cnn_bn_merge")


def main():
    m = model()
    rng = np.random.default_rng(3)
    # Non-trivial BatchNormalization statistics, as after training.
    for layer in m.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            layer.set_weights([
                rng.uniform(0.5, 1.5, w.shape).astype("float32") if "variance" in w.path or "gamma" in w.path
                else rng.normal(0, 0.3, w.shape).astype("float32") for w in layer.weights])
    x = rng.standard_normal((4, 10, 10, 3)).astype("float32")
    y = m.predict(x, verbose=0)
    m.save(BASE + ".keras")
    m.save(BASE + ".h5")
    np.save(BASE + ".input0.npy", x)
    np.save(BASE + ".output0.npy", np.asarray(y, dtype="float32"))
    print("wrote", BASE, keras.__version__)


if __name__ == "__main__":
    main()
