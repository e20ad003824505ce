// Which models predict faster one sample at a time on each thread (core/samples_apart.h),
// and may: the rule is read from the model's layer calls once, when its predict Program is
// compiled.
#pragma once

namespace strata {

class ModelImpl;

// True when every call of the model (and of the models nested in it) is of a layer class
// known to compute each sample from that sample alone in inference, given as Keras has
// it, with options that keep it so (a Concatenate or LayerNormalization off the batch
// axis), and at least one call is a DepthwiseConv2D: the models measured to gain
// (MobileNetV2, EfficientNetB0; not ResNet50, ConvNeXtTiny or the Transformer block).
// Anything else (recurrent layers, whose products are one row per sample and gain from the
// batch; operation nodes; users' own classes, even subclasses of these) is false, and so is
// every model when the environment sets STRATA_SAMPLES_APART=0 (to measure against).
bool predicts_samples_apart(const ModelImpl& model);

}  // namespace strata
