"""Users' own layers between Keras and Strata (tests/io/custom_layer_files_test.cc).

Keras's side of the custom-layer round trip, with the classes of Keras's guide "Making new
layers and models via subclassing" registered as Strata's test registers its C++ classes
(package "my_package"): Linear (build, add_weight, get_config), MLPBlock (two Linear
layers tracked as attributes linear_1 and linear_2), and MLP, a keras.Model subclass with
its own call (Dense layers tracked as hidden and out), saved under its own class.

1. Saves Keras's files into tests/data/custom_layers/: keras_linear.keras and .h5 (Input(3)
   -> Linear(4) -> Dense(2)), keras_mlp.keras (Input(3) -> MLPBlock) and
   keras_model_mlp.keras (MLP(8) called on a (1, 3) batch), every weight set to the ramp
   Strata's test uses, with Keras's predictions on the ramp input.
2. Loads the files Strata wrote (strata_linear.keras/.h5, strata_mlp.keras,
   strata_model_mlp.keras: the test
   writes them where STRATA_WRITE_CUSTOM_LAYER_FILES points) with Keras, checks that they
   predict what Keras's own models predict (1e-6), and records those predictions.

  python3 tests/reference/make_custom_layer_goldens.py            # Keras's files
  STRATA_WRITE_CUSTOM_LAYER_FILES=tests/data/custom_layers \\
      build/tests/io_tests --gtest_filter='CustomLayerFiles.*'        # Strata's files
  python3 tests/reference/make_custom_layer_goldens.py            # both, checked
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops  # noqa: E402

from golden_json import arr  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "custom_layers")


@keras.saving.register_keras_serializable(package="my_package")
class Linear(keras.layers.Layer):
    def __init__(self, units=32, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer="random_normal", name="w")
        self.b = self.add_weight(shape=(self.units,), initializer="zeros", name="b")

    def call(self, inputs):
        return ops.matmul(inputs, self.w) + self.b

    def get_config(self):
        config = super().get_config()
        config.update({"units": self.units})
        return config


@keras.saving.register_keras_serializable(package="my_package")
class MLPBlock(keras.layers.Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.linear_1 = Linear(8)
        self.linear_2 = Linear(1)

    def call(self, inputs):
        return self.linear_2(keras.activations.relu(self.linear_1(inputs)))


@keras.saving.register_keras_serializable(package="my_package")
class MLP(keras.Model):
    """A Model subclass with its own call: Dense layers tracked as `hidden` and `out`."""

    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.hidden = keras.layers.Dense(units, activation="relu", name="dense")
        self.out = keras.layers.Dense(2, name="dense_1")

    def call(self, x):
        return self.out(self.hidden(x))

    def get_config(self):
        return {**super().get_config(), "units": self.units}


def ramp(shape):
    """0.1 * (i % 7) - 0.3 over the elements in order, as the C++ test's custom_layer_ramp."""
    n = int(np.prod(shape))
    return (0.1 * (np.arange(n) % 7) - 0.3).astype("float32").reshape(shape)


def linear_model():
    x = keras.Input((3,))
    return keras.Model(x, keras.layers.Dense(2, name="dense")(Linear(4, name="linear")(x)))


def mlp_model():
    x = keras.Input((3,))
    return keras.Model(x, MLPBlock(name="mlp_block")(x))


def model_subclass():
    model = MLP(8, name="mlp")
    model(np.zeros((1, 3), "float32"))  # builds its layers (build() alone leaves them unbuilt)
    return model


def with_ramp_weights(model):
    model.set_weights([ramp(w.shape) for w in model.weights])
    return model


def main():
    os.makedirs(OUT, exist_ok=True)
    x = ramp((5, 3))
    models = {"linear": with_ramp_weights(linear_model()), "mlp": with_ramp_weights(mlp_model()),
              "model_mlp": with_ramp_weights(model_subclass())}
    golden = {"input": arr(x), "keras": {}, "strata_files_in_keras": {}}
    for name, model in models.items():
        golden["keras"][name] = arr(model.predict(x, verbose=0))
        for ext in ([".keras", ".h5"] if name == "linear" else [".keras"]):
            model.save(os.path.join(OUT, f"keras_{name}{ext}"))
    for name in ["linear.keras", "linear.h5", "mlp.keras", "model_mlp.keras"]:
        path = os.path.join(OUT, "strata_" + name)
        if not os.path.exists(path):
            print(f"{path} is missing: run the C++ test with STRATA_WRITE_CUSTOM_LAYER_FILES (see above)")
            continue
        loaded = keras.saving.load_model(path)
        y = loaded.predict(x, verbose=0)
        expected = models[name.split(".")[0]].predict(x, verbose=0)
        np.testing.assert_allclose(y, expected, atol=1e-6, rtol=0)
        golden["strata_files_in_keras"][name] = arr(y)
        print(f"Keras loaded {path}: predictions equal Keras's own model's")
    with open(os.path.join(OUT, "custom_layers_golden.json"), "w") as f:
        json.dump(golden, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
