// GroupQueryAttention in models saved by real Keras 3
// (tests/reference/make_group_query_attention_goldens.py: tests/data/group_query_attention/):
// a causal block with a residual and LayerNormalization, and a gated multi-query layer
// returning its scores. They load from .keras and .h5 and predict what Keras predicted, and
// come back the same when Strata saves them.
#include <gtest/gtest.h>

#include "keras_test_util.h"

namespace strata::group_query_attention_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/group_query_attention/";

class GroupQueryAttentionFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(GroupQueryAttentionFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, GetParam());
}

TEST_P(GroupQueryAttentionFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Keras3, GroupQueryAttentionFiles, ::testing::Values("gqa_block", "gqa_scores_gate"));

}  // namespace
}  // namespace strata::group_query_attention_files_test
