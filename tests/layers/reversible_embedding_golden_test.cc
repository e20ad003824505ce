// ReversibleEmbedding against real Keras 3: tests/data/reversible_embedding_golden.json
// (tests/reference/make_reversible_embedding_goldens.py): the forward call (mask_zero,
// untied), the reverse call tied, untied, soft-capped and in reverse_dtype bfloat16 and
// float16 (emulated: every op rounded). Outputs and gradients within 1e-5
// (layer_golden_case.h).
#include <gtest/gtest.h>

#include "../io/test_util.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layer_golden_case.h"
#include "layers/core/input_layer.h"
#include "layers/core/reversible_embedding.h"

namespace strata::reversible_embedding_golden_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("reversible_embedding_golden.json"); }

class ReversibleEmbeddingGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ReversibleEmbeddingGolden, MatchesKeras) {
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

INSTANTIATE_TEST_SUITE_P(Keras3, ReversibleEmbeddingGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(ReversibleEmbedding, TheReverseCallMapsVectorsToScoresOverTheVocabularyWithoutAMask) {
  layers::ReversibleEmbedding emb(9, 4, {.mask_zero = true, .name = "emb"});
  auto ids = Input({5});
  auto h = emb(ids);
  EXPECT_EQ(h.shape(), (Shape{kUnknownDim, 5, 4}));
  auto logits = emb.reverse(h);
  EXPECT_EQ(logits.shape(), (Shape{kUnknownDim, 5, 9}));
  EXPECT_EQ(emb.weights().size(), 1u);  // tied: one table for both directions
  layers::ReversibleEmbedding untied(9, 4, {.tie_weights = false, .name = "untied"});
  untied(ids);
  ASSERT_EQ(untied.weights().size(), 2u);
  EXPECT_EQ(untied.weights()[1].path(), "untied/reverse_embeddings");
  EXPECT_EQ(untied.weights()[1].value().shape(), (Shape{4, 9}));
}

TEST(ReversibleEmbedding, WhatStrataDoesNotDoIsRefusedByName) {
  // float64 (and integer dtypes): Strata computes no float64.
  EXPECT_THROW_WITH(layers::ReversibleEmbedding(9, 4, {.reverse_dtype = "float64", .name = "emb"}),
                    NotImplementedError, "ReversibleEmbedding 'emb'", "reverse_dtype \"float64\"");
  for (const char* dtype : {"float32", "bfloat16", "float16"}) {
    EXPECT_NO_THROW(layers::ReversibleEmbedding(9, 4, {.reverse_dtype = std::string(dtype)}));
  }
  layers::ReversibleEmbedding emb(9, 4, {.name = "emb"});
  EXPECT_THROW_WITH(emb.reverse(Input({5, 3})), ShapeError, "ReversibleEmbedding 'emb'", "output_dim 4");
  ordered_json config = goldens().at("cases")[0].at("config");
  config["quantization_config"] = ordered_json{{"mode", "int8"}};
  EXPECT_THROW_WITH(io::layer_from_config(ordered_json{{"class_name", "ReversibleEmbedding"}, {"config", config}}, {}),
                    NotImplementedError, "quantization_config");
  EXPECT_THROW_WITH(emb.call_with({Input({5})}, {{"training", true}}), ValueError, "training");
}

}  // namespace
}  // namespace strata::reversible_embedding_golden_test
