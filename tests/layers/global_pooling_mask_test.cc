// GlobalAveragePooling1D averages over the steps a mask keeps, as Keras does
// (sum(x · mask) / sum(mask) over the steps); GlobalMaxPooling1D ignores masks, as Keras's.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "layers/core/embedding.h"
#include "layers/pooling/global_pooling.h"
#include "layers/core/input_layer.h"
#include "models/model.h"

namespace strata::global_pooling_mask_test {
namespace {

constexpr std::int64_t kVocab = 9, kFeatures = 3;

// The embedding row of token `id`.
std::vector<float> row(const Tensor& table, std::int64_t id) {
  return {table.data<float>() + id * kFeatures, table.data<float>() + (id + 1) * kFeatures};
}

TEST(GlobalPoolingMasks, AverageOverTheStepsTheEmbeddingMaskKeeps) {
  auto ids = Input({4}, {.dtype = DType::int32});
  layers::Embedding embed(kVocab, kFeatures, {.mask_zero = true});
  Model average(ids, layers::GlobalAveragePooling1D()(embed(ids)));
  Model kept(ids, layers::GlobalAveragePooling1D({.keepdims = true})(embed(ids)));
  const Tensor table = embed.get_weights()[0];
  const Tensor x = Tensor::from_vector<std::int32_t>({3, 4}, {3, 5, 0, 0, 0, 2, 0, 7, 1, 4, 6, 8});
  const Tensor y = average.predict(x, {.verbose = 0});
  ASSERT_EQ(y.shape(), (Shape{3, kFeatures}));
  const std::vector<std::vector<std::int64_t>> kept_ids = {{3, 5}, {2, 7}, {1, 4, 6, 8}};
  for (std::int64_t s = 0; s < 3; ++s) {
    for (std::int64_t f = 0; f < kFeatures; ++f) {
      float sum = 0;
      for (std::int64_t id : kept_ids[static_cast<std::size_t>(s)]) sum += row(table, id)[static_cast<std::size_t>(f)];
      const float expected = sum / static_cast<float>(kept_ids[static_cast<std::size_t>(s)].size());
      EXPECT_NEAR(y.item(s * kFeatures + f), expected, 1e-6f) << "sample " << s << ", feature " << f;
    }
  }
  const Tensor y_kept = kept.predict(x, {.verbose = 0});
  ASSERT_EQ(y_kept.shape(), (Shape{3, 1, kFeatures}));
  for (std::int64_t i = 0; i < 3 * kFeatures; ++i) EXPECT_NEAR(y_kept.item(i), y.item(i), 1e-6f) << i;
}

TEST(GlobalPoolingMasks, AnAllMaskedSampleAveragesToNaNAsInKeras) {
  auto ids = Input({3}, {.dtype = DType::int32});
  layers::Embedding embed(kVocab, kFeatures, {.mask_zero = true});
  Model m(ids, layers::GlobalAveragePooling1D()(embed(ids)));
  const Tensor y = m.predict(Tensor::from_vector<std::int32_t>({2, 3}, {0, 0, 0, 4, 0, 0}), {.verbose = 0});
  for (std::int64_t f = 0; f < kFeatures; ++f) {
    EXPECT_TRUE(std::isnan(y.item(f))) << "0 / 0 in feature " << f;
    EXPECT_NEAR(y.item(kFeatures + f), row(embed.get_weights()[0], 4)[static_cast<std::size_t>(f)], 1e-6f);
  }
}

TEST(GlobalPoolingMasks, MaxPoolingIgnoresTheMask) {
  auto ids = Input({3}, {.dtype = DType::int32});
  layers::Embedding embed(kVocab, kFeatures, {.mask_zero = true});
  Model m(ids, layers::GlobalMaxPooling1D()(embed(ids)));
  const Tensor table = embed.get_weights()[0];
  const Tensor y = m.predict(Tensor::from_vector<std::int32_t>({1, 3}, {2, 0, 0}), {.verbose = 0});
  for (std::int64_t f = 0; f < kFeatures; ++f) {
    const float expected = std::max(row(table, 2)[static_cast<std::size_t>(f)], row(table, 0)[static_cast<std::size_t>(f)]);
    EXPECT_EQ(y.item(f), expected) << "Keras's GlobalMaxPooling1D takes no mask: padded steps count";
  }
}

}  // namespace
}  // namespace strata::global_pooling_mask_test
