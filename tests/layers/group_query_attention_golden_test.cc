// GroupQueryAttention against real Keras 3: tests/data/group_query_attention_golden.json
// (tests/reference/make_group_query_attention_goldens.py): grouped, multi-query and
// one-head-per-query-head attention, a separate key, no bias, the gate, causal, masks on
// the inputs and passed with the call, returned scores, dropout configured, sliding
// windows (self, causal, cross with masks, returned scores). Outputs and
// gradients within 1e-5 (layer_golden_case.h); Keras's refusals are refusals here.
#include <gtest/gtest.h>

#include "../io/test_util.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layer_golden_case.h"
#include "layers/attention/group_query_attention.h"
#include "layers/core/input_layer.h"
#include "models/model.h"

namespace strata::group_query_attention_golden_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("group_query_attention_golden.json"); }

class GroupQueryAttentionGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(GroupQueryAttentionGolden, MatchesKeras) {
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

INSTANTIATE_TEST_SUITE_P(Keras3, GroupQueryAttentionGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(GroupQueryAttentionErrors, KerasRefusalsAreRefusedWithKerassWords) {
  const auto& errors = goldens().at("errors");
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_THROW_WITH(layers::GroupQueryAttention(2, 3, 2), ValueError, errors[0].at("message").get<std::string>());
  // Keras: "The last dimension of `query_shape` and `value_shape` must be equal, but are 6, 5. ..."
  const std::string keras = errors[1].at("message").get<std::string>();
  EXPECT_THROW_WITH(layers::GroupQueryAttention(2, 2, 1)({Input({3, 6}), Input({4, 5})}), ValueError,
                    keras.substr(keras.find("The last"), keras.find(". Received") - keras.find("The last")));
}

// flash_attention=true selects no other computation (Strata has one attention kernel): it
// builds and runs, with Keras's restrictions, ValueErrors in Keras's words.
TEST(GroupQueryAttention, FlashAttentionKeepsKerassRestrictions) {
  auto x = Input({4, 6});
  Model m(x, layers::GroupQueryAttention(3, 4, 2, {.flash_attention = true})({x, x})[0]);
  EXPECT_EQ(m.predict(Tensor(Shape{2, 4, 6})).shape(), (Shape{2, 4, 6}));
  EXPECT_THROW_WITH(layers::GroupQueryAttention(2, 2, 1, {.dropout = 0.1, .flash_attention = true}), ValueError,
                    "Dropout is not supported when flash attention is enabled");
  EXPECT_THROW_WITH(layers::GroupQueryAttention(2, 2, 1, {.flash_attention = true})
                        .call_with({Input({3, 4}), Input({3, 4})}, {{"return_attention_scores", true}}),
                    ValueError, "Returning attention scores is not supported when flash attention is enabled");
}

TEST(GroupQueryAttentionErrors, WhatStrataDoesNotDoIsRefusedByName) {
  EXPECT_THROW_WITH(layers::GroupQueryAttention(2, 2, 1, {.sliding_window = 0}), ValueError,
                    "`sliding_window` must be `None` or a positive integer");
  ordered_json config = goldens().at("cases")[0].at("config");
  config["flash_attention"] = true;
  EXPECT_THROW_WITH(io::layer_from_config(ordered_json{{"class_name", "GroupQueryAttention"}, {"config", config}}, {}),
                    NotImplementedError, "'flash_attention' = true", "not one Strata reads");
  EXPECT_THROW_WITH(layers::GroupQueryAttention(2, 2, 1)({Input({2, 3, 6}), Input({2, 3, 6})}), NotImplementedError,
                    "(batch, T, dim)");
}

// Keras names a fresh layer after its Python class, and its weights after the projections.
TEST(GroupQueryAttention, DefaultNameAndWeightsAreKeras) {
  clear_session();
  layers::GroupQueryAttention gqa(3, 4, 2, {.use_gate = true});
  gqa({Input({4, 6}), Input({5, 6})});
  EXPECT_EQ(gqa.name(), "grouped_query_attention");
  std::vector<std::string> paths;
  std::vector<Shape> shapes;
  for (const auto& v : gqa.weights()) {
    paths.push_back(v.path().substr(gqa.name().size() + 1));
    shapes.push_back(v.value().shape());
  }
  EXPECT_EQ(paths, (std::vector<std::string>{"query/kernel", "query/bias", "key/kernel", "key/bias", "gate/kernel",
                                             "gate/bias", "value/kernel", "value/bias", "attention_output/kernel",
                                             "attention_output/bias"}));
  EXPECT_EQ(shapes[0], (Shape{6, 4, 3}));
  EXPECT_EQ(shapes[2], (Shape{6, 2, 3}));
  EXPECT_EQ(shapes[8], (Shape{4, 3, 6}));
}

}  // namespace
}  // namespace strata::group_query_attention_golden_test
