// UpSampling1D/2D/3D: each step / pixel / voxel repeated `size` times per spatial axis
// (nearest neighbour). Every rank runs on the 2-D upsampling op (pool_ops.h): 1-D with a
// unit column axis, 3-D as two passes (depth and rows, then cols). UpSampling2D's other
// interpolations resize as Keras does (its image resize to rows·size by cols·size,
// antialias off): the Resizing layer's interpolation matrices (image_resize.h).
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/preprocessing/image_resize.h"

namespace strata::layers {

template <int Rank>
struct UpSamplingOptions {  // Keras signature order (after size)
  std::string data_format;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &UpSamplingOptions::data_format, Spelling::data_format)};
  }
};
// Keras's UpSampling1D has no data_format (channels_last only).
template <>
struct UpSamplingOptions<1> {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};
// Only 2-D has interpolation in Keras.
template <>
struct UpSamplingOptions<2> {
  std::string data_format;
  std::string interpolation = "nearest";  // or bilinear, bicubic, area, lanczos3, lanczos5
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = UpSamplingOptions;
    return std::tuple{keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("interpolation", &O::interpolation)};
  }
};

template <int Rank>
class UpSamplingImpl : public LayerImpl {
 public:
  UpSamplingImpl(Window<Rank> size, UpSamplingOptions<Rank> options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  Window<Rank> size;
  UpSamplingOptions<Rank> options;

 private:
  bool interpolates() const;  // 2-D with an interpolation other than nearest
  ResizeMatrices matrices_;   // when it interpolates over a known height and width
  bool at_run_ = false;       // it interpolates over a None one: matrices made when the program runs
};

template <int Rank>
class UpSampling : public Layer {
 public:
  explicit UpSampling(Window<Rank> size = 2, UpSamplingOptions<Rank> options = {});
};

using UpSampling1DOptions = UpSamplingOptions<1>;
using UpSampling2DOptions = UpSamplingOptions<2>;
using UpSampling3DOptions = UpSamplingOptions<3>;
using UpSampling1D = UpSampling<1>;
using UpSampling2D = UpSampling<2>;
using UpSampling3D = UpSampling<3>;

extern template class UpSamplingImpl<1>;
extern template class UpSamplingImpl<2>;
extern template class UpSamplingImpl<3>;
extern template class UpSampling<1>;
extern template class UpSampling<2>;
extern template class UpSampling<3>;

}  // namespace strata::layers
