#include "models/samples_apart.h"

#include <cstdlib>
#include <string_view>
#include <typeinfo>

#include "layers/activations/activation.h"
#include "layers/activations/relu.h"
#include "layers/attention/multi_head_attention.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/depthwise_conv2d.h"
#include "layers/convolutional/separable_conv2d.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "layers/core/layer_scale.h"
#include "layers/merging/concatenate.h"
#include "layers/merging/merge.h"
#include "layers/normalization/batch_normalization.h"
#include "layers/normalization/layer_normalization.h"
#include "layers/pooling/global_pooling.h"
#include "layers/pooling/pooling.h"
#include "layers/preprocessing/normalization.h"
#include "layers/preprocessing/rescaling.h"
#include "layers/regularization/dropout.h"
#include "layers/reshaping/flatten.h"
#include "layers/reshaping/reshape.h"
#include "layers/reshaping/spatial_padding.h"
#include "models/model.h"
#include "models/sequential.h"

namespace strata {

namespace {

template <class T>
bool is(const LayerImpl& layer) {
  return typeid(layer) == typeid(T);  // exactly: a subclass may compute anything
}

// Depthwise convolutions: their models (MobileNet, EfficientNet) pass every image's large
// activations through steps of little arithmetic each (the depthwise convolutions, 1×1
// ones of few channels), which at a batch of 32 wait on memory. Measured
// (docs/performance.md, "Samples apart"): MobileNetV2 and EfficientNetB0 at batch 32 gain
// 1.15-1.25× the throughput; ConvNeXtTiny and the Transformer block, whose products have
// rows enough too, gain nothing beyond the noise, and ResNet50 loses about 5% (its 7×7
// stage's products want the batch's rows), so convolutions and attention alone do not
// qualify.
bool gains_apart(const LayerImpl& l) { return is<layers::DepthwiseConv2DImpl>(l); }

bool off_the_batch_axis(int axis) { return axis >= 1 || axis == -1; }

// Each sample from that sample alone, in inference, for every option these classes take
// (except those checked here).
bool per_sample(const LayerImpl& l) {
  if (const auto* c = dynamic_cast<const layers::ConcatenateImpl*>(&l); c && is<layers::ConcatenateImpl>(l))
    return off_the_batch_axis(c->axis);
  if (const auto* n = dynamic_cast<const layers::LayerNormalizationImpl*>(&l);
      n && is<layers::LayerNormalizationImpl>(l)) {
    for (const std::int64_t a : n->options.axis)
      if (!off_the_batch_axis(static_cast<int>(a))) return false;
    return true;
  }
  return is<layers::ConvImpl<1>>(l) || is<layers::ConvImpl<2>>(l) || is<layers::ConvImpl<3>>(l) ||
         is<layers::DepthwiseConv2DImpl>(l) || is<layers::SeparableConv2DImpl>(l) ||
         is<layers::MultiHeadAttentionImpl>(l) || is<InputLayerImpl>(l) || is<layers::DenseImpl>(l) ||
         is<layers::BatchNormalizationImpl>(l) || is<layers::ActivationImpl>(l) || is<layers::ReLUImpl>(l) ||
         is<layers::ElementwiseMergeImpl>(l) ||
         is<layers::GlobalPoolingImpl>(l) || is<layers::PoolingImpl<1>>(l) || is<layers::PoolingImpl<2>>(l) ||
         is<layers::PoolingImpl<3>>(l) || is<layers::SpatialPadImpl<1>>(l) || is<layers::SpatialPadImpl<2>>(l) ||
         is<layers::SpatialPadImpl<3>>(l) || is<layers::RescalingImpl>(l) || is<layers::NormalizationImpl>(l) ||
         is<layers::DropoutImpl>(l) || is<layers::ReshapeImpl>(l) || is<layers::FlattenImpl>(l) ||
         is<layers::LayerScaleImpl>(l);
}

struct Verdict {
  bool apart = true;
  bool gains = false;
};

void judge(const ModelImpl& model, Verdict& v) {
  for (const auto& call : model.calls) {
    if (!v.apart) return;
    const LayerImpl& l = call->layer.impl();
    if (is<ModelImpl>(l) || is<SequentialImpl>(l)) {
      judge(static_cast<const ModelImpl&>(l), v);
      continue;
    }
    if (!per_sample(l)) {
      v.apart = false;
      return;
    }
    v.gains = v.gains || gains_apart(l);
  }
}

}  // namespace

bool predicts_samples_apart(const ModelImpl& model) {
  static const char* const setting = std::getenv("STRATA_SAMPLES_APART");
  if (setting && std::string_view(setting) == "0") return false;
  if (!is<ModelImpl>(model) && !is<SequentialImpl>(model)) return false;
  Verdict v;
  judge(model, v);
  return v.apart && v.gains;
}

}  // namespace strata
