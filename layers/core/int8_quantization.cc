#include "layers/core/int8_quantization.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/core/float8_quantization.h"
#include "layers/core/int4_quantization.h"

namespace strata::layers {

Int8Weight quantize_weight_int8(const Tensor& w, const std::vector<int>& axes, const std::string& where) {
  const Tensor host = w.to(Device{});
  const Shape& shape = host.shape();
  const int rank = shape.rank();
  std::vector<std::int64_t> scale_dims = shape.dims();
  for (int axis : axes) scale_dims[static_cast<std::size_t>(axis < 0 ? axis + rank : axis)] = 1;
  // Each element's position in the scale: its index with the reduced axes' coordinates 0.
  std::vector<std::int64_t> scale_strides(static_cast<std::size_t>(rank), 0);
  std::int64_t stride = 1;
  for (int d = rank - 1; d >= 0; --d) {
    const auto i = static_cast<std::size_t>(d);
    scale_strides[i] = scale_dims[i] == 1 ? 0 : stride;
    stride *= scale_dims[i];
  }
  const auto src = host.values<float>();
  std::vector<std::int64_t> position(src.size());
  std::vector<std::int64_t> index(static_cast<std::size_t>(rank), 0);
  for (std::size_t e = 0; e < src.size(); ++e) {
    std::int64_t p = 0;
    for (int d = 0; d < rank; ++d) p += index[static_cast<std::size_t>(d)] * scale_strides[static_cast<std::size_t>(d)];
    position[e] = p;
    for (int d = rank - 1; d >= 0; --d) {  // the next index, row-major
      if (++index[static_cast<std::size_t>(d)] < shape[d]) break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
  Int8Weight out{Tensor(shape), Tensor(Shape(scale_dims))};
  auto scale = out.scale.values<float>();
  for (std::size_t e = 0; e < src.size(); ++e) {
    if (!std::isfinite(src[e])) {
      throw ValueError(where + ": cannot quantize to int8: element " + std::to_string(e) + " is " +
                       std::to_string(src[e]));
    }
    float& m = scale[static_cast<std::size_t>(position[e])];  // the max |w| first
    m = std::max(m, std::fabs(src[e]));
  }
  // NumPy in float32, as Keras: 127 / (max + float32(1e-7)), then w * scale rounded half to even
  // (std::nearbyint in the default rounding mode), clipped.
  for (float& s : scale) s = 127.f / (s + 1e-7f);
  auto values = out.values.values<float>();
  for (std::size_t e = 0; e < src.size(); ++e) {
    const float q = std::nearbyint(src[e] * scale[static_cast<std::size_t>(position[e])]);
    values[e] = std::min(127.f, std::max(-127.f, q)) + 0.f;  // + 0: -0 is stored as int8 0
  }
  return out;
}

void check_quantizable(const LayerImpl& layer, const std::string& mode) {
  if (!layer.built) {
    throw ValueError("Cannot quantize a layer that isn't yet built. Layer '" + layer.name + "' (of type '" +
                     layer.class_name() + "') is not built yet.");
  }
  if (!layer.quantization_mode.empty()) {
    throw ValueError("Layer '" + layer.name + "' is already quantized with dtype_policy='" + layer.quantization_mode +
                     "_from_float32'. Received: mode=" + mode);
  }
  if (mode != "int8" && !int4_block_of(mode) && !float8_history_of(mode)) {
    throw NotImplementedError(layer.class_name() + " '" + layer.name + "': quantize(\"" + mode +
                              "\") is not supported: Strata quantizes to int8, int4 and float8 (docs/precision.md)");
  }
}

void drop_weight_rules(LayerImpl& layer, const Variable& weight) {
  std::erase_if(layer.weight_rules, [&](const WeightRule& rule) { return rule.variable == weight; });
}

Output with_dequantized_gradient(Output quantized, Output dequantized) {
  const Output fixed = ops::stop_gradient(quantized);
  const Output in_training = ops::add(fixed, ops::sub(dequantized, ops::stop_gradient(dequantized)));
  return ops::training_select(in_training, fixed);
}

}  // namespace strata::layers
