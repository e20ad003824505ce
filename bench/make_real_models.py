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


def fold_captured_constants(onnx_path, model, keras, np):
    """Makes the ONNX graph's only input the model's own; returns how many were folded.

    A tensor that a layer computed in build() rather than holding in a variable is
    captured by the traced function, and tf2onnx (through model.export) leaves it
    declared as a graph input: EfficientNet's and ConvNeXt's Normalization, built from
    ImageNet's mean and variance, give inputs ".../normalization_1/Sub/y:0" (the mean)
    and ".../Sqrt/x:0" (the variance). With tf2onnx 1.17 no node reads them (the graph
    holds folded constants), but ONNX Runtime requires every graph input to be fed. They
    become initializers holding the layer's values, right even where a node does read
    them; any other extra input is an error.
    """
    import onnx
    from onnx import numpy_helper

    graph_model = onnx.load(onnx_path)
    extra = list(graph_model.graph.input)[len(model.inputs):]
    normalizations = [layer for layer in model.layers if isinstance(layer, keras.layers.Normalization)]
    for graph_input in extra:
        scope = graph_input.name.split(":")[0].split("/")
        # "<model>/<layer>/<op>/<operand>"; tracing may suffix a scope's name ("_1").
        candidates = [layer for layer in normalizations if len(scope) >= 3 and scope[-3] == layer.name] or [
            layer for layer in normalizations if len(scope) >= 3 and scope[-3].startswith(layer.name + "_")]
        operand = "/".join(scope[-2:])
        if len(candidates) != 1 or operand not in ("Sub/y", "Sqrt/x"):
            raise RuntimeError(f"{onnx_path}: graph input '{graph_input.name}' is not the model's input and not "
                               "a Normalization layer's mean or variance; it cannot be made a constant")
        layer = candidates[0]
        value = layer.mean if operand == "Sub/y" else layer.variance
        dims = [d.dim_value for d in graph_input.type.tensor_type.shape.dim]
        array = np.asarray(keras.ops.convert_to_numpy(value), dtype=np.float32).reshape(dims)
        graph_model.graph.initializer.append(numpy_helper.from_array(array, graph_input.name))
        graph_model.graph.input.remove(graph_input)
    if extra:
        onnx.save(graph_model, onnx_path)
    return len(extra)


def exportable_to_onnx(model, keras, np):
    """The model, or a copy that tf2onnx can convert, and what was changed.

    Two of ConvNeXt's layers do not convert. Keras on TensorFlow runs a grouped Conv2D
    (its depthwise convolutions are Conv2D(groups=channels)) through a function compiled
    by XLA, TensorFlow's CPU kernels having none, and tf2onnx leaves that function as a
    StatefulPartitionedCall node, which ONNX Runtime rejects; and the exact GELU is
    0.5 x erfc(-x / sqrt 2) in TensorFlow, and ONNX has no Erfc. The ONNX file is made
    from a copy in which each such layer is the same computation in convertible form: a
    DepthwiseConv2D (kernel (k, k, 1, C) becomes (k, k, C, 1)) and 0.5 x (1 + erf(x /
    sqrt 2)). The caller checks the copy's outputs against the model's.
    """
    def is_grouped(layer):
        return isinstance(layer, keras.layers.Conv2D) and layer.groups > 1

    def is_exact_gelu(layer):
        return isinstance(layer, keras.layers.Activation) and layer.get_config()["activation"] == "gelu"

    def convertible(layer):
        if is_exact_gelu(layer):
            return keras.layers.Lambda(lambda x: 0.5 * x * (1.0 + keras.ops.erf(x * 0.7071067811865476)),
                                       name=layer.name)
        if not is_grouped(layer):
            return layer.__class__.from_config(layer.get_config())
        config = layer.get_config()
        channels = layer.kernel.shape[-1]
        if layer.groups != channels or layer.kernel.shape[-2] != 1:
            raise RuntimeError(f"{layer.name}: a grouped Conv2D that is not depthwise cannot be exported to ONNX here")
        return keras.layers.DepthwiseConv2D(
            kernel_size=config["kernel_size"], strides=config["strides"], padding=config["padding"],
            depth_multiplier=1, data_format=config["data_format"], dilation_rate=config["dilation_rate"],
            activation=config["activation"], use_bias=config["use_bias"], name=layer.name)

    grouped = [layer for layer in model.layers if is_grouped(layer)]
    gelus = [layer for layer in model.layers if is_exact_gelu(layer)]
    if not grouped and not gelus:
        return model, ""
    copy = keras.models.clone_model(model, clone_function=convertible)
    for source, target in zip(model.layers, copy.layers):
        weights = source.get_weights()
        if is_grouped(source):
            kernel = weights[0]
            weights[0] = kernel.reshape(kernel.shape[:2] + (kernel.shape[3], 1))
        target.set_weights(weights)
    return copy, (f"{len(grouped)} grouped Conv2D as DepthwiseConv2D, "
                  f"{len(gelus)} exact GELU as 0.5 x (1 + erf(x / sqrt 2))")


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
    exported, changed = exportable_to_onnx(model, keras, np)
    if exported is not model:
        difference = np.abs(np.asarray(exported(x32, training=False)) - np.asarray(model(x32, training=False))).max()
        if not difference <= 1e-4 * np.abs(np.asarray(model(x32, training=False))).max():
            raise RuntimeError(f"{name}: the copy made for ONNX differs from the model by {difference}")
    exported.export(files["onnx"], format="onnx", verbose=False)
    folded = fold_captured_constants(files["onnx"], exported, keras, np)
    np.save(files["x1.npy"], x1)
    np.save(files["x32.npy"], x32)
    return {
        "input_shape": list(MODELS[name][0]),
        "input_range": list(MODELS[name][1]),
        "output_shape": list(model.output_shape[1:]),
        "parameters": int(model.count_params()),
        "batch_norm_layers_with_real_statistics": bn_layers,
        "onnx_inputs_made_constants": folded,
        "onnx_exported_from_a_copy": changed,
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
