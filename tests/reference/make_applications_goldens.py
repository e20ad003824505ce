"""Golden files for keras.applications (tests/io/applications_test.cc).

Every model of issue #13 point 5 -- MobileNet, MobileNetV2, MobileNetV3Small/Large,
ResNet50, ResNet50V2, DenseNet121, EfficientNetB0, EfficientNetV2B0, Xception,
InceptionV3, VGG16, NASNetMobile, ConvNeXtTiny -- built with weights=None (seeded random
initialisation), include_top=True, classes=10, float32, a batch of 2 small images, and
saved three ways: Keras 3 `.keras`, Keras 3 legacy `.h5`, and tf.keras (tf_keras) `.h5`.

Two sets:

  small (committed, tests/data/applications/):
      the same builders at reduced width and depth -- Keras's own internal builders with
      small arguments (EfficientNet(width_coefficient=0.1, ...), DenseNet(blocks=[1,1,1,1]),
      ConvNeXt(depths=[1,1,1,1], projection_dims=[8,...]), NASNet(penultimate_filters=96,
      num_blocks=1), ResNet with small stacks, MobileNets with alpha 0.1) and, for the
      architectures that have no width argument (Xception, InceptionV3, VGG16, DenseNet),
      the real builder with its `layers` module swapped for one whose Conv2D /
      SeparableConv2D / Dense divide their filters/units (the classifier keeps its 10).
      Every layer class, op layer and config shape of the full models appears here (the
      script checks it and fails otherwise).
  full (NOT committed; default build/applications_full, ~2 GB):
      the public constructors at their real width (the smallest public alpha for the
      MobileNets) on small inputs: 32x32, 71x71 for Xception, 75x75 for InceptionV3.

Weights: Keras's initialisers, then every non-kernel variable (biases, BatchNormalization
gamma/beta/moving statistics, LayerNormalization, Normalization mean/variance, ConvNeXt's
LayerScale gamma) is redrawn from a seeded generator, so that the test exercises them
(left at their initial values, BN is an identity and ConvNeXt's blocks are scaled by 1e-6).

Files per model NAME, in the chosen directory:
  NAME.input0.npy             the input (batch 2), for the three files
  NAME.keras, NAME.h5         Keras 3; NAME.output0.npy: Keras 3's prediction
  NAME.tf.h5                  tf_keras; NAME.tf.output0.npy: tf.keras's prediction
  inventory.json (small set only, in tests/data/applications/): per model, the Keras
      layer classes its config uses and its op layers (Keras 3 keras.ops calls saved as
      layers, tf.keras TFOpLambda/SlicingOpLambda with the TF function they call), for
      the full model and the committed small one.

Each saved file is reloaded by the Keras that wrote it and must predict the same.

Run (Python with keras 3, tensorflow and tf_keras):
  python3 -m venv /tmp/kvenv && /tmp/kvenv/bin/pip install keras tensorflow-cpu tf_keras h5py
  KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_applications_goldens.py
      # the committed small set + inventory
  KERAS_BACKEND=tensorflow /tmp/kvenv/bin/python tests/reference/make_applications_goldens.py \\
      --full build/applications_full [--only InceptionV3 ...]
  STRATA_APPLICATIONS_DIR=$PWD/build/applications_full build/tests/io_tests \\
      --gtest_filter='*Applications*'
"""
import argparse
import contextlib
import inspect
import json
import math
import os
import sys

os.environ["KERAS_BACKEND"] = "tensorflow"
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")  # plain float32 kernels in both Kerases
import numpy as np  # noqa: E402
import keras  # noqa: E402
import tf_keras  # noqa: E402
import keras.src.applications as k3apps  # noqa: E402
import tf_keras.src.applications as tfapps  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SMALL_DIR = os.path.join(ROOT, "tests", "data", "applications")
CLASSES = 10
BATCH = 2
SEED = 13


def _mods(fw):
    """The applications package of one framework, by module name."""
    import importlib
    base = "keras.src.applications." if fw == "k3" else "tf_keras.src.applications."
    return lambda name: importlib.import_module(base + name)


def call(fn, **kw):
    """Calls a builder whatever its Keras calls the model-name argument (name/model_name)."""
    params = inspect.signature(fn).parameters
    if "name" in kw and "name" not in params:
        n = kw.pop("name")
        if "model_name" in params:
            kw["model_name"] = n
    return fn(**kw)


class ScaledLayers:
    """A `layers` namespace whose Conv2D / SeparableConv2D / Dense have 1/div the width."""

    def __init__(self, real, div, names=None):
        self._real, self._div, self._names = real, div, names

    def _w(self, n, k):
        if self._names is not None and k.get("name") not in self._names:
            return n
        return max(2, int(math.ceil(n / self._div)))

    def __getattr__(self, name):
        return getattr(self._real, name)

    def Conv2D(self, filters, *a, **k):  # noqa: N802
        return self._real.Conv2D(self._w(filters, k), *a, **k)

    def SeparableConv2D(self, filters, *a, **k):  # noqa: N802
        return self._real.SeparableConv2D(self._w(filters, k), *a, **k)

    def Dense(self, units, *a, **k):  # noqa: N802
        if k.get("name") == "predictions":
            return self._real.Dense(units, *a, **k)
        return self._real.Dense(self._w(units, k), *a, **k)


@contextlib.contextmanager
def scaled(module, div, names=None):
    """Swaps module.layers for a ScaledLayers over it while building."""
    real = module.layers
    module.layers = ScaledLayers(real, div, names)
    try:
        yield module.layers
    finally:
        module.layers = real


def common(shape):
    return dict(include_top=True, weights=None, input_shape=shape, classes=CLASSES)


# --- the models ---------------------------------------------------------------------------
# Each entry: name -> (input size, input range, full builder(fw), small builder(fw)).
# A builder takes fw ("k3" or "tf") and returns a model of that framework.


def full_public(public_name, **extra):
    def build(fw, size):
        apps = keras.applications if fw == "k3" else tf_keras.applications
        return getattr(apps, public_name)(**common((size, size, 3)), **extra)
    return build


def small_mobilenet(fw, size):
    m = _mods(fw)("mobilenet")
    return m.MobileNet(alpha=0.1, **common((size, size, 3)))


def small_mobilenet_v2(fw, size):
    m = _mods(fw)("mobilenet_v2")
    if fw == "tf":  # tf_keras's MobileNetV2 takes its layers namespace as an argument
        return m.MobileNetV2(alpha=0.1, layers=ScaledLayers(
            tf_keras.src.layers.VersionAwareLayers(), 8, {"Conv_1"}), **common((size, size, 3)))
    with scaled(m, 8, {"Conv_1"}):  # the last 1x1 conv has 1280 filters whatever alpha <= 1
        return m.MobileNetV2(alpha=0.1, **common((size, size, 3)))


def small_mobilenet_v3(kind):
    def build(fw, size):
        m = _mods(fw)("mobilenet_v3")
        # alpha shrinks the blocks; the 1x1 head "conv_2" (1024/1280 whatever alpha <= 1)
        # shrinks through the scaled namespace.
        with scaled(m, 8, {"conv_2", "Conv_2"}):
            fn = m.MobileNetV3Small if kind == "small" else m.MobileNetV3Large
            return fn(alpha=0.1, **common((size, size, 3)))
    return build


def small_resnet(v2):
    def build(fw, size):
        r = _mods(fw)("resnet")
        s1 = getattr(r, "stack_residual_blocks_v1", None) or getattr(r, "stack1")
        s2 = getattr(r, "stack_residual_blocks_v2", None) or getattr(r, "stack2")

        def stack_v1(x):
            x = s1(x, 4, 2, stride1=1, name="conv2")
            x = s1(x, 8, 1, name="conv3")
            x = s1(x, 8, 1, name="conv4")
            return s1(x, 16, 1, name="conv5")

        def stack_v2(x):
            x = s2(x, 4, 2, name="conv2")
            x = s2(x, 8, 2, name="conv3")
            x = s2(x, 8, 2, name="conv4")
            return s2(x, 16, 2, stride1=1, name="conv5")

        return call(r.ResNet, stack_fn=stack_v2 if v2 else stack_v1, preact=v2, use_bias=v2,
                    name="resnet50v2" if v2 else "resnet50", **common((size, size, 3)))
    return build


def small_densenet(fw, size):
    d = _mods(fw)("densenet")
    with scaled(d, 4):
        return call(d.DenseNet, blocks=[1, 2, 1, 1], name="densenet121", **common((size, size, 3)))


def small_efficientnet(fw, size):
    e = _mods(fw)("efficientnet")
    return call(e.EfficientNet, width_coefficient=0.1, depth_coefficient=0.1, default_size=size,
                name="efficientnetb0", **common((size, size, 3)))


def small_efficientnet_v2(fw, size):
    e = _mods(fw)("efficientnet_v2")
    # depth 0.1 keeps one block per stage: FusedMBConv (expand 1 and 4) and MBConv with SE.
    return call(e.EfficientNetV2, width_coefficient=0.1, depth_coefficient=0.1, default_size=size,
                blocks_args=e.DEFAULT_BLOCKS_ARGS["efficientnetv2-b0"], name="efficientnetv2-b0",
                **common((size, size, 3)))


def small_scaled(module_name, public_name, div):
    def build(fw, size):
        m = _mods(fw)(module_name)
        with scaled(m, div):
            return getattr(m, public_name)(**common((size, size, 3)))
    return build


def small_nasnet(fw, size):
    n = _mods(fw)("nasnet")
    return call(n.NASNet, penultimate_filters=96, num_blocks=1, stem_block_filters=8,
                skip_reduction=False, filter_multiplier=2, default_size=size,
                name="nasnet_mobile", **common((size, size, 3)))


def small_convnext(fw, size):
    c = _mods(fw)("convnext")
    return call(c.ConvNeXt, depths=[1, 1, 2, 1], projection_dims=[8, 16, 16, 32],
                drop_path_rate=0.0, layer_scale_init_value=1e-6, default_size=size,
                name="convnext_tiny", **common((size, size, 3)))


MODELS = {
    # name: (size, input range, full, small)
    "MobileNet": (32, "pm1", full_public("MobileNet", alpha=0.25), small_mobilenet),
    "MobileNetV2": (32, "pm1", full_public("MobileNetV2", alpha=0.35), small_mobilenet_v2),
    "MobileNetV3Small": (32, "pixels", full_public("MobileNetV3Small", alpha=0.75),
                         small_mobilenet_v3("small")),
    "MobileNetV3Large": (32, "pixels", full_public("MobileNetV3Large", alpha=0.75),
                         small_mobilenet_v3("large")),
    "ResNet50": (32, "caffe", full_public("ResNet50"), small_resnet(False)),
    "ResNet50V2": (32, "pm1", full_public("ResNet50V2"), small_resnet(True)),
    "DenseNet121": (32, "torch", full_public("DenseNet121"), small_densenet),
    "EfficientNetB0": (32, "pixels", full_public("EfficientNetB0"), small_efficientnet),
    "EfficientNetV2B0": (32, "pixels", full_public("EfficientNetV2B0"), small_efficientnet_v2),
    "Xception": (71, "pm1", full_public("Xception"), small_scaled("xception", "Xception", 32)),
    "InceptionV3": (75, "pm1", full_public("InceptionV3"),
                    small_scaled("inception_v3", "InceptionV3", 32)),
    "VGG16": (32, "caffe", full_public("VGG16"), small_scaled("vgg16", "VGG16", 32)),
    "NASNetMobile": (32, "pm1", full_public("NASNetMobile"), small_nasnet),
    "ConvNeXtTiny": (32, "pixels", full_public("ConvNeXtTiny"), small_convnext),
}


# --- weights, inputs, inventory -----------------------------------------------------------

def redraw_non_kernels(model, rng):
    """Redraws every float variable that is not a kernel (see the module docstring)."""
    for v in model.weights:
        path = getattr(v, "path", v.name)
        leaf = v.name.split("/")[-1].split(":")[0]
        if leaf.startswith("variable") and "layer_scale" in path:  # Keras 3's unnamed LayerScale
            leaf = "gamma"
        if "int" in str(v.dtype) or "kernel" in leaf or leaf == "embeddings":
            continue
        shape = tuple(v.shape)
        if leaf in ("moving_variance", "variance"):
            new = rng.uniform(0.5, 1.5, shape)
        elif leaf == "gamma":
            new = rng.uniform(0.5, 1.5, shape)
        elif leaf in ("beta", "bias", "moving_mean", "mean"):
            new = rng.normal(0.0, 0.1, shape)
        else:
            raise ValueError(f"{model.name}: no rule for variable {v.name} {shape}")
        v.assign(new.astype("float32"))


def make_input(kind, size, rng):
    shape = (BATCH, size, size, 3)
    if kind == "pixels":  # models that rescale 0..255 themselves
        return rng.uniform(0.0, 255.0, shape).astype("float32")
    if kind == "caffe":  # BGR, mean-subtracted pixels
        return (rng.uniform(0.0, 255.0, shape) - 120.0).astype("float32")
    if kind == "torch":  # ImageNet-normalised
        return rng.normal(0.0, 1.0, shape).astype("float32")
    return rng.uniform(-1.0, 1.0, shape).astype("float32")  # pm1: scaled to [-1, 1]


def inventory(config_json):
    """Layer classes and op layers in a model config (a JSON string), nested models too."""
    layers, ops = set(), set()

    def walk_layer(cfg):
        cls, conf = cfg["class_name"], cfg.get("config", {})
        module = cfg.get("module") or ""
        if cls in ("TFOpLambda", "SlicingOpLambda"):
            ops.add(f"{cls}:{conf.get('function')}")
        elif module.startswith("keras.src.ops") or module.startswith("keras.ops"):
            ops.add(f"{module}.{cls}")
        else:
            layers.add(cls if module in ("", "keras.layers") else f"{module}.{cls}")
        for sub in conf.get("layers", []) if isinstance(conf, dict) else []:
            walk_layer(sub)  # nested models
        for key in ("layer", "backward_layer"):  # wrappers
            if isinstance(conf, dict) and isinstance(conf.get(key), dict):
                walk_layer(conf[key])

    for cfg in json.loads(config_json)["config"]["layers"] if "config" in json.loads(config_json) \
            else json.loads(config_json)["layers"]:
        walk_layer(cfg)
    return sorted(layers), sorted(ops)


def max_rel(a, b):
    return float(np.max(np.abs(a - b) / (np.abs(b) + 1e-6)))


def write_one(name, fw, model, x, out_dir, check_reload=True):
    base = os.path.join(out_dir, name + (".tf" if fw == "tf" else ""))
    y = np.asarray(model.predict(x, verbose=0, batch_size=BATCH), dtype="float32")
    np.save(os.path.join(out_dir, name + ".input0.npy"), x)  # one input for the three files
    np.save(base + ".output0.npy", y)
    files = []
    if fw == "k3":
        model.save(base + ".keras")
        model.save(base + ".h5")
        files = [base + ".keras", base + ".h5"]
        loader = keras.models.load_model
    else:
        model.save(base + ".h5", save_format="h5")
        files = [base + ".h5"]
        loader = tf_keras.models.load_model
    reload = {}
    for f in files:
        if not check_reload:
            continue
        try:
            again = loader(f, compile=False)
            y2 = np.asarray(again.predict(x, verbose=0, batch_size=BATCH))
            reload[os.path.basename(f)] = ("ok" if np.allclose(y2, y, rtol=1e-5, atol=1e-6)
                                           else f"predicts differently: {max_rel(y2, y):.3g}")
        except Exception as e:  # noqa: BLE001 -- Keras failing on its own file is a finding
            reload[os.path.basename(f)] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
    sizes = {os.path.basename(f): os.path.getsize(f) for f in files}
    print(f"  {name} [{fw}] params={model.count_params()} out={y.shape} "
          f"range=[{y.min():.3g}, {y.max():.3g}] files={sizes} reloaded by Keras: {reload}",
          flush=True)
    return reload


def build(fw, builder, size, seed):
    (keras.utils if fw == "k3" else tf_keras.utils).set_random_seed(seed)
    if fw == "tf":
        tf_keras.backend.clear_session()
    else:
        keras.backend.clear_session()
    model = builder(fw, size)
    redraw_non_kernels(model, np.random.default_rng(seed))
    return model


def config_json(fw, model):
    return json.dumps(model.get_config()) if fw == "k3" else model.to_json()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--small", action="store_true", help="the committed set (default when no --full)")
    ap.add_argument("--full", nargs="?", const=os.path.join(ROOT, "build", "applications_full"),
                    default=None, metavar="DIR", help="write the full set to DIR")
    ap.add_argument("--only", nargs="*", default=None, help="model names (default: all)")
    ap.add_argument("--no-reload-check", action="store_true")
    args = ap.parse_args()
    do_small = args.small or args.full is None
    names = args.only or list(MODELS)
    for n in names:
        if n not in MODELS:
            sys.exit(f"unknown model {n}; known: {', '.join(MODELS)}")

    inv = {}
    inv_path = os.path.join(SMALL_DIR, "inventory.json")
    if os.path.exists(inv_path):  # --only updates its models and keeps the others
        inv = json.load(open(inv_path))["models"]
    for i, name in enumerate(names):
        size, kind, full_b, small_b = MODELS[name]
        seed = SEED + i
        entry = {"input_shape": [BATCH, size, size, 3]}
        for fw in ("k3", "tf"):
            label = "keras3" if fw == "k3" else "tf_keras"
            full = build(fw, full_b, size, seed)
            entry[label] = dict(zip(("layers", "op_layers"), inventory(config_json(fw, full))))
            entry[label]["params"] = full.count_params()
            x = make_input(kind, size, np.random.default_rng(seed))
            if args.full:
                os.makedirs(args.full, exist_ok=True)
                write_one(name, fw, full, x, args.full, not args.no_reload_check)
            del full
            if do_small:
                small = build(fw, small_b, size, seed)
                s_layers, s_ops = inventory(config_json(fw, small))
                entry[label + "_small"] = {"layers": s_layers, "op_layers": s_ops,
                                           "params": small.count_params()}
                missing = sorted(set(entry[label]["layers"]) - set(s_layers)) + \
                    sorted(set(entry[label]["op_layers"]) - set(s_ops))
                if missing:
                    raise RuntimeError(f"{name} [{fw}] small set lacks {missing}")
                os.makedirs(SMALL_DIR, exist_ok=True)
                entry[label + "_small"]["keras_reload"] = write_one(
                    name, fw, small, x, SMALL_DIR, not args.no_reload_check)
                del small
        print(name, json.dumps({k: v for k, v in entry.items() if k in ("keras3", "tf_keras")}),
              flush=True)
        inv[name] = entry
        if do_small:  # after each model, so that a failure keeps what was done
            with open(inv_path, "w") as f:
                json.dump({"keras": keras.__version__, "tf_keras": tf_keras.__version__,
                           "models": {n: inv[n] for n in MODELS if n in inv}},
                          f, indent=1, sort_keys=True)
                f.write("\n")
    if do_small:
        print("wrote", inv_path)


if __name__ == "__main__":
    main()
