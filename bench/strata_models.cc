#include "bench/strata_models.h"

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
  }
  return Sequential({input});
}

}  // namespace strata::bench
