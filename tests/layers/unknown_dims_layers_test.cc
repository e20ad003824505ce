// Layers over inputs with None dims besides the batch, built in C++ (Input({kUnknownDim,
// ...})): shapes inferred with the None dims kept where Keras keeps them, errors at
// definition time where the known dims disagree, and the layers that still need known
// dims refuse a None one naming the layer and the dim. Keras's files with None dims:
// tests/io/unknown_dims_files_test.cc.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "layers/merging/merge.h"
#include "layers/pooling/global_pooling.h"
#include "layers/pooling/pooling.h"
#include "layers/preprocessing/resizing.h"
#include "layers/recurrent/lstm.h"
#include "layers/recurrent/time_distributed.h"
#include "layers/reshaping/flatten.h"
#include "layers/reshaping/reshape.h"
#include "layers/reshaping/upsampling.h"
#include "models/model.h"

using namespace strata;
using namespace strata::layers;

namespace unknown_dims_layers_test {

namespace {

constexpr std::int64_t N = kUnknownDim;

template <typename F>
std::string shape_error_of(F&& f) {
  try {
    f();
  } catch (const ShapeError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("wrong exception type: ") + e.what();
  }
  return "no exception";
}

}  // namespace

TEST(UnknownDims, ShapesKeepNoneThroughConvPoolingUpSamplingAndDense) {
  auto x = Input({N, N, 3});
  EXPECT_EQ(Conv2D(4, 3, {.strides = 2, .padding = "same"})(x).shape(), (Shape{N, N, N, 4}));
  EXPECT_EQ(MaxPooling2D(2, {.padding = "same"})(x).shape(), (Shape{N, N, N, 3}));
  EXPECT_EQ(UpSampling2D(2)(x).shape(), (Shape{N, N, N, 3}));
  EXPECT_EQ(GlobalAveragePooling2D()(x).shape(), (Shape{N, 3}));
  EXPECT_EQ(Dense(5)(x).shape(), (Shape{N, N, N, 5}));
  auto steps = Input({N, 6});
  EXPECT_EQ(Conv1D(2, 3, {.padding = "causal"})(steps).shape(), (Shape{N, N, 2}));
  EXPECT_EQ(MaxPooling1D(2)(steps).shape(), (Shape{N, N, 6}));
  EXPECT_EQ(LSTM(3, {.return_sequences = true})(steps).shape(), (Shape{N, N, 3}));
  EXPECT_EQ(Reshape({-1, 3})(steps).shape(), (Shape{N, N, 3}));
  EXPECT_EQ(Flatten()(steps).shape(), (Shape{N, N}));
  auto volume = Input({N, 4, N, 2});
  EXPECT_EQ(MaxPooling3D(2)(volume).shape(), (Shape{N, N, 2, N, 2}));
  EXPECT_EQ(UpSampling3D(2)(volume).shape(), (Shape{N, N, 8, N, 2}));
}

// Known dims still disagree at definition time, None or not around them.
TEST(UnknownDims, KnownDimsThatDisagreeAreStillErrorsAtDefinition) {
  EXPECT_THROW(Add()({Input({N, N, 3}), Input({N, N, 4})}), ShapeError);
  Conv2D conv(4, 3);
  conv(Input({N, N, 3}));
  EXPECT_THROW(conv(Input({N, N, 5})), ShapeError);  // built for 3 channels
  EXPECT_NE(shape_error_of([] { Conv2D(4, 3)(Input({N, N, N})); }).find("channel"), std::string::npos);
  EXPECT_NE(shape_error_of([] { Dense(2)(Input({4, N})); }).find("last dimension"), std::string::npos);
}

// The transposed convolutions size their output from the input's when the program runs:
// None in, None out, known dims beside it as Keras gives them.
TEST(UnknownDims, TransposedConvolutionsKeepNoneAndSizeTheKnownDims) {
  EXPECT_EQ(Conv2DTranspose(2, 3, {.strides = 2, .padding = "same"})(Input({N, 5, 3})).shape(), (Shape{N, N, 10, 2}));
  EXPECT_EQ(Conv2DTranspose(2, 4, {.strides = 2})(Input({N, 5, 3})).shape(), (Shape{N, N, 12, 2}));
  EXPECT_EQ(Conv1DTranspose(2, 3, {.strides = 3, .output_padding = 2})(Input({N, 3})).shape(), (Shape{N, N, 2}));
}

// The interpolating resizes keep None where the size follows the input's, and give the
// fixed size where it does not (their matrices are made when the program runs).
TEST(UnknownDims, InterpolatingResizesKeepNoneOrGiveTheirSize) {
  EXPECT_EQ(UpSampling2D(2, {.interpolation = "bilinear"})(Input({N, 4, 3})).shape(), (Shape{N, N, 8, 3}));
  EXPECT_EQ(UpSampling2D({2, 3}, {.interpolation = "lanczos5"})(Input({N, N, 3})).shape(), (Shape{N, N, N, 3}));
  EXPECT_EQ(Resizing(5, 7, {.interpolation = "area"})(Input({N, N, 3})).shape(), (Shape{N, 5, 7, 3}));
  EXPECT_EQ(Resizing(5, 7, {.crop_to_aspect_ratio = true})(Input({6, N, 3})).shape(), (Shape{N, 5, 7, 3}));
}

// Antialiased resizes over None sizes (matrices made when the program runs, the
// resize_weights op) predict what the same resize over known sizes (matrices made when the
// model is defined) predicts, shrinking and growing, for every interpolation.
TEST(UnknownDims, AntialiasedResizesOverNoneSizesMatchKnownSizes) {
  for (const std::string interpolation : {"bilinear", "bicubic", "lanczos3", "lanczos5", "nearest", "area"}) {
    const ResizingOptions options{.interpolation = interpolation, .crop_to_aspect_ratio = true, .antialias = true};
    auto any_size = Input({N, N, 2});
    Model open(any_size, Resizing(4, 7, options)(any_size));
    for (const auto& [h, w] : {std::pair<std::int64_t, std::int64_t>{9, 13}, {3, 5}}) {
      auto fixed_size = Input({h, w, 2});
      Model fixed(fixed_size, Resizing(4, 7, options)(fixed_size));
      Tensor x(Shape{2, h, w, 2});
      for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = static_cast<float>((i * 37) % 11) * 0.25f;
      const Tensor a = open.predict_on_batch(x), b = fixed.predict_on_batch(x);
      ASSERT_EQ(a.shape(), b.shape());
      for (std::int64_t i = 0; i < a.size(); ++i)
        EXPECT_NEAR(a.item(i), b.item(i), 1e-6) << interpolation << " " << h << "x" << w << " element " << i;
    }
  }
}

// TimeDistributed folds None time steps into the batch, and the wrapped layer sees the
// per-step dims as they come, None or not.
TEST(UnknownDims, TimeDistributedFoldsNoneStepsAndKeepsNonePerStepDims) {
  EXPECT_EQ(TimeDistributed(Conv2D(3, 2))(Input({N, N, N, 2})).shape(), (Shape{N, N, N, N, 3}));
  EXPECT_EQ(TimeDistributed(Dense(2))(Input({N, 4})).shape(), (Shape{N, N, 2}));
  EXPECT_THROW(TimeDistributed(Dense(2))(Input({N, N})), ShapeError);  // Dense's last dim must be known
}

// pad_to_aspect_ratio over None sizes (the resize_weights op resizing each padded axis,
// the padding's weights dropped, on images less the fill value) predicts what the same
// resize over known sizes (the image padded, then its matrices; matched to Keras's
// goldens) predicts: taller and wider images, odd differences, the output's own ratio,
// a fill value, every interpolation, both data formats.
TEST(UnknownDims, PaddedResizesOverNoneSizesMatchKnownSizes) {
  for (const std::string interpolation : {"bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"}) {
    for (const std::string format : {"channels_last", "channels_first"}) {
      const ResizingOptions options{.interpolation = interpolation, .pad_to_aspect_ratio = true, .fill_value = 0.5,
                                    .data_format = format};
      const bool first = format == "channels_first";
      auto any_size = Input(first ? Shape{2, N, N} : Shape{N, N, 2});
      Model open(any_size, Resizing(4, 7, options)(any_size));
      for (const auto& [h, w] : {std::pair<std::int64_t, std::int64_t>{9, 5}, {3, 13}, {8, 14}, {4, 4}, {2, 9}}) {
        SCOPED_TRACE(::testing::Message() << interpolation << " " << format << " " << h << "x" << w);
        const Shape image = first ? Shape{2, h, w} : Shape{h, w, 2};
        auto fixed_size = Input(image);
        Model fixed(fixed_size, Resizing(4, 7, options)(fixed_size));
        Tensor x(Shape{2, image.dims()[0], image.dims()[1], image.dims()[2]});
        for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = static_cast<float>((i * 37) % 11) * 0.25f;
        const Tensor a = open.predict_on_batch(x), b = fixed.predict_on_batch(x);
        ASSERT_EQ(a.shape(), b.shape());
        for (std::int64_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a.item(i), b.item(i), 1e-5) << "element " << i;
      }
    }
  }
}

}  // namespace unknown_dims_layers_test
