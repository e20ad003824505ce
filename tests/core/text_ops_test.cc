// text_vectorize (core/ops/text_ops.h), TextVectorization's op: forward values against
// the definition of each output mode and row layout, no gradient, and the CPU as its only
// device. Keras's own numbers for the layer: tests/layers/text_vectorization_test.cc.
#include <gtest/gtest.h>

#include <limits>
#include <memory>

#include "core/op_registry.h"
#include "core/ops/lookup_ops.h"
#include "core/ops/text_ops.h"
#include "core/string_pool.h"
#include "op_cases.h"

namespace strata::testing::text_ops_test {
namespace {

using V = const std::vector<Output>&;

// TextVectorization's layout over {"a", "b", "c"}: "" (mask) 0, "[UNK]" 1, tokens from 2
// ("int"), or "[UNK]" 0 and tokens from 1 with the mask encoding to nothing.
std::shared_ptr<IndexLookupTable> table_for(const std::string& mode) {
  auto t = std::make_shared<IndexLookupTable>();
  t->string_tokens = {intern_string("a"), intern_string("b"), intern_string("a b")};
  const bool int_mode = mode == "int";
  t->oov_start = int_mode ? 1 : 0;
  t->num_oov = 1;
  t->token_start = t->oov_start + 1;
  t->has_mask = true;
  t->string_mask = intern_string("");
  t->mask_output = int_mode ? 0 : std::numeric_limits<std::int64_t>::max();
  t->string_oov_token = intern_string("[UNK]");
  t->index_tokens();
  if (mode == "tf_idf") t->idf_weights = {0.5f, 1.f, 2.f, 4.f};
  return t;
}

Tensor run(const std::string& mode, ops::TextVectorizeOptions o, const Tensor& x) {
  TableHandle table;
  table.set(table_for(mode));
  o.output_mode = mode;
  return evaluate([&](Graph&, V in) { return ops::text_vectorize(in[0], table, o); }, {x});
}

void check_text_vectorize() {
  const Tensor docs = Tensor::from_strings({3, 1}, {"A b, zz", "", "b  A b"});
  EXPECT_EQ(run("int", {.sequence_length = 4}, docs).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, 3, 1, 0, 0, 0, 0, 0, 3, 2, 3, 0}));
  EXPECT_EQ(run("int", {.ngrams = {2}, .sequence_length = 2}, docs).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{4, 1, 0, 0, 1, 4}));
  EXPECT_EQ(run("count", {.depth = 4}, docs).to_vector<float>(),
            (std::vector<float>{1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 2, 0}));
  EXPECT_EQ(run("multi_hot", {.depth = 4}, docs).to_vector<float>(),
            (std::vector<float>{1, 1, 1, 0, 0, 0, 0, 0, 0, 1, 1, 0}));
  EXPECT_EQ(run("tf_idf", {.depth = 4}, docs).to_vector<float>(),
            (std::vector<float>{0.5f, 1, 2, 0, 0, 0, 0, 0, 0, 1, 4, 0}));
  // split None: each string is a token; "int" keeps the shape, the mask "" is 0.
  const Tensor words = Tensor::from_strings({2, 2}, {"a", "", "B", "zz"});
  const Tensor same = run("int", {.standardize = "", .split = ""}, words);
  EXPECT_EQ(same.shape(), (Shape{2, 2}));
  EXPECT_EQ(same.to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 0, 1, 1}));
  EXPECT_EQ(run("multi_hot", {.split = "", .depth = 4}, words).to_vector<float>(),
            (std::vector<float>{0, 1, 0, 0, 1, 0, 1, 0}));
  Graph g;
  TableHandle table;
  EXPECT_THROW(ops::text_vectorize(g.placeholder({Shape{2, 2}, DType::string}), table, {.sequence_length = 3}),
               ValueError);  // a split needs one string per row
  EXPECT_THROW(ops::text_vectorize(g.placeholder({Shape{2, 1}, DType::float32}), table, {.sequence_length = 3}),
               ValueError);
  EXPECT_THROW(ops::text_vectorize(g.placeholder({Shape{2, 1}, DType::string}), table, {.ngrams = {0}}), ValueError);
}

const RegisterOpCases text_cases({{"text_vectorize", OpCase{{}, check_text_vectorize, ""}}});

}  // namespace
}  // namespace strata::testing::text_ops_test

TEST(TextOps, HaveNoGradientAndRunOnTheCpuOnly) {
  const strata::OpDef& def = strata::OpRegistry::global().get("text_vectorize");
  EXPECT_FALSE(def.differentiable);
  EXPECT_TRUE(def.takes_strings);
  EXPECT_NE(def.kernel(strata::DeviceType::cpu), nullptr);
  EXPECT_EQ(def.kernel(strata::DeviceType::cuda), nullptr);  // by design, as the other preprocessing ops
}
