#!/usr/bin/env python3
"""Makes the models of the real-model benchmark (bench/models.cc, `bench/run models`).

    bench/make_real_models.py --out DIR [--models resnet50,lstm] [--force]

For each model NAME it writes, into DIR:
  NAME.keras      the Keras 3 file, which Strata and Keras load
  NAME.onnx       the same model through model.export(format="onnx"), batch dimension
                  dynamic, which ONNX Runtime loads
  NAME.x1.npy     a float32 input of batch 1, and
  NAME.x32.npy    one of batch 32, both seeded, in the range the model expects
and a manifest.json describing them all. A model whose four files exist is skipped
unless --force.

The image models are keras.applications' own builders at 224x224x3 with weights=None
(nothing is downloaded), seeded, with classifier_activation=None so that the outputs
compared are logits, not a softmax that hides differences. Random weights alone would
leave every BatchNormalization at mean 0 and variance 1, the identity up to scale, and a
network whose activations grow or vanish layer by layer: instead each model with
BatchNormalization is called once in training mode on a seeded batch of 32 with every
BN layer's momentum at 0, so that its moving mean and variance become that batch's real
statistics (what a trained model carries, roughly), then the momentum is restored.
"""
import argparse
import json
import os
import sys

SEED = 1234
IMAGE_SHAPE = (224, 224, 3)

# name -> (input shape without the batch, input range): EfficientNet and ConvNeXt rescale
# raw pixels themselves (their builders start with Rescaling/Normalization layers); the
# others take what their preprocessing would give, roughly [-1, 1].
MODELS = {
    "resnet50": (IMAGE_SHAPE, (-1.0, 1.0)),
    "mobilenetv2": (IMAGE_SHAPE, (-1.0, 1.0)),
    "efficientnetb0": (IMAGE_SHAPE, (0.0, 255.0)),
    "convnexttiny": (IMAGE_SHAPE, (0.0, 255.0)),
    "transformer": ((64, 256), (-1.0, 1.0)),
    "lstm": ((50, 64), (-1.0, 1.0)),
}


def build(name, keras):
    """The model NAME, its weights seeded."""
    keras.utils.set_random_seed(SEED)
    apps = keras.applications
    common = dict(weights=None, input_shape=IMAGE_SHAPE, classifier_activation=None)
    if name == "resnet50":
        return apps.ResNet50(**common)
    if name == "mobilenetv2":
        return apps.MobileNetV2(**common)
    if name == "efficientnetb0":
        return apps.EfficientNetB0(**common)
    if name == "convnexttiny":
        return apps.ConvNeXtTiny(**common)
    L = keras.layers
    if name == "transformer":
        # One Transformer encoder block (post-norm, as in "Attention Is All You Need"),
        # pooled and classified.
        x = keras.Input(shape=MODELS[name][0])
        attended = L.MultiHeadAttention(num_heads=8, key_dim=32)(x, x)
        h = L.LayerNormalization()(L.Add()([x, attended]))
        ff = L.Dense(256)(L.Dense(1024, activation="relu")(h))
        h = L.LayerNormalization()(L.Add()([h, ff]))
        out = L.Dense(10)(L.GlobalAveragePooling1D()(h))
        return keras.Model(x, out, name="transformer")
    if name == "lstm":
        x = keras.Input(shape=MODELS[name][0])
        return keras.Model(x, L.Dense(10)(L.LSTM(128)(x)), name="lstm")
    raise ValueError(f"unknown model '{name}'; known: {', '.join(MODELS)}")


def batch_norm_layers(model, keras):
    """Every BatchNormalization in the model, nested models included."""
    found = []
    for layer in model.layers:
        if isinstance(layer, keras.layers.BatchNormalization):
            found.append(layer)
        elif isinstance(layer, keras.Model):
            found.extend(batch_norm_layers(layer, keras))
    return found


def inputs(name, batch, np):
    """A seeded float32 input of `batch` samples for NAME (each batch its own seed)."""
    shape, (low, high) = MODELS[name]
    rng = np.random.default_rng([SEED, batch])
    return rng.uniform(low, high, (batch,) + shape).astype(np.float32)


def set_real_batch_statistics(model, name, keras, np):
    """Moving mean and variance of every BN layer from one training-mode batch; returns
    how many layers were set."""
    layers = batch_norm_layers(model, keras)
    if not layers:
        return 0
    momenta = [layer.momentum for layer in layers]
    for layer in layers:
        layer.momentum = 0.0
    rng = np.random.default_rng([SEED, 0])
    shape, (low, high) = MODELS[name]
    model(rng.uniform(low, high, (32,) + shape).astype(np.float32), training=True)
    for layer, momentum in zip(layers, momenta):
        layer.momentum = momentum
    return len(layers)


def paths(out, name):
    return {kind: os.path.join(out, f"{name}.{kind}") for kind in ("keras", "onnx", "x1.npy", "x32.npy")}


def make(name, out, keras, np):
    model = build(name, keras)
    bn_layers = set_real_batch_statistics(model, name, keras, np)
    x1, x32 = inputs(name, 1, np), inputs(name, 32, np)
    model(x1, training=False)  # export needs a model that has been called
    files = paths(out, name)
    model.save(files["keras"])
    # The exported signature keeps the Input's batch dimension, None: dynamic.
    model.export(files["onnx"], format="onnx", verbose=False)
    np.save(files["x1.npy"], x1)
    np.save(files["x32.npy"], x32)
    return {
        "input_shape": list(MODELS[name][0]),
        "input_range": list(MODELS[name][1]),
        "output_shape": list(model.output_shape[1:]),
        "parameters": int(model.count_params()),
        "batch_norm_layers_with_real_statistics": bn_layers,
        "files": {kind: os.path.basename(p) for kind, p in files.items()},
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="directory for the models, inputs and manifest.json")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated, of: " + ",".join(MODELS))
    parser.add_argument("--force", action="store_true", help="remake models whose files exist")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    os.environ.setdefault("KERAS_BACKEND", "tensorflow")
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    import numpy as np
    import keras

    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    manifest = {"models": {}}
    if os.path.exists(manifest_path):
        with open(manifest_path) as f:
            manifest = json.load(f)
    for name in names:
        if not args.force and all(os.path.exists(p) for p in paths(args.out, name).values()):
            print(f"{name}: exists, skipped (--force remakes it)")
            continue
        print(f"{name}: building...", flush=True)
        manifest["models"][name] = make(name, args.out, keras, np)
        manifest["keras"] = keras.__version__
        manifest["backend"] = keras.backend.backend()
        manifest["seed"] = SEED
        with open(manifest_path, "w") as f:  # after each model, so an interrupted run keeps what it made
            json.dump(manifest, f, indent=2, sort_keys=True)
        print(f"{name}: written ({manifest['models'][name]['parameters']} parameters)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
