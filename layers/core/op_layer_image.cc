// keras.ops.image operations (issue #38) on batches of images (rank 4; Keras reads a rank-3
// input as one image, whose rows would be a functional model's batch, so that is refused):
// rgb_to_grayscale (Keras's weights 0.2989, 0.5870, 0.1140 along the channel axis),
// rgb_to_hsv and hsv_to_rgb (TensorFlow's formulas, layers/preprocessing/color_space.h),
// pad_images and crop_images (the amounts Keras infers from the targets, then a pad or a crop),
// resize (the Resizing layer's code, which Keras's Resizing computes with this very operation),
// affine_transform (the image_affine_transform op: TensorFlow's ImageProjectiveTransformV3),
// perspective_transform (the same op, by the homography of four point pairs) and
// scale_and_translate (a product with a resampling matrix per spatial axis).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/image_ops.h"
#include "core/ops/linalg_ops.h"
#include "core/ops/map_coordinates.h"
#include "core/ops/random_ops.h"
#include "core/resize_weights.h"
#include "layers/core/op_call.h"
#include "layers/preprocessing/color_space.h"
#include "layers/preprocessing/elastic_resample.h"
#include "layers/preprocessing/resizing.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

// The images' data_format ("channels_last" when None), the input checked to be a batch.
std::string images_format(C c, const Output& x) {
  if (x.shape().rank() != 4)
    throw NotImplementedError(c.where + ": images " + x.shape().to_string() +
                              " are not supported (a batch of images, rank 4, is)");
  const std::string f = c.text("data_format");
  if (f.empty()) return "channels_last";
  if (f != "channels_last" && f != "channels_first")
    refuse(c, "data_format", "only 'channels_last' and 'channels_first' are");
  return f;
}

int channel_axis_of(const std::string& format) { return format == "channels_first" ? 1 : 3; }

std::int64_t channels_of(C c, const Output& x, const std::string& format) {
  return known_size(c, "data_format", x, channel_axis_of(format));
}

// Σ_c w_c · x_c with the channel axis kept (size 1); one channel is returned as it is.
Output rgb_to_grayscale(C c) {
  const Output x = c.arg(0);
  const std::string format = images_format(c, x);
  const std::int64_t channels = channels_of(c, x, format);
  if (channels == 1) return x;
  if (channels != 3) throw ValueError(c.where + ": expects 3 (RGB) or 1 channels, got " + x.shape().to_string());
  const float weights[3] = {0.2989f, 0.5870f, 0.1140f};
  Output y = ops::mul(image_channel(x, format, 0), weights[0]);
  for (int i = 1; i < 3; ++i) y = ops::add(y, ops::mul(image_channel(x, format, i), weights[i]));
  return y;
}

Output three_channels(C c, const Output& x, const std::string& format) {
  if (channels_of(c, x, format) != 3)
    throw ValueError(c.where + ": expects 3 channels, got " + x.shape().to_string());
  return x;
}

Output rgb_to_hsv_op(C c) {
  const Output x = c.arg(0);
  const std::string format = images_format(c, x);
  return rgb_to_hsv(three_channels(c, x, format), format);
}

// No gradient reaches the input, as in Keras on TensorFlow (whose HSVToRGB kernel has none:
// its gradient is zeros).
Output hsv_to_rgb_op(C c) {
  const Output x = c.arg(0);
  const std::string format = images_format(c, x);
  return hsv_to_rgb(ops::stop_gradient(three_channels(c, x, format)), format);
}

std::optional<std::int64_t> amount(C c, const std::string& key) {
  if (!c.has(key)) return std::nullopt;
  return static_cast<std::int64_t>(c.number(key));
}

// One axis's (before, after) as Keras infers it: a missing side from the target and the other.
std::pair<std::int64_t, std::int64_t> pads_of(C c, const std::string& before_key, const std::string& after_key,
                                              const std::string& target_key, std::int64_t size) {
  auto before = amount(c, before_key), after = amount(c, after_key);
  const auto target = amount(c, target_key);
  if ((!before || !after) && !target)
    throw ValueError(c.where + ": needs '" + target_key + "' when '" + before_key + "' or '" + after_key +
                     "' is None");
  if (!before && !after) throw ValueError(c.where + ": needs '" + before_key + "' or '" + after_key + "'");
  if (!before) before = *target - *after - size;
  if (!after) after = *target - *before - size;
  if (*before < 0 || *after < 0)
    throw ValueError(c.where + ": '" + before_key + "' and '" + after_key + "' must be >= 0, got " +
                     std::to_string(*before) + " and " + std::to_string(*after));
  return {*before, *after};
}

Output pad_images(C c) {
  const Output x = c.arg(0);
  const std::string format = images_format(c, x);
  const int rows = format == "channels_first" ? 2 : 1;
  const auto [top, bottom] = pads_of(c, "top_padding", "bottom_padding", "target_height",
                                     known_size(c, "target_height", x, rows));
  const auto [left, right] = pads_of(c, "left_padding", "right_padding", "target_width",
                                     known_size(c, "target_width", x, rows + 1));
  std::vector<std::int64_t> before(4, 0), after(4, 0);
  before[static_cast<std::size_t>(rows)] = top;
  after[static_cast<std::size_t>(rows)] = bottom;
  before[static_cast<std::size_t>(rows) + 1] = left;
  after[static_cast<std::size_t>(rows) + 1] = right;
  return ops::pad(x, before, after);
}

// One axis's (start, size) as Keras infers it: the start from the target and the far side
// when it is None, the target from both sides when that is None.
std::pair<std::int64_t, std::int64_t> image_window_of(C c, const std::string& start_key, const std::string& end_key,
                                                const std::string& target_key, std::int64_t size) {
  auto start = amount(c, start_key), end = amount(c, end_key), target = amount(c, target_key);
  if (!start) {
    if (!target || !end) throw ValueError(c.where + ": needs '" + target_key + "' and '" + end_key + "'");
    start = size - *target - *end;
  }
  if (!target) {
    if (!end) throw ValueError(c.where + ": needs '" + target_key + "' or '" + end_key + "'");
    target = size - *end - *start;
  }
  if (*start < 0 || *target < 0 || *start + *target > size)
    throw ValueError(c.where + ": cropping " + std::to_string(*start) + " + " + std::to_string(*target) +
                     " cells out of " + std::to_string(size) + " ('" + start_key + "', '" + target_key + "')");
  return {*start, *target};
}

Output crop_images(C c) {
  const Output x = c.arg(0);
  const std::string format = images_format(c, x);
  const int rows = format == "channels_first" ? 2 : 1;
  const auto [top, height] = image_window_of(c, "top_cropping", "bottom_cropping", "target_height",
                                       known_size(c, "target_height", x, rows));
  const auto [left, width] = image_window_of(c, "left_cropping", "right_cropping", "target_width",
                                       known_size(c, "target_width", x, rows + 1));
  return slice(slice(x, rows, top, top + height), rows + 1, left, left + width);
}

// To `size` (height, width), spatial sizes known: Resizing's interpolation matrices, its
// crop_to_aspect_ratio, pad_to_aspect_ratio and antialias.
Output resize(C c) {
  const Output x = c.arg(0);
  const std::string format = images_format(c, x);
  const auto size = c.axes("size");
  if (!size || size->size() != 2) throw ValueError(c.where + ": needs 'size' (height, width)");
  ResizingOptions o{.interpolation = c.has("interpolation") ? c.text("interpolation") : "bilinear",
                    .crop_to_aspect_ratio = c.flag("crop_to_aspect_ratio"),
                    .pad_to_aspect_ratio = c.flag("pad_to_aspect_ratio"),
                    .fill_mode = c.has("fill_mode") ? c.text("fill_mode") : "constant",
                    .fill_value = c.has("fill_value") ? c.number("fill_value") : 0.0,
                    .antialias = c.flag("antialias"),
                    .data_format = format,
                    .name = c.where};
  if (o.fill_mode != "constant") refuse(c, "fill_mode", "only 'constant' is");
  const int rows = format == "channels_first" ? 2 : 1;
  known_size(c, "size", x, rows);
  known_size(c, "size", x, rows + 1);
  ResizingImpl layer((*size)[0], (*size)[1], std::move(o));
  layer.build({TensorSpec{x.shape(), x.dtype()}});
  return layer.call(c.graph, {x}).at(0);
}

// Each image through its transform (8 numbers, or one row per image), as TensorFlow's
// projective transform samples it. No gradient: the op refuses one to the images by name
// (TensorFlow's is the inverse transform's resampling, not the adjoint), none to the transforms.
Output affine_transform(C c) {
  const std::string interpolation = c.has("interpolation") ? c.text("interpolation") : "bilinear";
  const std::string fill_mode = c.has("fill_mode") ? c.text("fill_mode") : "constant";
  if (interpolation != "bilinear" && interpolation != "nearest")
    refuse(c, "interpolation", "only 'bilinear' and 'nearest' are, as Keras's");
  if (fill_mode != "constant" && fill_mode != "nearest" && fill_mode != "wrap" && fill_mode != "reflect")
    refuse(c, "fill_mode", "only 'constant', 'nearest', 'wrap' and 'reflect' are, as Keras's");
  const Output x = c.arg(0);
  const std::string format = images_format(c, x);
  Output transforms = c.arg(1);
  if (transforms.shape().rank() == 1) {  // one transform for every image (a constant: a tensor's axis 0 is its batch)
    const std::int64_t n = transforms.shape().dims()[0];
    if (n == kUnknownDim)
      throw ValueError(c.where + ": transform " + transforms.shape().to_string() + " has no known size");
    transforms = ops::reshape(transforms, {1, n});
  }
  if (transforms.shape().rank() != 2)
    throw ValueError(c.where + ": transform must be (8,) or (batch, 8), got " + transforms.shape().to_string());
  const bool first = format == "channels_first";
  const Output images = first ? ops::transpose(x, {0, 2, 3, 1}) : x;
  const Output y = ops::image_affine_transform(
      images, transforms,
      {.interpolation = interpolation,
       .fill_mode = fill_mode,
       .fill_value = c.has("fill_value") ? static_cast<float>(c.number("fill_value")) : 0.f});
  return first ? ops::transpose(y, {0, 3, 1, 2}) : y;
}

// Keras's image.elastic_transform (TensorFlow backend): its field TensorFlow's stateless
// normal draws of [seed, 0] over the run's (batch, H, W), as Keras draws it for a batch of
// known size (core/tf_stateless_random.h), the same field for both axes; then the
// deformation RandomElasticTransform shares (layers/preprocessing/elastic_resample.h), with
// the given sigma and alpha and no clipping. seed=None (a new field from Keras's global seed
// generator at every call) is refused.
Output elastic_transform(C c) {
  const double sigma = c.has("sigma") ? c.number("sigma") : 5.0;
  const ElasticResampleOptions resample{.interpolation = c.has("interpolation") ? c.text("interpolation") : "bilinear",
                                        .fill_mode = c.has("fill_mode") ? c.text("fill_mode") : "reflect",
                                        .fill_value = c.has("fill_value") ? c.number("fill_value") : 0.0,
                                        .largest_sigma = sigma,
                                        .where = c.where};
  check_elastic_options(resample);
  if (!c.has("seed"))
    refuse(c, "seed", "None draws a new field from Keras's global seed generator at every call; give an integer seed");
  const Output x = c.arg(0);
  const std::string format = images_format(c, x);
  const bool first = format == "channels_first";
  const Output images = first ? ops::transpose(x, {0, 2, 3, 1}) : x;
  const auto& dims = images.shape().dims();
  if (dims[1] < 0 || dims[2] < 0 || dims[3] < 0)
    throw ShapeError(c.where + ": needs the images' height, width and channels, got shape " + x.shape().to_string());
  // Keras's seed [seed, 0], int64 on its TensorFlow backend.
  const auto* seed = std::get_if<std::int64_t>(&c.attrs.at("seed"));
  if (!seed) refuse(c, "seed", "an integer seed is needed");
  const Output noise = ops::tf_stateless_normal_like(ops::reduce_max(images, {3}), *seed, 0);
  const Output y = elastic_resample(images, noise, scalar(c, static_cast<float>(sigma)),
                                    scalar(c, static_cast<float>(c.has("alpha") ? c.number("alpha") : 20.0)), resample);
  return first ? ops::transpose(y, {0, 3, 1, 2}) : y;
}

// Four (x, y) points per image: a constant (4, 2) for every image, or (images, 4, 2).
Output corner_points(C c, std::size_t i) {
  Output p = c.arg(i);
  if (p.dtype() != DType::float32) p = ops::cast(p, DType::float32);
  const auto& d = p.shape().dims();
  const int rank = rank_of(p);
  if ((rank != 2 && rank != 3) || d[d.size() - 2] != 4 || d[d.size() - 1] != 2)
    throw ValueError(c.where + ": points must be (4, 2) or (images, 4, 2), got " + p.shape().to_string());
  return rank == 2 ? ops::reshape(p, {1, 4, 2}) : p;
}

// keras.ops.image.perspective_transform: per image, the homography that takes each output
// pixel to the input pixel it reads (end points to start points), Keras's 8 × 8 system solved
// as Solve does (its inverse times the start points), then TensorFlow's projective transform of
// the images by it (the image_affine_transform op: constant fill, no gradient, as AffineTransform).
Output perspective_transform(C c) {
  const std::string interpolation = c.has("interpolation") ? c.text("interpolation") : "bilinear";
  if (interpolation != "bilinear" && interpolation != "nearest")
    refuse(c, "interpolation", "only 'bilinear' and 'nearest' are, as Keras's");
  const Output x = c.arg(0);
  const std::string format = images_format(c, x);
  const Output start = corner_points(c, 1), end = corner_points(c, 2);
  if (rank_of(c.arg(1)) != rank_of(c.arg(2)))
    throw ValueError(c.where + ": start_points " + c.arg(1).shape().to_string() + " and end_points " +
                     c.arg(2).shape().to_string() + " must have the same shape");
  // Point k gives the rows [ex, ey, 1, 0, 0, 0, -sx ex, -sx ey] and [0, 0, 0, ex, ey, 1, -sy ex,
  // -sy ey] of the system whose right side is (sx, sy), k = 1 .. 4 in turn.
  const Output ones = ops::ones_like(slice(end, 2, 0, 1));
  const Output e1 = ops::concat({end, ones}, 2), zeros = ops::zeros_like(e1);
  const Output sx = slice(start, 2, 0, 1), sy = slice(start, 2, 1, 2);
  const Output row_x = ops::concat({e1, zeros, ops::neg(ops::mul(sx, end))}, 2);
  const Output row_y = ops::concat({zeros, e1, ops::neg(ops::mul(sy, end))}, 2);
  const Output rows = ops::reshape(ops::concat({expand_dims(row_x, 2, c.where), expand_dims(row_y, 2, c.where)}, 2),
                                   {-1, 8, 8});
  const Output target = ops::reshape(start, {-1, 8, 1});
  const Output homography = ops::reshape(ops::matrix_product(ops::matrix_inverse(rows), target), {-1, 8});
  const bool first = format == "channels_first";
  const Output images = first ? ops::transpose(x, {0, 2, 3, 1}) : x;
  const Output y = ops::image_affine_transform(
      images, homography,
      {.interpolation = interpolation,
       .fill_mode = "constant",
       .fill_value = c.has("fill_value") ? static_cast<float>(c.number("fill_value")) : 0.f});
  return first ? ops::transpose(y, {0, 3, 1, 2}) : y;
}

// Keras's weight matrix (input_size, output_size) of one spatial axis: output position j
// samples the input at ((j + 0.5) - translation) / scale - 0.5, each input pixel weighted by
// the kernel of its distance (stretched by 1 / scale when downsampling with antialias), the
// weights normalized per output position (zero where they sum to about nothing), and no
// weight at all for a sample outside [-0.5, input_size - 0.5] (it reads zeros).
// The kernels are TensorFlow's ScaleAndTranslate's (core/resize_weights.h), which Keras's
// TensorFlow backend computes alike, in float32.
std::vector<float> scale_and_translate_weights(std::int64_t input_size, std::int64_t output_size, float scale,
                                               float translation, resize_detail::SamplingKernel kernel,
                                               bool antialias) {
  const float inv_scale = 1.f / scale;
  const float kernel_scale = antialias ? std::max(inv_scale, 1.f) : 1.f;
  std::vector<float> w(static_cast<std::size_t>(input_size * output_size), 0.f);
  const float last = static_cast<float>(input_size) - 0.5f;
  for (std::int64_t j = 0; j < output_size; ++j) {
    const float sample = (static_cast<float>(j) + 0.5f) * inv_scale - translation * inv_scale - 0.5f;
    float total = 0.f;
    for (std::int64_t i = 0; i < input_size; ++i) {
      const float v = kernel(std::fabs(sample - static_cast<float>(i)) / kernel_scale);
      w[static_cast<std::size_t>(i * output_size + j)] = v;
      total += v;
    }
    const bool inside = sample >= -0.5f && sample <= last;
    const bool normalizable = std::fabs(total) > 1000.f * std::numeric_limits<float>::epsilon();
    for (std::int64_t i = 0; i < input_size; ++i) {
      float& v = w[static_cast<std::size_t>(i * output_size + j)];
      v = inside && normalizable ? v / total : 0.f;
    }
  }
  return w;
}

// One value per spatial axis of scale or translation (call argument i): a NumPy constant.
std::vector<float> per_spatial_axis(C c, std::size_t i, const char* what, std::size_t axes) {
  const OpArgument& a = c.arguments.at(i);
  if (a.kind != OpArgument::Kind::array && a.kind != OpArgument::Kind::number)
    throw NotImplementedError(c.where + ": " + what + " from a tensor of the model is not supported (a NumPy " +
                              "constant is: the resampling matrices are made when the model is defined)");
  std::vector<float> v;
  if (a.kind == OpArgument::Kind::number) v.assign(axes, static_cast<float>(a.number));
  for (double e : a.values) v.push_back(static_cast<float>(e));
  if (v.size() != axes)
    throw ValueError(c.where + ": " + what + " needs one value per spatial dimension (" + std::to_string(axes) +
                     "), got " + std::to_string(v.size()));
  return v;
}

// keras.ops.image.scale_and_translate(images, output_shape, scale, translation, spatial_dims,
// method, antialias): per spatial axis d in turn, the product of the images along d with the
// axis's resampling matrix (Keras's tensordot), which gives the images their gradient. Any rank;
// the spatial sizes known; scale and translation NumPy constants; float32 images. The method
// "triangle" is linear, as Keras documents it (its TensorFlow backend refuses the name).
Output scale_and_translate(C c) {
  using K = resize_detail::SamplingKernel;
  static const std::map<std::string, K> methods = {
      {"linear", K{1.f, 0}},   {"bilinear", K{1.f, 0}}, {"trilinear", K{1.f, 0}}, {"triangle", K{1.f, 0}},
      {"cubic", K{2.f, 1}},    {"bicubic", K{2.f, 1}},  {"tricubic", K{2.f, 1}},  {"lanczos3", K{3.f, 2}},
      {"lanczos5", K{5.f, 2}}};
  const auto method = methods.find(c.text("method"));
  if (method == methods.end())
    refuse(c, "method", "Keras's are linear, bilinear, trilinear, triangle, cubic, bicubic, tricubic, lanczos3 and "
                        "lanczos5");
  const bool antialias = !c.has("antialias") || c.flag("antialias");
  const Output images = c.arg(0);
  const int rank = rank_of(images);
  const OpArgument& shape_arg = c.arguments.at(1);
  if (shape_arg.kind != OpArgument::Kind::integers || static_cast<int>(shape_arg.values.size()) != rank)
    throw ValueError(c.where + ": output_shape must list one size per axis of images " + images.shape().to_string());
  const auto spatial = c.axes("spatial_dims").value_or(std::vector<std::int64_t>{});
  const std::vector<float> scale = per_spatial_axis(c, 2, "scale", spatial.size());
  const std::vector<float> translation = per_spatial_axis(c, 3, "translation", spatial.size());
  std::vector<bool> resampled(static_cast<std::size_t>(rank), false);
  if (images.dtype() != DType::float32)
    throw NotImplementedError(c.where + ": images of dtype " + to_string(images.dtype()) + " are not supported " +
                              "(float32 are; Keras's TensorFlow backend fails on integer images when the model runs)");
  Output y = images;
  for (std::size_t k = 0; k < spatial.size(); ++k) {
    const auto d = static_cast<int>(((spatial[k] % rank) + rank) % rank);
    if (d == 0) refuse(c, "spatial_dims", "the batch axis (0) is the run's, not a spatial axis");
    resampled[static_cast<std::size_t>(d)] = true;
    const std::int64_t m = known_size(c, "spatial_dims", y, d);
    const double n = shape_arg.values[static_cast<std::size_t>(d)];
    // Sizes from a damaged file must neither overflow nor make a matrix no machine holds.
    constexpr double kMaxElements = 268435456.0;  // 2^28
    if (std::isnan(n) || n < 1 || n > kMaxElements / static_cast<double>(m))
      throw ValueError(c.where + ": output_shape needs a positive size for spatial axis " + std::to_string(d) +
                       " whose resampling matrix (" + std::to_string(m) + " by the size) holds at most 2^28 values");
    if (!(scale[k] > 0.f) || !std::isfinite(scale[k]) || !std::isfinite(translation[k]))
      throw ValueError(c.where + ": scale must be positive and finite and translation finite, got scale " +
                       std::to_string(scale[k]) + ", translation " + std::to_string(translation[k]));
    const auto out = static_cast<std::int64_t>(n);
    const Tensor w = Tensor::from_vector(
        Shape{m, out}, scale_and_translate_weights(m, out, scale[k], translation[k], method->second, antialias));
    const Output weights = c.graph.variable(Variable(c.where + "/weights_" + std::to_string(d), w, false));
    std::vector<std::int64_t> last, back(static_cast<std::size_t>(rank));
    for (int a = 0; a < rank; ++a)
      if (a != d) last.push_back(a);
    last.push_back(d);
    for (int a = 0; a < rank; ++a) back[static_cast<std::size_t>(last[static_cast<std::size_t>(a)])] = a;
    y = ops::transpose(ops::matmul(ops::transpose(y, last), weights), back);
  }
  for (int a = 1; a < rank; ++a) {
    const double n = shape_arg.values[static_cast<std::size_t>(a)];
    if (!resampled[static_cast<std::size_t>(a)] && !std::isnan(n) && static_cast<std::int64_t>(n) != y.shape().dims()[a])
      throw ValueError(c.where + ": output_shape " + std::to_string(static_cast<std::int64_t>(n)) + " for axis " +
                       std::to_string(a) + ", which is not resampled, differs from the images' " +
                       images.shape().to_string());
  }
  return y;
}

}  // namespace

const std::map<std::string, OpFn>& image_ops() {
  static const std::map<std::string, OpFn> t = {
      {"RGBToGrayscale", rgb_to_grayscale},
      {"RGBToHSV", rgb_to_hsv_op},
      {"HSVToRGB", hsv_to_rgb_op},
      {"PadImages", pad_images},
      {"CropImages", crop_images},
      {"Resize", resize},
      {"MapCoordinates",
       [](C c) {
         // Keras's image.map_coordinates: coordinates (rank, ...) from a NumPy constant (a
         // model's tensor has the batch as its first axis, which Keras refuses too).
         const double order = c.has("order") ? c.number("order") : 1.0;
         if (order != 0.0 && order != 1.0) refuse(c, "order", "Keras computes 0 and 1");
         return ops::map_coordinates(c.arg(0), c.arg(1), static_cast<int>(order),
                                     c.has("fill_mode") ? c.text("fill_mode") : "constant",
                                     c.has("fill_value") ? c.number("fill_value") : 0.0);
       }},
      {"AffineTransform", affine_transform},
      {"ElasticTransform", elastic_transform},
      {"PerspectiveTransform", perspective_transform},
      {"ScaleAndTranslate", scale_and_translate},
  };
  return t;
}

}  // namespace strata::layers::op_detail
