// Layers that change no time step pass a mask on, as Keras's do (supports_masking): Dense,
// Dropout and its spatial kinds, Identity, the activation layers, the normalizations that
// work per sample, the noise layers. A mask made by Embedding(mask_zero) therefore still
// reaches a pooling or recurrent layer after them.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "layers/activations/activation.h"
#include "layers/activations/elu.h"
#include "layers/activations/leaky_relu.h"
#include "layers/activations/prelu.h"
#include "layers/activations/relu.h"
#include "layers/core/dense.h"
#include "layers/core/embedding.h"
#include "layers/core/identity.h"
#include "layers/core/input_layer.h"
#include "layers/normalization/layer_normalization.h"
#include "layers/pooling/global_pooling.h"
#include "layers/recurrent/lstm.h"
#include "layers/regularization/dropout.h"
#include "layers/regularization/spatial_dropout.h"
#include "models/model.h"

namespace strata::mask_pass_through_test {
namespace {

constexpr std::int64_t kVocab = 9, kFeatures = 3;

// Three sequences of four ids, 0 for padding, and the steps each keeps.
Tensor padded_ids() { return Tensor::from_vector<std::int32_t>({3, 4}, {3, 5, 0, 0, 0, 2, 0, 7, 1, 4, 6, 8}); }
const std::vector<std::vector<std::int64_t>> kKeptSteps = {{0, 1}, {1, 3}, {0, 1, 2, 3}};

// GlobalAveragePooling1D after each layer averages the layer's outputs over the kept steps
// only; without the mask it would average over all four.
TEST(MaskPassThrough, PoolingAfterALayerThatChangesNoStepAveragesTheKeptSteps) {
  const Tensor x = padded_ids();
  const std::vector<std::pair<std::string, Layer>> cases = {
      {"Dense", layers::Dense(5)},
      {"Dropout", layers::Dropout(0.5)},
      {"SpatialDropout1D", layers::SpatialDropout1D(0.5)},
      {"Identity", layers::Identity()},
      {"Activation", layers::Activation("tanh")},
      {"ReLU", layers::ReLU()},
      {"LeakyReLU", layers::LeakyReLU()},
      {"ELU", layers::ELU()},
      {"PReLU", layers::PReLU()},
      {"LayerNormalization", layers::LayerNormalization()}};
  for (const auto& [label, layer] : cases) {
    auto ids = Input({4}, {.dtype = DType::int32});
    layers::Embedding embed(kVocab, kFeatures, {.mask_zero = true});
    KerasTensor steps = layer(embed(ids));
    Model per_step(ids, steps);
    Model pooled(ids, layers::GlobalAveragePooling1D()(steps));
    const Tensor z = per_step.predict(x, {.verbose = 0});
    const Tensor y = pooled.predict(x, {.verbose = 0});
    const std::int64_t features = z.shape()[2];
    for (std::int64_t s = 0; s < 3; ++s) {
      const auto& kept = kKeptSteps[static_cast<std::size_t>(s)];
      for (std::int64_t f = 0; f < features; ++f) {
        double sum = 0;
        for (std::int64_t t : kept) sum += z.item((s * 4 + t) * features + f);
        EXPECT_NEAR(y.item(s * features + f), sum / static_cast<double>(kept.size()), 1e-5)
            << label << ": sample " << s << ", feature " << f;
      }
    }
  }
}

// Embedding(mask_zero) -> Dense -> LSTM, the Dense an identity map: the LSTM skips the padded
// steps as it does right after the Embedding (Keras's Dense passes the mask on).
TEST(MaskPassThrough, AnLstmAfterADenseStillSkipsThePaddedSteps) {
  auto ids = Input({4}, {.dtype = DType::int32});
  layers::Embedding embed(kVocab, kFeatures, {.mask_zero = true});
  layers::Dense identity(kFeatures);
  layers::LSTM after_dense(5), after_embedding(5);
  Model through_dense(ids, after_dense(identity(embed(ids))));
  Model direct(ids, after_embedding(embed(ids)));
  std::vector<float> eye(kFeatures * kFeatures, 0.f);
  for (std::int64_t i = 0; i < kFeatures; ++i) eye[static_cast<std::size_t>(i * kFeatures + i)] = 1.f;
  identity.set_weights({Tensor::from_vector<float>({kFeatures, kFeatures}, eye), Tensor({kFeatures})});
  after_dense.set_weights(after_embedding.get_weights());
  const Tensor a = through_dense.predict(padded_ids(), {.verbose = 0});
  const Tensor b = direct.predict(padded_ids(), {.verbose = 0});
  ASSERT_EQ(a.shape(), b.shape());
  for (std::int64_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a.item(i), b.item(i), 1e-6) << i;
}

}  // namespace
}  // namespace strata::mask_pass_through_test
