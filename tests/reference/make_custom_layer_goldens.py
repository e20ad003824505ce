"""Users' own layers between Keras and Strata (tests/io/custom_layer_files_test.cc).

Keras's side of the custom-layer round trip, with the classes of Keras's guide "Making new
layers and models via subclassing" registered as Strata's test registers its C++ classes
(package "my_package"): Linear (build, add_weight, get_config), MLPBlock (two Linear
layers tracked as attributes linear_1 and linear_2), and MLP, a keras.Model subclass with
its own call (Dense layers tracked as hidden and out), saved under its own class.

1. Saves Keras's files into tests/data/custom_layers/: keras_linear.keras and .h5 (Input(3)
   -> Linear(4) -> Dense(2)), keras_mlp.keras and .h5 (Input(3) -> MLPBlock) and
   keras_model_mlp.keras (MLP(8) called on a (1, 3) batch), every weight set to the ramp
   Strata's test uses, with Keras's predictions on the ramp input; and
   keras_model_mlp_compiled.keras, the same MLP compiled (Adam, mean squared error) and
   fitted two epochs, with its optimizer's variables and what one more epoch predicts, and
   that model's save_weights file, keras_model_mlp_compiled.weights.h5.
2. Loads the files Strata wrote (strata_linear.keras/.h5, strata_mlp.keras/.h5,
   strata_model_mlp.keras, strata_model_mlp_compiled.keras and .weights.h5: the test
   writes them where STRATA_WRITE_CUSTOM_LAYER_FILES points) with Keras, checks that they
   predict what Keras's own models predict (1e-6), and the compiled one that its optimizer
   state is Keras's and one more epoch moves it as Keras's moves; records those predictions.

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


def ramp_targets():
    """The compiled MLP's regression targets: (5, 2), as the C++ test's."""
    return (0.2 * (np.arange(10) % 5) - 0.4).astype("float32").reshape(5, 2)


def trained_model_subclass():
    """MLP on the ramp weights, compiled with Adam(0.01) on mean squared error and fitted
    two epochs of one batch (no shuffling): Adam's moments and its step count are set."""
    model = with_ramp_weights(model_subclass())
    model.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="mse")
    model.fit(ramp((5, 3)), ramp_targets(), batch_size=5, epochs=2, shuffle=False, verbose=0)
    return model


def one_more_epoch(model, x):
    """What a compiled MLP predicts after one more epoch: it moves by the optimizer's state."""
    model.fit(x, ramp_targets(), batch_size=5, epochs=1, shuffle=False, verbose=0)
    return model.predict(x, verbose=0)


def main():
    os.makedirs(OUT, exist_ok=True)
    x = ramp((5, 3))
    models = {"linear": with_ramp_weights(linear_model()), "mlp": with_ramp_weights(mlp_model()),
              "model_mlp": with_ramp_weights(model_subclass())}
    golden = {"input": arr(x), "keras": {}, "strata_files_in_keras": {}}
    for name, model in models.items():
        golden["keras"][name] = arr(model.predict(x, verbose=0))
        for ext in ([".keras", ".h5"] if name in ("linear", "mlp") else [".keras"]):
            model.save(os.path.join(OUT, f"keras_{name}{ext}"))
    # A compiled subclass keeps its optimizer's state (Keras 3 writes optimizer/vars for it).
    trained = trained_model_subclass()
    trained.save(os.path.join(OUT, "keras_model_mlp_compiled.keras"))
    trained.save_weights(os.path.join(OUT, "keras_model_mlp_compiled.weights.h5"))
    golden["keras"]["model_mlp_compiled_variables"] = [arr(v.numpy()) for v in trained.optimizer.variables]
    golden["keras"]["model_mlp_compiled_one_more_epoch"] = arr(one_more_epoch(trained, x))
    compiled_path = os.path.join(OUT, "strata_model_mlp_compiled.keras")
    if os.path.exists(compiled_path):
        loaded = keras.saving.load_model(compiled_path)
        expected = trained_model_subclass()
        assert int(loaded.optimizer.iterations.numpy()) == 2, loaded.optimizer.iterations
        for mine, theirs in zip(loaded.optimizer.variables, expected.optimizer.variables, strict=True):
            np.testing.assert_allclose(mine.numpy(), theirs.numpy(), atol=1e-6, rtol=1e-5, err_msg=mine.path)
        y = one_more_epoch(loaded, x)
        np.testing.assert_allclose(y, one_more_epoch(expected, x), atol=1e-6, rtol=1e-5)
        golden["strata_files_in_keras"]["model_mlp_compiled.keras"] = arr(y)
        print(f"Keras loaded {compiled_path}: its optimizer state equals Keras's own, and so does the next epoch")
    else:
        print(f"{compiled_path} is missing: run the C++ test with STRATA_WRITE_CUSTOM_LAYER_FILES (see above)")
    weights_path = os.path.join(OUT, "strata_model_mlp_compiled.weights.h5")
    if os.path.exists(weights_path):
        # save_weights' file: a compiled MLP (its optimizer built, as Keras needs to read a
        # file's optimizer state into it) loads it and resumes as Keras's own.
        loaded = with_ramp_weights(model_subclass())
        loaded.compile(optimizer=keras.optimizers.Adam(learning_rate=0.01), loss="mse")
        loaded.optimizer.build(loaded.trainable_variables)
        loaded.load_weights(weights_path)
        expected = trained_model_subclass()
        assert int(loaded.optimizer.iterations.numpy()) == 2, loaded.optimizer.iterations
        for mine, theirs in zip(loaded.weights + loaded.optimizer.variables,
                                expected.weights + expected.optimizer.variables, strict=True):
            np.testing.assert_allclose(mine.numpy(), theirs.numpy(), atol=1e-6, rtol=1e-5, err_msg=mine.path)
        y = one_more_epoch(loaded, x)
        np.testing.assert_allclose(y, one_more_epoch(expected, x), atol=1e-6, rtol=1e-5)
        golden["strata_files_in_keras"]["model_mlp_compiled.weights.h5"] = arr(y)
        print(f"Keras loaded {weights_path} into a compiled MLP: weights and optimizer state equal Keras's own")
    else:
        print(f"{weights_path} is missing: run the C++ test with STRATA_WRITE_CUSTOM_LAYER_FILES (see above)")
    for name in ["linear.keras", "linear.h5", "mlp.keras", "mlp.h5", "model_mlp.keras"]:
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
