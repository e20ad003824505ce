// What the 3-D and 1-D-transposed convolution family refuses, and when: shapes at
// definition (ShapeError naming the layer and the shapes), arguments at construction
// (ValueError), as Keras refuses them. Values against Keras: conv3d_golden_test.cc.
#include <gtest/gtest.h>

#include "../io/test_util.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/core/input_layer.h"
#include "layers/pooling/global_pooling.h"
#include "layers/pooling/pooling.h"
#include "layers/reshaping/spatial_padding.h"
#include "layers/reshaping/upsampling.h"

namespace strata::conv3d_layers_test {
namespace {

using namespace strata::layers;

TEST(Conv3D, RefusesInputThatIsNotAVolumeNamingTheLayerAndShape) {
  EXPECT_THROW_WITH(Conv3D(2, 3, {.name = "c3"})(Input({5, 5, 2})), ShapeError, "Conv3D 'c3'", "(None, 5, 5, 2)",
                    "rank 5");
}

TEST(Conv3D, RefusesAKernelDeeperThanThePaddedInputAtDefinition) {
  EXPECT_THROW_WITH(Conv3D(2, {4, 1, 1}, {.name = "deep"})(Input({3, 5, 5, 1})), ShapeError, "Conv3D 'deep'",
                    "(None, 3, 5, 5, 1)", "depth extent 4", "padded input's 3");
}

TEST(Conv3D, RefusesGroupsThatDoNotDivideTheChannelsOrFilters) {
  EXPECT_THROW_WITH(Conv3D(4, 1, {.groups = 2})(Input({2, 2, 2, 3})), ShapeError, "input channels 3",
                    "not divisible by groups 2");
  EXPECT_THROW_WITH(Conv3D(3, 1, {.groups = 2}), ValueError, "filters (3) must be divisible by groups (2)");
}

TEST(Conv3D, CalledAgainOnOtherChannelsIsRefusedNamingTheKernel) {
  Conv3D conv(2, 1, {.name = "shared"});
  conv(Input({2, 2, 2, 3}));
  EXPECT_THROW_WITH(conv(Input({2, 2, 2, 4})), ShapeError, "Conv3D 'shared'", "expects input with 3 channels",
                    "(1, 1, 1, 3, 2)");
}

TEST(Conv3D, WeightsAreKerasKernelThenBias) {
  Conv3D conv(4, {3, 2, 1}, {.groups = 2, .name = "c"});
  conv(Input({5, 6, 7, 6}));
  ASSERT_EQ(conv.weights().size(), 2u);
  EXPECT_EQ(conv.weights()[0].path(), "c/kernel");
  EXPECT_EQ(conv.weights()[0].shape(), (Shape{3, 2, 1, 3, 4}));
  EXPECT_EQ(conv.weights()[1].path(), "c/bias");
  EXPECT_EQ(conv.weights()[1].shape(), Shape{4});
}

TEST(Conv3DTranspose, KernelHoldsFiltersBeforeInputChannels) {
  Conv3DTranspose deconv(5, {3, 2, 1}, {.use_bias = false, .name = "d"});
  auto y = deconv(Input({2, 3, 4, 6}));
  ASSERT_EQ(deconv.weights().size(), 1u);
  EXPECT_EQ(deconv.weights()[0].shape(), (Shape{3, 2, 1, 5, 6}));
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, 4, 4, 4, 5}));
}

TEST(Conv3DTranspose, RefusesOutputPaddingNotBelowTheStride) {
  EXPECT_THROW_WITH(Conv3DTranspose(2, 3, {.strides = {2, 2, 1}, .output_padding = IntTriple{1, 1, 1}}), ValueError,
                    "Conv3DTranspose", "output_padding must be non-negative and strictly less than strides",
                    "output_padding 1 and strides 1 on axis 2");
}

TEST(Conv3DTranspose, RefusesSameOutputPaddingWhoseForwardConvolutionIsNotTheInput) {
  // Keras on TensorFlow fails here too (at run time): an even kernel with output_padding 0
  // gives (in − 1)·s cells, which a stride-2 "same" convolution maps to in − 1.
  EXPECT_THROW_WITH(Conv3DTranspose(2, 4, {.strides = 2, .padding = "same", .output_padding = 0, .name = "t"})(
                        Input({3, 3, 3, 1})),
                    ShapeError, "Conv3DTranspose 't'", "output_padding 0", "gives 4 output cells",
                    "not the input's 3");
}

TEST(Conv1DTranspose, RefusesOutputPaddingNotBelowTheStrideAndInputOfOtherRanks) {
  EXPECT_THROW_WITH(Conv1DTranspose(2, 3, {.strides = 2, .output_padding = 2}), ValueError, "Conv1DTranspose",
                    "strictly less than strides");
  EXPECT_THROW_WITH(Conv1DTranspose(2, 3, {.name = "t1"})(Input({4, 4, 2})), ShapeError, "Conv1DTranspose 't1'",
                    "rank 3");
}

TEST(Conv1DTranspose, OutputLengthFollowsKerasForEachPadding) {
  EXPECT_EQ(Conv1DTranspose(2, 3, {.strides = 2})(Input({4, 1})).shape(), (Shape{kUnknownDim, 9, 2}));
  EXPECT_EQ(Conv1DTranspose(2, 2, {.strides = 3})(Input({4, 1})).shape(), (Shape{kUnknownDim, 12, 2}));
  EXPECT_EQ(Conv1DTranspose(2, 3, {.strides = 2, .padding = "same"})(Input({4, 1})).shape(), (Shape{kUnknownDim, 8, 2}));
  EXPECT_EQ(Conv1DTranspose(2, 3, {.strides = 2, .output_padding = 1})(Input({4, 1})).shape(),
            (Shape{kUnknownDim, 10, 2}));
}

TEST(MaxPooling3D, RefusesAPoolDeeperThanTheInput) {
  EXPECT_THROW_WITH(MaxPooling3D({3, 1, 1}, {.name = "p"})(Input({2, 4, 4, 1})), ShapeError, "MaxPooling3D 'p'",
                    "(None, 2, 4, 4, 1)", "pool_size (3, 1, 1) is larger than the input's (depth, rows, cols) (2, 4, 4)");
}

TEST(AveragePooling3D, StridesDefaultToThePoolSize) {
  AveragePooling3D pool({2, 1, 3});
  EXPECT_EQ(pool(Input({4, 5, 6, 2})).shape(), (Shape{kUnknownDim, 2, 5, 2, 2}));
  EXPECT_EQ(static_cast<const PoolingImpl<3>&>(pool.impl()).options.strides, (IntTriple{2, 1, 3}));
}

TEST(Cropping3D, RefusesCroppingAWholeAxis) {
  EXPECT_THROW_WITH(Cropping3D({{1, 1}, {0, 0}, {0, 0}}, {.name = "k"})(Input({2, 4, 4, 1})), ShapeError,
                    "Cropping3D 'k'", "cannot crop 1 + 1 elements from an axis of 2");
}

TEST(ZeroPadding3D, RefusesNegativeAmountsAndOtherRanks) {
  EXPECT_THROW_WITH(ZeroPadding3D({1, -1, 0}), ValueError, "amounts must be non-negative");
  EXPECT_THROW_WITH(ZeroPadding3D(1, {.name = "z"})(Input({2, 2, 2})), ShapeError, "ZeroPadding3D 'z'", "rank 5");
}

TEST(UpSampling3D, RefusesSizesBelowOne) {
  EXPECT_THROW_WITH(UpSampling3D({1, 0, 1}), ValueError, "size must be positive");
}

TEST(GlobalPooling3D, ReducesTheThreeSpatialAxes) {
  EXPECT_EQ(GlobalMaxPooling3D()(Input({2, 3, 4, 5})).shape(), (Shape{kUnknownDim, 5}));
  EXPECT_EQ(GlobalAveragePooling3D({.data_format = "channels_first", .keepdims = true})(Input({2, 3, 4, 5})).shape(),
            (Shape{kUnknownDim, 2, 1, 1, 1}));
  EXPECT_THROW_WITH(GlobalAveragePooling3D({.name = "g"})(Input({3, 4, 5})), ShapeError, "GlobalAveragePooling3D 'g'");
}

}  // namespace
}  // namespace strata::conv3d_layers_test
