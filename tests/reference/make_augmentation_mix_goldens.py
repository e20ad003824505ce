"""Goldens for AugMix, RandAugment and ContrastLimitedAdaptiveHistogramEqualization, from
real Keras 3.15 (TensorFlow backend), as make_augmentation_more_goldens.py does for the
others. CLAHE is deterministic: its cases are the layer's output. AugMix and RandAugment
are random: their cases are transform_images given a transformation whose random parts
are fixed and whose chosen operations are the deterministic ones (AutoContrast,
Equalization), which checks the choosing, chaining and mixing arithmetic; the random
operations are each checked against Keras in their own goldens.

Writes tests/data/augmentation/:
  mix_transforms.json  per case: the layer's Keras config, an input image batch, the
                       parameters (Strata's form: operation indices, weights), Keras's output
  mix_model.keras      a Sequential model of the three layers, and mix_model.json: its
                       layers' configs, an input and Keras's inference output

  KERAS_BACKEND=tensorflow python3 tests/reference/make_augmentation_mix_goldens.py
"""
import json
import os

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
import keras  # noqa: E402
import numpy as np  # noqa: E402

from golden_json import arr, jsonable  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "augmentation")
L = keras.layers


def images(shape, seed, lo=0.0, hi=255.0):
    return (lo + np.random.default_rng(seed).random(shape) * (hi - lo)).astype("float32")


def config_of(layer):
    return {"class_name": type(layer).__name__, "config": jsonable(layer.get_config())}


def clahe_cases():
    cases = []
    # Whole tiles; padding on both axes; no clipping; a narrow histogram (clipping bites
    # hard); value_range [0, 1] channels first; one tile.
    for kwargs, shape, lo, hi in (
            ({}, (2, 16, 16, 3), 0.0, 255.0),
            ({"tile_grid_size": (3, 2), "clip_limit": 2.5}, (2, 10, 7, 2), 0.0, 255.0),
            ({"tile_grid_size": (2, 3), "clip_limit": 0.0}, (1, 9, 11, 1), 0.0, 255.0),
            ({"tile_grid_size": (2, 2), "clip_limit": 1.5}, (2, 8, 8, 1), 100.0, 120.0),
            ({"value_range": (0, 1), "tile_grid_size": (2, 2), "data_format": "channels_first"}, (2, 3, 6, 5),
             0.0, 1.0),
            ({"tile_grid_size": (1, 1), "clip_limit": 8.0}, (1, 5, 4, 3), -20.0, 300.0)):
        layer = L.ContrastLimitedAdaptiveHistogramEqualization(**kwargs)
        x = images(shape, 40 + len(cases), lo, hi)
        y = layer(x)
        cases.append({**config_of(layer), "images": arr(x), "params": {}, "output": arr(y)})
    return cases


def rand_augment_cases():
    cases = []
    for kwargs, shape, idxes, lo, hi in (
            ({"seed": 1}, (2, 5, 6, 3), [9, 10], 0.0, 255.0),
            ({"seed": 2, "num_ops": 3, "value_range": (0, 1), "data_format": "channels_first"}, (2, 3, 6, 5),
             [10, 9, 9], 0.0, 1.0)):
        layer = L.RandAugment(**kwargs)
        x = images(shape, 50 + len(cases), lo, hi)
        transformation = layer.get_random_transformation(x, training=True)
        transformation["layer_idxes"] = keras.ops.convert_to_tensor(np.array(idxes, "int32"))
        y = layer.transform_images(keras.ops.convert_to_tensor(x), transformation, training=True)
        cases.append({**config_of(layer), "images": arr(x),
                      "params": {"choices": arr(np.array([idxes], "float32"))}, "output": arr(y)})
    return cases


def aug_mix_cases():
    cases = []
    for kwargs, shape, chains, weights, w, lo, hi in (
            ({"seed": 1, "chain_depth": 2}, (2, 5, 6, 3), [["auto_contrast"], ["equalization", "auto_contrast"], []],
             [0.2, 0.5, 0.3], 0.35, 0.0, 255.0),
            ({"seed": 2, "num_chains": 2, "chain_depth": 3, "all_ops": False, "value_range": (-1, 1)}, (3, 4, 7, 3),
             [["equalization"], ["auto_contrast", "equalization", "auto_contrast"]], [0.7, 0.3], 0.8, -1.2, 1.1)):
        layer = L.AugMix(**kwargs)
        x = images(shape, 60 + len(cases), lo, hi)
        transformation = {
            "chain_mixing_weights": keras.ops.convert_to_tensor(np.array(weights, "float32")),
            "weight_sample": keras.ops.convert_to_tensor(np.float32(w)),
            "chain_transforms": [[{"layer_name": n, "transformation": None} for n in chain] for chain in chains],
        }
        y = layer.transform_images(keras.ops.convert_to_tensor(x), transformation, training=True)
        # Strata's choices: chain c's slot d at column c * chain_depth + d, an operation's
        # index in the layer's list, or the list's length for none.
        ops = layer._augment_layers
        depth = layer.chain_depth
        choices = np.full((1, layer.num_chains * depth), len(ops), "float32")
        for c, chain in enumerate(chains):
            for d, n in enumerate(chain):
                choices[0, c * depth + d] = ops.index(n)
        cases.append({**config_of(layer), "images": arr(x),
                      "params": {"choices": arr(choices), "chain_weights": arr(np.array([weights], "float32")),
                                 "weight": arr(np.array([[w]], "float32"))},
                      "output": arr(y)})
    return cases


def model_files():
    model = keras.Sequential([
        keras.Input((8, 8, 3)),
        L.AugMix(value_range=(0, 1), num_chains=2, chain_depth=2, factor=0.4, alpha=0.5, all_ops=False,
                 interpolation="nearest", seed=3),
        L.RandAugment(value_range=(0, 1), num_ops=3, factor=(0.1, 0.6), seed=4),
        L.ContrastLimitedAdaptiveHistogramEqualization(value_range=(0, 1), clip_limit=3.0, tile_grid_size=(2, 3)),
    ])
    x = images((2, 8, 8, 3), 70, 0.0, 1.0)
    model.save(os.path.join(OUT, "mix_model.keras"))
    with open(os.path.join(OUT, "mix_model.json"), "w") as f:
        json.dump({"layers": [config_of(l) for l in model.layers], "input": arr(x),
                   "predict": arr(model.predict(x, verbose=0))}, f)


def main():
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "mix_transforms.json"), "w") as f:
        json.dump(clahe_cases() + rand_augment_cases() + aug_mix_cases(), f)
    model_files()


if __name__ == "__main__":
    main()
