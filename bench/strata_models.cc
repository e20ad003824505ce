#include "bench/strata_models.h"

#include <iterator>

namespace strata::bench {

namespace {

// The transformer workload's encoder block (Keras's text-classification tutorial's
// TransformerBlock without its feed-forward half): self-attention, a residual sum and
// layer normalization, then mean pooling over time and a classifier.
Model transformer_block(const KerasTensor& input, const Workload& w) {
  const std::int64_t dim = w.sample_shape[1];
  const KerasTensor attended = layers::MultiHeadAttention(w.units, dim / w.units)({input, input})[0];
  const KerasTensor normed = layers::LayerNormalization()(layers::Add()({input, attended})[0]);
  return Model(input, layers::Dense(w.classes)(layers::GlobalAveragePooling1D()(normed)));
}

// Conv2D without bias (the BatchNormalization after it has its own offset), then BN.
KerasTensor conv_bn(const KerasTensor& x, std::int64_t filters, std::int64_t kernel, std::int64_t stride = 1) {
  const KerasTensor y =
      layers::Conv2D(filters, kernel, {.strides = stride, .padding = "same", .use_bias = false})(x);
  return layers::BatchNormalization()(y);
}

KerasTensor relu(const KerasTensor& x) { return layers::Activation("relu")(x); }
KerasTensor relu6(const KerasTensor& x) { return layers::Activation("relu6")(x); }
KerasTensor add(const KerasTensor& a, const KerasTensor& b) { return layers::Add()({a, b})[0]; }

// The CIFAR ResNet-20 (workload.h): basic blocks with a projection shortcut where the
// shape changes.
Model resnet20(const KerasTensor& input, const Workload& w) {
  KerasTensor x = relu(conv_bn(input, kResNet20Filters[0], 3));
  for (std::size_t stage = 0; stage < std::size(kResNet20Filters); ++stage) {
    const std::int64_t filters = kResNet20Filters[stage];
    for (int block = 0; block < kResNet20BlocksPerStage; ++block) {
      const std::int64_t stride = stage > 0 && block == 0 ? 2 : 1;
      const KerasTensor shortcut = stride == 1 ? x : conv_bn(x, filters, 1, stride);
      const KerasTensor y = conv_bn(relu(conv_bn(x, filters, 3, stride)), filters, 3);
      x = relu(add(y, shortcut));
    }
  }
  return Model(input, layers::Dense(w.classes)(layers::GlobalAveragePooling2D()(x)));
}

// A small MobileNetV2 (workload.h): inverted residual blocks.
Model mobilenet_small(const KerasTensor& input, const Workload& w) {
  KerasTensor x = relu6(conv_bn(input, kMobileNetSmallStem, 3));
  std::int64_t channels = kMobileNetSmallStem;
  for (const InvertedResidual& b : kMobileNetSmallBlocks) {
    KerasTensor y = b.expansion == 1 ? x : relu6(conv_bn(x, channels * b.expansion, 1));
    y = layers::DepthwiseConv2D(3, {.strides = b.stride, .padding = "same", .use_bias = false})(y);
    y = conv_bn(relu6(layers::BatchNormalization()(y)), b.filters, 1);
    x = b.stride == 1 && channels == b.filters ? add(x, y) : y;
    channels = b.filters;
  }
  x = relu6(conv_bn(x, kMobileNetSmallHead, 1));
  return Model(input, layers::Dense(w.classes)(layers::GlobalAveragePooling2D()(x)));
}

}  // namespace

Model build_strata_model(const Workload& w) {
  const KerasTensor input = layers::Input(Shape(w.sample_shape));
  switch (w.kind) {
    case Kind::mlp:
      return Sequential({input, layers::Dense(w.units, {.activation = "relu"}),
                         layers::Dense(w.units, {.activation = "relu"}), layers::Dense(w.classes)});
    case Kind::lstm:
      return Sequential({input, layers::LSTM(w.units), layers::Dense(w.classes)});
    case Kind::bilstm:
      return Sequential({input, layers::Bidirectional(layers::LSTM(w.units)), layers::Dense(w.classes)});
    case Kind::cnn:
      return Sequential({input, layers::Conv2D(32, 3, {.activation = "relu"}), layers::MaxPooling2D(2),
                         layers::Conv2D(64, 3, {.activation = "relu"}), layers::MaxPooling2D(2), layers::Flatten(),
                         layers::Dropout(0.5), layers::Dense(w.classes)});
    case Kind::dense:
      return Sequential({input, layers::Dense(w.units)});
    case Kind::transformer:
      return transformer_block(input, w);
    case Kind::resnet20:
      return resnet20(input, w);
    case Kind::mobilenet_small:
      return mobilenet_small(input, w);
  }
  return Sequential({input});
}

}  // namespace strata::bench
