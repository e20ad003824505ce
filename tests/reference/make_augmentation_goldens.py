"""Goldens for the image augmentation layers' deterministic parts, from real Keras 3.15
(TensorFlow backend): each layer's transform_images given fixed transformation parameters
(what its random draws would be), and keras.ops.image.affine_transform itself.

Writes tests/data/augmentation/:
  transforms.json   per case: the layer's Keras config (or the op's arguments), an input
                    image batch, the parameters, and Keras's output
  model.keras       a Sequential model of the seven layers Keras's "image classification
                    from scratch" recipe uses, and model.json: its layers' configs and
                    Keras's inference output (the identity; RandomCrop's below)
  colors.keras      a Sequential model of the colour augmentation layers, and colors.json

  KERAS_BACKEND=tensorflow python3 tests/reference/make_augmentation_goldens.py
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


def affine_cases():
    x = images((2, 5, 6, 2), 1)
    # Output (x, y) -> input point: a rotation about the centre with a shift, a zoom out
    # that reads far outside the image, and one with a projective row (k != 1).
    transforms = np.array([[0.8, -0.6, 1.9, 0.6, 0.8, -1.2, 0.0, 0.0],
                           [1.9, 0.3, -4.1, -0.2, 2.3, -3.3, 0.0, 0.0]], "float32")
    projective = np.array([[1.1, 0.2, -0.7, -0.1, 0.9, 0.4, 0.05, -0.03]], "float32")
    cases = []
    for fill_mode in ("reflect", "wrap", "constant", "nearest"):
        for interpolation in ("bilinear", "nearest"):
            for t in (transforms, projective):
                y = keras.ops.image.affine_transform(x, t, interpolation=interpolation, fill_mode=fill_mode,
                                                     fill_value=0.5)
                cases.append({"kind": "affine_transform", "interpolation": interpolation, "fill_mode": fill_mode,
                              "fill_value": 0.5, "images": arr(x), "transforms": arr(t), "output": arr(y)})
    return cases


def layer_case(layer, x, params, transformation):
    y = layer.transform_images(keras.ops.convert_to_tensor(x), transformation, training=True)
    return {"class_name": type(layer).__name__, "config": jsonable(layer.get_config()), "images": arr(x),
            "params": {k: arr(v) for k, v in params.items()}, "output": arr(y)}


def rotation_cases():
    cases = []
    angles = np.array([17.0, -123.0], "float32")
    for fill_mode, interpolation, data_format in (("reflect", "bilinear", "channels_last"),
                                                  ("wrap", "nearest", "channels_last"),
                                                  ("constant", "bilinear", "channels_first"),
                                                  ("nearest", "bilinear", "channels_last")):
        layer = L.RandomRotation(0.4, fill_mode=fill_mode, interpolation=interpolation, fill_value=2.5,
                                 data_format=data_format)
        shape = (2, 5, 7, 3) if data_format == "channels_last" else (2, 3, 5, 7)
        x = images(shape, 2)
        h, w = (shape[1], shape[2]) if data_format == "channels_last" else (shape[2], shape[3])
        matrix = layer._compute_affine_matrix(center_x=0.5, center_y=0.5, angle=keras.ops.convert_to_tensor(angles),
                                              translate_x=np.zeros(2, "float32"), translate_y=np.zeros(2, "float32"),
                                              scale=np.ones(2, "float32"), shear_x=np.zeros(2, "float32"),
                                              shear_y=np.zeros(2, "float32"), height=h, width=w)
        cases.append(layer_case(layer, x, {"angle": angles}, {"rotation_matrix": matrix}))
    return cases


def zoom_cases():
    cases = []
    hz = np.array([[0.7], [1.3]], "float32")
    wz = np.array([[1.2], [0.85]], "float32")
    for width_factor, fill_mode, data_format in ((None, "reflect", "channels_last"),
                                                 ((-0.3, 0.3), "constant", "channels_first"),
                                                 (0.2, "wrap", "channels_last")):
        layer = L.RandomZoom(0.3, width_factor, fill_mode=fill_mode, fill_value=1.5, data_format=data_format)
        shape = (2, 6, 5, 2) if data_format == "channels_last" else (2, 2, 6, 5)
        w = wz if width_factor is not None else hz
        cases.append(layer_case(layer, images(shape, 3), {"height_zoom": hz, "width_zoom": w},
                                {"height_zoom": hz, "width_zoom": w}))
    return cases


def translation_cases():
    cases = []
    t = np.array([[1.4, -0.6], [-2.25, 1.8]], "float32")  # [width, height] shifts in pixels
    for fill_mode, interpolation, data_format in (("reflect", "bilinear", "channels_last"),
                                                  ("constant", "nearest", "channels_last"),
                                                  ("wrap", "bilinear", "channels_first"),
                                                  ("nearest", "bilinear", "channels_last")):
        layer = L.RandomTranslation(0.5, (-0.2, 0.4), fill_mode=fill_mode, interpolation=interpolation,
                                    fill_value=-1.0, data_format=data_format)
        shape = (2, 5, 6, 2) if data_format == "channels_last" else (2, 2, 5, 6)
        cases.append(layer_case(layer, images(shape, 4), {"translations": t}, {"translations": t}))
    return cases


def shear_cases():
    cases = []
    shear = np.array([[0.3, -0.15], [-0.25, 0.4]], "float32")  # [sx, sy], signs drawn
    # Pairs within [0, 1]: Keras writes a number f as [-f, f], which it then cannot load.
    for fill_mode, interpolation, data_format in (("reflect", "bilinear", "channels_last"),
                                                  ("constant", "nearest", "channels_first"),
                                                  ("wrap", "bilinear", "channels_last")):
        layer = L.RandomShear((0.2, 0.3), (0.1, 0.4), interpolation=interpolation, fill_mode=fill_mode, fill_value=0.75,
                              data_format=data_format)
        shape = (2, 6, 5, 2) if data_format == "channels_last" else (2, 2, 6, 5)
        cases.append(layer_case(layer, images(shape, 15), {"shear_factor": shear}, {"shear_factor": shear}))
    return cases


def flip_cases():
    cases = []
    flips = np.array([True, False, True]).reshape(3, 1, 1, 1)
    for mode, data_format in (("horizontal", "channels_last"), ("vertical", "channels_last"),
                              ("horizontal_and_vertical", "channels_last"), ("horizontal", "channels_first")):
        layer = L.RandomFlip(mode, data_format=data_format)
        shape = (3, 4, 5, 2) if data_format == "channels_last" else (3, 2, 4, 5)
        cases.append(layer_case(layer, images(shape, 5), {"flips": flips}, {"flips": flips}))
    return cases


def contrast_cases():
    cases = []
    f = np.array([0.6, 1.7], "float32").reshape(2, 1, 1, 1)
    for value_range, data_format, scale in (((0, 255), "channels_last", 255.0), ((0, 1), "channels_first", 1.0)):
        layer = L.RandomContrast(0.5, value_range=value_range, data_format=data_format)
        shape = (2, 4, 5, 3) if data_format == "channels_last" else (2, 3, 4, 5)
        cases.append(layer_case(layer, images(shape, 6, scale), {"contrast_factor": f}, {"contrast_factor": f}))
    return cases


def brightness_cases():
    cases = []
    d = np.array([-0.3, 0.45], "float32").reshape(2, 1, 1, 1)
    for value_range, scale in (((0, 255), 255.0), ((-1, 1), 1.0)):
        layer = L.RandomBrightness(0.5, value_range=value_range)
        delta = d * (value_range[1] - value_range[0])
        cases.append(layer_case(layer, images((2, 3, 4, 3), 7, scale), {"rgb_delta": delta}, {"rgb_delta": delta}))
    return cases


def crop_cases():
    cases = []
    # Training on an image larger than the window: one (h_start, w_start) for the batch.
    for data_format in ("channels_last", "channels_first"):
        layer = L.RandomCrop(3, 4, data_format=data_format)
        shape = (2, 6, 7, 2) if data_format == "channels_last" else (2, 2, 6, 7)
        starts = {"h_start": np.array(2, "int64"), "w_start": np.array(1, "int64")}
        cases.append(layer_case(layer, images(shape, 8), starts, (2, 1)))
    # An image not larger than the window in both axes: Keras centre-crops to the window's
    # aspect ratio and resizes (bilinear), in training; no draw.
    for shape, (h, w) in (((2, 5, 5, 1), (4, 6)), ((1, 3, 7, 2), (4, 3))):
        layer = L.RandomCrop(h, w)
        x = images(shape, 9)
        cases.append({"class_name": "RandomCrop", "config": jsonable(layer.get_config()), "images": arr(x),
                      "params": {}, "output": arr(layer(x, training=True))})
    return cases


def invert_cases():
    apply = np.array([True, False, True])
    cases = []
    for value_range, scale in (((0, 255), 255.0), ((-1, 1), 1.0)):
        layer = L.RandomInvert(0.7, value_range=value_range)
        cases.append(layer_case(layer, images((3, 3, 4, 2), 11, scale), {"apply_inversion": apply.reshape(3, 1, 1, 1)},
                                {"apply_inversion": apply}))
    return cases


def solarization_cases():
    additions = np.array([0.0, 40.0, 100.0], "float32").reshape(3, 1, 1, 1)
    thresholds = np.array([128.0, 60.0, 200.0], "float32").reshape(3, 1, 1, 1)
    cases = []
    for value_range, scale in (((0, 255), 255.0), ((0, 1), 1.0)):
        layer = L.Solarization((0.1, 0.5), 0.8, value_range=value_range)
        params = {"additions": additions, "thresholds": thresholds}
        cases.append(layer_case(layer, images((3, 4, 3, 2), 12, scale), params, params))
    return cases


def grayscale_cases():
    apply = np.array([True, False, True]).reshape(3, 1, 1, 1)
    cases = []
    for data_format in ("channels_last", "channels_first"):
        layer = L.RandomGrayscale(0.4, data_format=data_format)
        shape = (3, 4, 5, 3) if data_format == "channels_last" else (3, 3, 4, 5)
        cases.append(layer_case(layer, images(shape, 13, 255.0), {"should_apply": apply}, apply))
    return cases


def auto_contrast_cases():
    cases = []
    for value_range, scale in (((0, 255), 255.0), ((0, 1), 1.0)):
        layer = L.AutoContrast(value_range=value_range)
        x = images((2, 4, 5, 3), 14, scale * 0.5) + scale * 0.2
        x[1, :, :, 1] = scale * 0.3  # a flat channel keeps its values
        cases.append({"class_name": "AutoContrast", "config": jsonable(layer.get_config()), "images": arr(x),
                      "params": {}, "output": arr(layer(x, training=False))})
    return cases


def hue_cases():
    delta = np.array([0.3, -0.45, 0.1], "float32")  # Keras's transformation["factor"]: ±f / 2
    cases = []
    for value_range, data_format, scale in (((0, 255), "channels_last", 255.0), ((-1, 1), "channels_first", 1.0)):
        layer = L.RandomHue(0.9, value_range=value_range, data_format=data_format)
        shape = (3, 4, 5, 3) if data_format == "channels_last" else (3, 3, 4, 5)
        x = images(shape, 16, scale) - (0.0 if value_range[0] == 0 else 0.5)
        # A grey pixel (no hue), and one whose red and green tie as its largest channel.
        grey, tie = ((0, 0, 0, slice(None)), (0, 0, 1, slice(0, 2))) if data_format == "channels_last" else \
            ((0, slice(None), 0, 0), (0, slice(0, 2), 0, 1))
        x[grey] = x[0, 0, 0, 0]
        x[tie] = scale
        cases.append(layer_case(layer, x, {"delta": delta.reshape(3, 1, 1, 1)}, {"factor": delta}))
    return cases


def saturation_cases():
    scale = np.array([0.4, 3.0, -0.5], "float32")  # Keras's transformation["factor"]: u / (1 - u + eps)
    cases = []
    for value_range, data_format, scale_of_images in (((0, 255), "channels_last", 255.0),
                                                      ((1, 0), "channels_first", 1.0)):
        layer = L.RandomSaturation(0.7, value_range=value_range, data_format=data_format)
        shape = (3, 4, 5, 3) if data_format == "channels_last" else (3, 3, 4, 5)
        cases.append(layer_case(layer, images(shape, 18, scale_of_images), {"scale": scale.reshape(3, 1, 1, 1)},
                                {"factor": scale}))
    return cases


def color_degeneration_cases():
    blend = np.array([0.3, -0.5, 1.0], "float32").reshape(3, 1, 1, 1)
    cases = []
    for value_range, data_format, scale in (((0, 255), "channels_last", 255.0), ((0, 1), "channels_first", 1.0)):
        layer = L.RandomColorDegeneration(0.6, value_range=value_range, data_format=data_format)
        shape = (3, 4, 5, 3) if data_format == "channels_last" else (3, 3, 4, 5)
        cases.append(layer_case(layer, images(shape, 19, scale), {"blend": blend}, {"factor": blend}))
    return cases


def color_jitter_cases():
    """RandomColorJitter draws inside transform_images: Keras's own four layers (the jitter's)
    applied in its order with fixed parameters."""
    params = {"brightness_delta": np.array([-30.0, 45.0], "float32").reshape(2, 1, 1, 1),
              "contrast_factor": np.array([0.7, 1.4], "float32").reshape(2, 1, 1, 1),
              "saturation_scale": np.array([0.5, 1.8], "float32"),
              "hue_delta": np.array([0.2, -0.35], "float32")}
    cases = []
    for factors in ({"brightness_factor": 0.2, "contrast_factor": 0.5, "saturation_factor": (0.3, 0.6),
                     "hue_factor": 0.8},
                    {"contrast_factor": (0.2, 0.4), "hue_factor": 0.5}):
        layer = L.RandomColorJitter(value_range=(0, 255), **factors)
        x = images((2, 4, 5, 3), 20, 255.0)
        y = keras.ops.convert_to_tensor(x)
        used = {}
        if layer.random_brightness is not None:
            y = layer.random_brightness.transform_images(y, {"rgb_delta": params["brightness_delta"]})
            used["brightness_delta"] = params["brightness_delta"]
        if layer.random_contrast is not None:
            y = layer.random_contrast.transform_images(y, {"contrast_factor": params["contrast_factor"]})
            used["contrast_factor"] = params["contrast_factor"]
        if layer.random_saturation is not None:
            y = layer.random_saturation.transform_images(y, {"factor": params["saturation_scale"]})
            used["saturation_scale"] = params["saturation_scale"].reshape(2, 1, 1, 1)
        if layer.random_hue is not None:
            y = layer.random_hue.transform_images(y, {"factor": params["hue_delta"]})
            used["hue_delta"] = params["hue_delta"].reshape(2, 1, 1, 1)
        cases.append({"class_name": "RandomColorJitter", "config": jsonable(layer.get_config()), "images": arr(x),
                      "params": {k: arr(v) for k, v in used.items()}, "output": arr(y)})
    return cases


def posterization_cases():
    shift = np.array([4, 7, 0], "uint8")  # Keras's transformation["shift_factor"]: 8 - bits
    cases = []
    for value_range, scale in (((0, 255), 255.0), ((1, -1), 1.0)):
        layer = L.RandomPosterization((2, 6), value_range=value_range)
        x = images((3, 4, 5, 3), 21, scale)
        if value_range[0] == 1:  # [-1, 1]
            x = x * 2.0 - 1.0
        cases.append(layer_case(layer, x.astype("float32"), {"shift": shift.astype("float32").reshape(3, 1, 1, 1)},
                                {"shift_factor": shift}))
    return cases


def sharpness_cases():
    f = np.array([0.1, 0.5, 0.95], "float32")  # Keras's transformation["factor"], before it doubles it
    cases = []
    for value_range, data_format, scale in (((0, 255), "channels_last", 255.0), ((0, 1), "channels_first", 1.0)):
        layer = L.RandomSharpness(0.8, value_range=value_range, data_format=data_format)
        shape = (3, 4, 5, 2) if data_format == "channels_last" else (3, 2, 4, 5)
        cases.append(layer_case(layer, images(shape, 22, scale), {"f": f.reshape(3, 1, 1, 1)}, {"factor": f}))
    return cases


def gaussian_blur_cases():
    sigma = np.array([0.6, 0.9], "float32")  # Keras's transformation["blur_factor"]: (x, y)
    apply = np.array([True, False, True])
    cases = []
    for kernel_size, value_range, data_format, scale in ((3, (0, 255), "channels_last", 255.0),
                                                         ((3, 5), (0, 1), "channels_first", 1.0),
                                                         (5, (0, 1), "channels_last", 1.2)):
        layer = L.RandomGaussianBlur(0.7, kernel_size=kernel_size, sigma=(0.2, 0.9), value_range=value_range,
                                     data_format=data_format)
        shape = (3, 6, 7, 2) if data_format == "channels_last" else (3, 2, 6, 7)
        cases.append(layer_case(layer, images(shape, 23, scale), {"sigma": sigma.reshape(1, 2),
                                                                  "apply": apply.reshape(3, 1, 1, 1)},
                                {"blur_factor": sigma, "should_apply_blur": apply}))
    return cases


def erasing_cases():
    corners = np.array([[0.4, 3.2, 1.0, 4.0], [1.0, 2.0, 0.0, 5.0], [2.0, 6.9, 2.5, 3.5]], "float32")  # x0 x1 y0 y1
    apply = np.array([True, False, True])
    cases = []
    for fill_value, value_range, data_format, scale in ((None, (0, 255), "channels_last", 255.0),
                                                        (0.75, (0, 1), "channels_first", 1.0),
                                                        ((-3.0, 0.5, 0.2), (0, 1), "channels_last", 1.0)):
        layer = L.RandomErasing(0.5, scale=(0.1, 0.4), fill_value=fill_value, value_range=value_range,
                                data_format=data_format)
        shape = (3, 5, 7, 3) if data_format == "channels_last" else (3, 3, 5, 7)
        x = images(shape, 24, scale)
        if fill_value is None:  # noise, as Keras draws it: normal times value_range's upper end
            fill = np.random.default_rng(25).normal(size=shape).astype("float32") * value_range[1]
        else:
            fill = np.ones(shape, "float32") * np.asarray(fill_value, "float32")
        masks = layer._generate_batch_mask(shape, tuple(keras.ops.convert_to_tensor(corners[:, i]) for i in range(4)))
        transformation = {"apply_erasing": apply, "batch_masks": masks,
                          "fill_value": np.clip(fill, value_range[0], value_range[1])}
        cases.append(layer_case(layer, x, {"corners": corners, "apply": apply.reshape(3, 1, 1, 1), "fill": fill},
                                transformation))
    return cases


def equalization_cases():
    """Not random: Keras's output in training (the identity in inference)."""
    cases = []
    for value_range, bins, data_format, scale in (((0, 255), 256, "channels_last", 255.0),
                                                  ((1, 0), 64, "channels_first", 1.0)):
        layer = L.Equalization(value_range=value_range, bins=bins, data_format=data_format)
        shape = (2, 4, 5, 3) if data_format == "channels_last" else (2, 3, 4, 5)
        x = images(shape, 26, scale * 0.6) + scale * 0.1
        x = np.round(x * 20) / 20  # ties: pixels sharing bins
        if data_format == "channels_last":
            x[..., 1] = scale * 0.5  # a channel in one bin keeps its values
        else:
            x[:, 1] = scale * 0.5
        cases.append({"class_name": "Equalization", "config": jsonable(layer.get_config()), "images": arr(x),
                      "params": {}, "output": arr(layer(x, training=True))})
    return cases


def color_model_files():
    """colors.keras: a Sequential model of the colour layers Keras 3.15 added, and
    colors.json: its layers' configs and Keras's inference output (the identity)."""
    # Not Equalization: Keras 3.15 builds no model of it (its output spec is its input, a
    # cycle).
    model = keras.Sequential([
        keras.Input((6, 7, 3)),
        L.RandomHue((0.1, 0.6), value_range=(0, 1), seed=11),
        L.RandomSaturation(0.4, value_range=(0, 1), seed=12),
        L.RandomColorDegeneration((-0.2, 0.5), value_range=(0, 1), seed=13),
        L.RandomColorJitter(value_range=(0, 1), brightness_factor=0.1, contrast_factor=(0.2, 0.3), hue_factor=0.2,
                            seed=14),
        L.RandomPosterization(4, value_range=(0, 1), seed=15),
        L.RandomSharpness((0.2, 0.9), value_range=(0, 1), seed=16),
        L.RandomGaussianBlur(0.5, kernel_size=(3, 5), sigma=(0.3, 0.8), value_range=(0, 1), seed=17),
        L.RandomErasing(0.4, scale=(0.05, 0.2), fill_value=0.5, value_range=(0, 1), seed=18),
    ])
    x = images((2, 6, 7, 3), 17, 1.0)
    model.save(os.path.join(OUT, "colors.keras"))
    configs = [{"class_name": type(l).__name__, "config": jsonable(l.get_config())} for l in model.layers]
    with open(os.path.join(OUT, "colors.json"), "w") as f:
        json.dump({"layers": configs, "input": arr(x), "predict": arr(model.predict(x, verbose=0))}, f)


def model_files():
    model = keras.Sequential([
        keras.Input((8, 9, 3)),
        L.RandomFlip("horizontal", seed=3),
        L.RandomRotation(0.1, fill_mode="constant", seed=4),
        L.RandomZoom((-0.2, 0.1), 0.15, interpolation="nearest", seed=5),
        L.RandomTranslation(0.1, 0.2, fill_mode="wrap", seed=6),
        L.RandomContrast(0.3, seed=7),
        L.RandomBrightness((-0.1, 0.2), value_range=(0, 1), seed=8),
        L.RandomCrop(6, 6, seed=9),
    ])
    x = images((2, 8, 9, 3), 10, 1.0)
    model.save(os.path.join(OUT, "model.keras"))
    # No model.h5: Keras 3.15 cannot write these layers to .h5 (its legacy writer deep-copies
    # each layer's config owner, and the augmentation layers hold a backend module).
    # Keras 3.15 returns RandomCrop's input unchanged in inference, though it declares the
    # window's shape: "predict" is that. "window" is the inference output its docstring
    # describes, the window its transformation computes without a draw (Strata's).
    crop = model.layers[-1]
    before_crop = keras.Sequential(model.layers[:-1])(x, training=False)
    window = crop.transform_images(before_crop, crop.get_random_transformation(before_crop, training=False),
                                   training=True)
    configs = [{"class_name": type(l).__name__, "config": jsonable(l.get_config())} for l in model.layers]
    with open(os.path.join(OUT, "model.json"), "w") as f:
        json.dump({"layers": configs, "input": arr(x), "predict": arr(model.predict(x, verbose=0)),
                   "window": arr(window)}, f)


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = (affine_cases() + rotation_cases() + zoom_cases() + translation_cases() + flip_cases() + contrast_cases() +
             brightness_cases() + crop_cases() + invert_cases() + solarization_cases() + grayscale_cases() +
             auto_contrast_cases() + shear_cases() + hue_cases() +
             saturation_cases() +
             color_degeneration_cases() +
             posterization_cases() +
             sharpness_cases() +
             gaussian_blur_cases() +
             erasing_cases() +
             equalization_cases())
    # model_files before the jitter's cases: the layers those make would take the automatic
    # names model.keras's layers have.
    model_files()
    cases += color_jitter_cases()
    with open(os.path.join(OUT, "transforms.json"), "w") as f:
        json.dump(cases, f)
    color_model_files()


if __name__ == "__main__":
    main()
