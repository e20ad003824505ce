// MultiHeadAttention and EinsumDense against real Keras 3:
// tests/data/multi_head_attention_golden.json
// (tests/reference/make_multi_head_attention_goldens.py): projections of every equation
// MultiHeadAttention uses and others; self, cross and keyed attention, value_dim,
// output_shape, no bias, causal, masks, returned scores, dropout configured. Outputs and
// gradients within 1e-5 (layer_golden_case.h); Keras's refusals are refusals here.
#include <gtest/gtest.h>

#include "golden_json.h"
#include "layer_golden_case.h"
#include "io/layer_config.h"
#include "layers/einsum_dense.h"
#include "layers/input_layer.h"
#include "layers/multi_head_attention.h"
#include "../io/test_util.h"

namespace strata {
namespace {

using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("multi_head_attention_golden.json"); }

class MultiHeadAttentionGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(MultiHeadAttentionGolden, MatchesKeras) {
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == GetParam()) return testing::expect_matches_keras_case(c);
  }
  FAIL() << "no case " << GetParam();
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, MultiHeadAttentionGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(MultiHeadAttentionErrors, KerasRefusalsAreRefusedWithKerassWords) {
  const auto& errors = goldens().at("errors");
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_THROW_WITH(layers::EinsumDense("abc,cd->abd", Shape{5})(Input({3, 4})), ValueError,
                    errors[0].at("message").get<std::string>());
  EXPECT_THROW_WITH(layers::EinsumDense("ab,bc->ac", Shape{4}, {.bias_axes = "x"}), ValueError,
                    errors[1].at("message").get<std::string>());
  EXPECT_THROW_WITH(layers::MultiHeadAttention(2, 3)({Input({3, 6}), Input({4, 5}), Input({5, 5})}), ShapeError,
                    errors[3].at("message").get<std::string>());
}

TEST(MultiHeadAttentionErrors, WhatStrataDoesNotDoIsRefusedByName) {
  EXPECT_THROW_WITH(layers::EinsumDense("...b,bc->...c", Shape{4}), NotImplementedError, "ellipses");
  EXPECT_THROW_WITH(layers::EinsumDense("abc,acd->abd", Shape{3, 4}), NotImplementedError, "batched kernel");
  EXPECT_THROW_WITH(layers::EinsumDense("ab,bc->ac", Shape{4, 2})(Input({3})), ValueError, "output_shape (4, 2) gives 2");
  EXPECT_THROW_WITH(layers::EinsumDense("abc,cd->bad", Shape{3, 5}), NotImplementedError, "the batch");
  EXPECT_THROW_WITH(layers::EinsumDense("ab,bc->ac", Shape{4}, {.bias_axes = ""}), ValueError, "bias_axes is empty");
  EXPECT_THROW_WITH(layers::MultiHeadAttention(2, 3, {.name = "mha"})({Input({2, 3, 6}), Input({2, 3, 6})}),
                    NotImplementedError, "MultiHeadAttention 'mha'", "(batch, T, dim)");
  // A build that fails part way (the key's dim unknown) leaves no projection behind.
  layers::MultiHeadAttention half(2, 3);
  EXPECT_THROW(half({Input({3, 6}), Input({4, 6}), Input({4, kUnknownDim})}), ShapeError);
  EXPECT_TRUE(half.weights().empty());
  EXPECT_THROW_WITH(io::layer_from_config(ordered_json{{"class_name", "Attention"}, {"config", {{"causal", true}}}}, {}),
                    NotImplementedError, "'causal' = true", "use_causal_mask");
  EXPECT_THROW_WITH(layers::MultiHeadAttention(0, 3), ValueError, "num_heads");
  EXPECT_THROW_WITH(layers::MultiHeadAttention(2, 3).call_with({Input({3, 6}), Input({3, 6})}, {{"training", true}}),
                    ValueError, "takes no call argument 'training'");
}

// The projections are sublayers: their weights are the layer's, in Keras's order, and a
// freshly built layer draws its kernels with Keras's fans (Glorot over the summed and
// kept axes: dim 6 in, heads x key_dim = 6 out gives a limit of 1).
TEST(MultiHeadAttention, ProjectionsAreSublayersWithKerasWeightNamesAndFans) {
  layers::MultiHeadAttention mha(2, 3, {.name = "mha"});
  mha({Input({4, 6}), Input({4, 6})});
  std::vector<std::string> paths;
  for (const auto& v : mha.weights()) paths.push_back(v.path());
  EXPECT_EQ(paths, (std::vector<std::string>{"mha/query/kernel", "mha/query/bias", "mha/key/kernel", "mha/key/bias",
                                             "mha/value/kernel", "mha/value/bias", "mha/attention_output/kernel",
                                             "mha/attention_output/bias"}));
  const Tensor kernel = mha.weights()[0].value();
  EXPECT_EQ(kernel.shape(), (Shape{6, 2, 3}));
  float largest = 0;
  for (std::int64_t i = 0; i < kernel.size(); ++i) largest = std::max(largest, std::fabs(kernel.item(i)));
  EXPECT_LE(largest, 1.0f);
  EXPECT_GT(largest, 0.5f);  // 36 draws from U(-1, 1)
}

}  // namespace
}  // namespace strata
