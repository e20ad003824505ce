"""Goldens for the batch-mixing and projective image augmentation layers (MixUp, CutMix,
RandomPerspective, ...), from real Keras 3.15 (TensorFlow backend), as
make_augmentation_goldens.py does for the others: each layer's transform_images given
fixed transformation parameters (what its random draws would be).

Writes tests/data/augmentation/:
  more_transforms.json  per case: the layer's Keras config, an input image batch, the
                        parameters, and Keras's output
  more_model.keras      a Sequential model of these layers, and more_model.json: its
                        layers' configs, an input and Keras's inference output (the identity)
  pipeline_model.keras  a model holding a Pipeline (with a Dense among its layers), and
                        pipeline_model.json: the Pipeline's config, an input, Keras's output

  KERAS_BACKEND=tensorflow python3 tests/reference/make_augmentation_more_goldens.py
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402

from golden_json import arr, jsonable  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "augmentation")
L = keras.layers


def images(shape, seed, scale=10.0):
    return (np.random.default_rng(seed).random(shape) * scale).astype("float32")


def layer_case(layer, x, params, transformation):
    y = layer.transform_images(keras.ops.convert_to_tensor(x), transformation, training=True)
    return {"class_name": type(layer).__name__, "config": jsonable(layer.get_config()), "images": arr(x),
            "params": {k: arr(v) for k, v in params.items()}, "output": arr(y)}


def mix_up_cases():
    cases = []
    weights = np.array([0.9, 0.25, 0.6, 0.05], "float32")
    order = np.array([2, 0, 3, 1], "int64")
    for alpha, data_format in ((0.2, "channels_last"), (0.7, "channels_first")):
        layer = L.MixUp(alpha=alpha, data_format=data_format)
        shape = (4, 3, 5, 2) if data_format == "channels_last" else (4, 2, 3, 5)
        cases.append(layer_case(layer, images(shape, 21), {"mix_weight": weights.reshape(4, 1), "order": order},
                                {"mix_weight": weights, "permutation_order": order}))
    return cases


def cut_mix_cases():
    cases = []
    order = np.array([1, 2, 0], "int64")
    for data_format in ("channels_last", "channels_first"):
        layer = L.CutMix(factor=(0.2, 0.6), data_format=data_format)
        shape = (3, 5, 6, 2) if data_format == "channels_last" else (3, 2, 5, 6)
        # [x0, x1, y0, y1] per image: fractional edges, an empty box, the whole image.
        boxes = np.array([[1.3, 4.2, 0.5, 3.0], [2.0, 2.0, 1.0, 4.0], [0.0, 6.0, 0.0, 5.0]], "float32")
        masks, _ = layer._generate_batch_mask(shape, tuple(keras.ops.convert_to_tensor(boxes[:, k]) for k in range(4)))
        cases.append(layer_case(layer, images(shape, 22), {"boxes": boxes, "order": order},
                                {"permutation_order": order, "batch_masks": masks, "mix_weight": None}))
    return cases


def perspective_cases():
    cases = []
    factors = np.array([[[0.0, 0.0], [-0.3, 0.2], [0.25, -0.4], [-0.1, -0.2]],
                        [[0.1, -0.2], [0.45, 0.1], [-0.2, 0.3], [0.3, 0.35]],
                        [[0.2, 0.2], [0.2, 0.2], [0.2, 0.2], [0.2, 0.2]]], "float32")
    apply = np.array([True, True, False])
    for interpolation, data_format, fill_value in (("bilinear", "channels_last", 0.0), ("nearest", "channels_last", 2.5),
                                                   ("bilinear", "channels_first", -1.0)):
        layer = L.RandomPerspective(factor=(0.3, 0.8), scale=0.9, interpolation=interpolation, fill_value=fill_value,
                                    data_format=data_format)
        shape = (3, 6, 7, 2) if data_format == "channels_last" else (3, 2, 6, 7)
        h, w = (shape[1], shape[2]) if data_format == "channels_last" else (shape[2], shape[3])
        start = np.repeat(np.array([[[0.0, 0.0], [w - 1, 0.0], [0.0, h - 1], [w - 1, h - 1]]], "float32"), 3, axis=0)
        end = start + start * factors
        cases.append(layer_case(layer, images(shape, 23), {"factors": factors.reshape(3, 8),
                                                            "apply": apply.reshape(3, 1)},
                                {"apply_perspective": apply, "start_points": start, "end_points": end,
                                 "input_shape": shape}))
    return cases


def elastic_cases():
    import tensorflow as tf
    from keras.src.random.seed_generator import draw_seed

    cases = []
    apply = np.array([True, False])
    # Distortions whose sigma (0.05 d min(H, W)) has int 1 (a blur kernel of 7 taps) and 0
    # (no blur); every fill mode, both interpolations and data formats.
    for fill_mode, interpolation, data_format, distortion, size in (
            ("reflect", "bilinear", "channels_last", 0.95, (22, 21)),
            ("constant", "bilinear", "channels_first", 0.97, (21, 22)),
            ("wrap", "nearest", "channels_last", 0.9, (9, 10)),
            ("nearest", "bilinear", "channels_last", 0.8, (10, 8))):
        layer = L.RandomElasticTransform(factor=(0.2, 0.9), scale=(0.1, 0.99), interpolation=interpolation,
                                         fill_mode=fill_mode, fill_value=-3.0, value_range=(1, 9),
                                         data_format=data_format)
        h, w = size
        shape = (2, h, w, 1) if data_format == "channels_last" else (2, 1, h, w)
        seed = 1234
        noise = tf.random.stateless_normal(shape=(2, h, w), mean=0.0, stddev=1.0, dtype="float32",
                                           seed=draw_seed(seed))
        d = np.float32(distortion)
        cases.append(layer_case(layer, images(shape, 24), {"noise": noise.numpy(), "distortion": np.array([[d]]),
                                                            "apply": apply.reshape(2, 1)},
                                {"apply_transform": apply, "distortion_factor": d, "seed": seed}))
    return cases


def model_layers():
    return [L.MixUp(alpha=0.4, seed=3), L.CutMix(factor=0.7, seed=4),
            L.RandomPerspective(factor=0.6, scale=0.5, interpolation="nearest", fill_value=1.0, seed=5),
            L.RandomElasticTransform(factor=0.5, scale=(0.2, 0.4), fill_mode="wrap", value_range=(0, 1), seed=6),
            L.MaxNumBoundingBoxes(7)]


def model_files():
    model = keras.Sequential([keras.Input((6, 7, 3))] + model_layers())
    x = images((2, 6, 7, 3), 30, 1.0)
    model.save(os.path.join(OUT, "more_model.keras"))
    configs = [{"class_name": type(l).__name__, "config": jsonable(l.get_config())} for l in model.layers]
    with open(os.path.join(OUT, "more_model.json"), "w") as f:
        json.dump({"layers": configs, "input": arr(x), "predict": arr(model.predict(x, verbose=0))}, f)


def pipeline_files():
    """A Pipeline holding a layer with weights (Dense), two of one class (Rescaling), and
    augmentation: its config, Keras's variable paths, and Keras's inference output."""
    model = keras.Sequential([
        keras.Input((4, 5, 2)),
        L.Pipeline([L.RandomFlip(seed=1), L.Rescaling(0.5), L.Dense(3), L.Rescaling(2.0, offset=0.25),
                    L.RandomRotation(0.2, seed=2)], name="augment"),
        L.Dense(2),
    ])
    x = images((2, 4, 5, 2), 31, 1.0)
    model.save(os.path.join(OUT, "pipeline_model.keras"))
    with open(os.path.join(OUT, "pipeline_model.json"), "w") as f:
        json.dump({"pipeline": jsonable(model.layers[0].get_config()), "input": arr(x),
                   "predict": arr(model.predict(x, verbose=0))}, f)


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = mix_up_cases() + cut_mix_cases() + perspective_cases() + elastic_cases()
    with open(os.path.join(OUT, "more_transforms.json"), "w") as f:
        json.dump(cases, f)
    model_files()
    pipeline_files()


if __name__ == "__main__":
    main()
