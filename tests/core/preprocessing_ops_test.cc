// The preprocessing ops (lookups, hashes, bucketing, categorical encoding): forward
// values against their definitions, and none has a gradient. Keras's own numbers for
// the layers built on them: tests/layers/preprocessing_golden_test.cc.
#include <gtest/gtest.h>

#include <memory>

#include "core/fingerprint.h"
#include "core/op_registry.h"
#include "core/ops/hash_ops.h"
#include "core/ops/lookup_ops.h"
#include "core/ops/one_hot.h"
#include "core/string_pool.h"
#include "op_cases.h"

namespace strata::testing::preprocessing_ops_test {
namespace {

using V = const std::vector<Output>&;

Tensor strings(Shape shape, std::vector<std::string> v) { return Tensor::from_strings(std::move(shape), v); }

// A vocabulary {"a", "b", "c"} with one OOV index and "" as the mask.
std::shared_ptr<IndexLookupTable> abc_table() {
  auto t = std::make_shared<IndexLookupTable>();
  t->string_tokens = {intern_string("a"), intern_string("b"), intern_string("c")};
  t->oov_start = 1;
  t->num_oov = 1;
  t->token_start = 2;
  t->has_mask = true;
  t->string_mask = intern_string("");
  t->string_oov_token = intern_string("[UNK]");
  t->index_tokens();
  return t;
}

void check_index_lookup() {
  TableHandle table;
  table.set(abc_table());
  auto lookup = [&](Graph&, V x) { return ops::index_lookup(x[0], table, DType::string); };
  EXPECT_EQ(evaluate(lookup, {strings({2, 3}, {"a", "c", "zz", "", "b", "A"})}).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2, 4, 1, 0, 3, 1}));
  // Several OOV indices: an unknown token's slot is its FarmHash modulo their count.
  auto many = abc_table();
  many->num_oov = 3;
  many->token_start = 4;
  many->index_tokens();
  table.set(many);
  EXPECT_EQ(evaluate(lookup, {strings({2}, {"b", "zz"})}).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{5, 1 + static_cast<std::int64_t>(fingerprint64("zz") % 3)}));
  Graph g;
  EXPECT_THROW(ops::index_lookup(g.placeholder({Shape{2}, DType::float32}), table, DType::string), ValueError);
}

void check_index_lookup_invert() {
  TableHandle table;
  table.set(abc_table());
  auto invert = [&](Graph&, V x) { return ops::index_lookup_invert(x[0], table, DType::string); };
  EXPECT_EQ(evaluate(invert, {tensor<std::int64_t>({6}, {0, 1, 2, 3, 4, 9})}).to_strings(),
            (std::vector<std::string>{"", "[UNK]", "a", "b", "c", "[UNK]"}));
}

void check_bucketize() {
  TableHandle table;
  auto b = std::make_shared<BoundariesTable>();
  b->boundaries = {0.f, 1.f, 1.f, 5.f};
  table.set(b);
  auto bucketize = [&](Graph&, V x) { return ops::bucketize(x[0], table); };
  // The bucket is how many boundaries are <= x (np.digitize).
  EXPECT_EQ(evaluate(bucketize, {tensor<float>({6}, {-1.f, 0.f, 0.5f, 1.f, 4.9f, 7.f})}).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 1, 1, 3, 3, 4}));
  TableHandle empty;
  EXPECT_THROW(evaluate([&](Graph&, V x) { return ops::bucketize(x[0], empty); }, {tensor<float>({1}, {0.f})}),
               ValueError);
}

void check_tf_idf_weigh() {
  TableHandle table;
  auto t = abc_table();
  t->idf_weights = {0.f, 0.5f, 1.f, 2.f, 4.f};  // mask, OOV, a, b, c
  table.set(t);
  auto weigh = [&](Graph&, V x) { return ops::tf_idf_weigh(x[0], table); };
  EXPECT_EQ(evaluate(weigh, {tensor<float>({2, 5}, {0, 1, 2, 0, 1, 0, 0, 0, 3, 1})}).to_vector<float>(),
            (std::vector<float>{0, 0.5f, 2, 0, 4, 0, 0, 0, 6, 4}));
  // Weights of another length than the encoding: an error naming the node when it runs.
  t->idf_weights.pop_back();
  EXPECT_THROW(evaluate(weigh, {tensor<float>({1, 5}, {1, 1, 1, 1, 1})}), ValueError);
}

void check_hash_bucket() {
  auto hashed = [](ops::HashBucketOptions o) { return [o](Graph&, V x) { return ops::hash_bucket(x[0], o); }; };
  const std::vector<std::string> words{"", "a", "héllo", std::string(100, 'q')};
  std::vector<std::int64_t> fast, strong, masked;
  for (const auto& w : words) {
    fast.push_back(static_cast<std::int64_t>(fingerprint64(w) % 13));
    strong.push_back(static_cast<std::int64_t>(siphash24(5, 9, w) % 13));
    masked.push_back(w == "a" ? 0 : 1 + static_cast<std::int64_t>(fingerprint64(w) % 12));
  }
  const Tensor x = strings({4}, words);
  EXPECT_EQ(evaluate(hashed({.num_bins = 13}), {x}).to_vector<std::int64_t>(), fast);
  EXPECT_EQ(evaluate(hashed({.num_bins = 13, .salt = std::pair<std::int64_t, std::int64_t>{5, 9}}), {x})
                .to_vector<std::int64_t>(),
            strong);
  EXPECT_EQ(evaluate(hashed({.num_bins = 13, .mask_value = std::string("a")}), {x}).to_vector<std::int64_t>(), masked);
  // Integers hash as decimal text; floats are truncated first.
  EXPECT_EQ(evaluate(hashed({.num_bins = 13}), {tensor<std::int64_t>({2}, {-7, 42})}).to_vector<std::int64_t>(),
            evaluate(hashed({.num_bins = 13}), {strings({2}, {"-7", "42"})}).to_vector<std::int64_t>());
  EXPECT_EQ(evaluate(hashed({.num_bins = 13}), {tensor<float>({2}, {-7.9f, 42.2f})}).to_vector<std::int64_t>(),
            evaluate(hashed({.num_bins = 13}), {strings({2}, {"-7", "42"})}).to_vector<std::int64_t>());
}

void check_hashed_cross() {
  auto cross = [](Graph&, V x) { return ops::hashed_cross(x, 1000); };
  const Tensor a = strings({2}, {"x", ""});
  const Tensor b = tensor<std::int64_t>({2}, {3, -4});
  std::vector<std::int64_t> want;
  for (int i = 0; i < 2; ++i) {
    const std::uint64_t h = fingerprint_cat64(fingerprint_cat64(0xDECAFCAFFEULL, fingerprint64(i ? "" : "x")),
                                              static_cast<std::uint64_t>(i ? -4 : 3));
    want.push_back(static_cast<std::int64_t>(h % 1000));
  }
  EXPECT_EQ(evaluate(cross, {a, b}).to_vector<std::int64_t>(), want);
  Graph g;
  EXPECT_THROW(ops::hashed_cross({g.placeholder({Shape{2}}), g.placeholder({Shape{2}, DType::int64})}, 5), ValueError);
}

void check_categorical_encode() {
  auto encode = [](const char* mode, std::int64_t depth) {
    return [=](Graph&, V x) { return ops::categorical_encode(x[0], depth, mode); };
  };
  const Tensor ids = tensor<std::int64_t>({2, 3}, {0, 2, 2, 3, 9, -1});
  EXPECT_EQ(evaluate(encode("multi_hot", 4), {ids}).to_vector<float>(),
            (std::vector<float>{1, 0, 1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(evaluate(encode("count", 4), {ids}).to_vector<float>(), (std::vector<float>{1, 0, 2, 0, 0, 0, 0, 1}));
  const Tensor column = tensor<std::int32_t>({3, 1}, {1, 0, 5});
  const Tensor one_hot = evaluate(encode("one_hot", 3), {column});
  EXPECT_EQ(one_hot.shape(), (Shape{3, 3}));  // the last axis of 1 is dropped
  EXPECT_EQ(one_hot.to_vector<float>(), (std::vector<float>{0, 1, 0, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(evaluate(encode("multi_hot", 3), {tensor<std::int64_t>({3}, {2, 2, 0})}).shape(), (Shape{3}));
}

const RegisterOpCases preprocessing_cases({
    {"index_lookup", OpCase{{}, check_index_lookup, ""}},
    {"index_lookup_invert", OpCase{{}, check_index_lookup_invert, ""}},
    {"bucketize", OpCase{{}, check_bucketize, ""}},
    {"tf_idf_weigh", OpCase{{}, check_tf_idf_weigh, ""}},
    {"hash_bucket", OpCase{{}, check_hash_bucket, ""}},
    {"hashed_cross", OpCase{{}, check_hashed_cross, ""}},
    {"categorical_encode", OpCase{{}, check_categorical_encode, ""}},
});

}  // namespace
}  // namespace strata::testing::preprocessing_ops_test

TEST(PreprocessingOps, HaveNoGradient) {
  for (const char* op : {"index_lookup", "index_lookup_invert", "tf_idf_weigh", "bucketize", "hash_bucket",
                         "hashed_cross", "categorical_encode"}) {
    EXPECT_FALSE(strata::OpRegistry::global().get(op).differentiable) << op;
  }
}
