// The string dtype and the preprocessing layers inside models: string tensors, ops that
// refuse strings when a graph is defined, training through a lookup, adapt after compile,
// and the layers' definition-time errors. Keras's numbers: preprocessing_golden_test.cc.
#include <gtest/gtest.h>

#include "core/autodiff.h"
#include "core/eager.h"
#include "core/fingerprint.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/program.h"
#include "core/string_pool.h"
#include "layers/preprocessing/category_encoding.h"
#include "layers/core/dense.h"
#include "layers/preprocessing/discretization.h"
#include "layers/core/embedding.h"
#include "layers/reshaping/flatten.h"
#include "layers/preprocessing/hashed_crossing.h"
#include "layers/preprocessing/hashing.h"
#include "layers/core/input_layer.h"
#include "layers/preprocessing/integer_lookup.h"
#include "layers/preprocessing/string_lookup.h"
#include "losses/crossentropy.h"
#include "models/model.h"
#include "optimizers/adam.h"

using namespace strata;

namespace preprocessing_test {

TEST(StringTensor, HoldsStringsAndZeroIsEmpty) {
  const std::vector<std::string> words{"a", "", "héllo", "日本語", std::string(300, 'x')};
  Tensor t = Tensor::from_strings({5}, words);
  EXPECT_EQ(t.dtype(), DType::string);
  EXPECT_EQ(t.nbytes(), 5u * sizeof(StringValue));
  EXPECT_EQ(t.to_strings(), words);
  EXPECT_EQ(Tensor({3}, DType::string).to_strings(), (std::vector<std::string>{"", "", ""}));
  EXPECT_THROW(t.item(0), ValueError);
  EXPECT_THROW(t.to_vector<float>(), ValueError);
}

TEST(StringTensor, CopiesSlicesAndGathersLikeAnyDtype) {
  Tensor t = Tensor::from_strings({4, 1}, {"w", "x", "y", "z"});
  EXPECT_EQ(t.slice_rows(1, 3).to_strings(), (std::vector<std::string>{"x", "y"}));
  const std::vector<std::int64_t> rows{3, 0, 3};
  EXPECT_EQ(t.gather_rows(rows).to_strings(), (std::vector<std::string>{"z", "w", "z"}));
  Tensor c = t.clone();
  c.data<StringValue>()[0] = intern_string("changed");
  EXPECT_EQ(t.to_strings()[0], "w");
  EXPECT_EQ(c.to_strings()[0], "changed");
}

TEST(StringPool, InternsEachValueOnce) {
  const std::size_t before = string_pool_size();
  const StringValue a = intern_string("a value only this test uses");
  const StringValue b = intern_string(std::string("a value only this test") + " uses");
  EXPECT_EQ(a.data, b.data);
  EXPECT_EQ(string_pool_size(), before + 1);
  EXPECT_EQ(intern_string("").data, nullptr);
}

TEST(StringTensor, ArithmeticRefusesStringsWhenTheGraphIsDefined) {
  Graph g;
  Output s = g.placeholder({Shape{kUnknownDim, 1}, DType::string});
  EXPECT_THROW(ops::add(s, s), ValueError);
  EXPECT_THROW(ops::cast(s, DType::float32), ValueError);
  EXPECT_THROW(ops::reduce_sum(s, {}, false), ValueError);
  // Ops that only move bytes take them.
  EXPECT_EQ(ops::concat({s, s}, 1).dtype(), DType::string);
  EXPECT_EQ(ops::reshape(s, {-1}).dtype(), DType::string);
}

TEST(StringLookup, IsNotDifferentiableAndNeedsNoGradient) {
  for (const char* op : {"index_lookup", "index_lookup_invert", "hash_bucket", "hashed_cross", "bucketize",
                         "categorical_encode"}) {
    EXPECT_FALSE(OpRegistry::global().get(op).differentiable) << op;
  }
}

TEST(StringLookup, EmbeddingModelOnStringsTrainsWithFit) {
  // Label: whether the word is a fruit. Only the embedding can learn it.
  const std::vector<std::string> words{"apple", "car", "pear", "bus", "plum", "train", "fig", "boat"};
  std::vector<std::string> xs;
  std::vector<float> ys;
  for (int i = 0; i < 64; ++i) {
    xs.push_back(words[static_cast<std::size_t>(i) % words.size()]);
    ys.push_back(i % 2 == 0 ? 1.f : 0.f);
  }
  auto in = Input({1}, {.dtype = DType::string});
  layers::StringLookup lookup;
  lookup.adapt(Tensor::from_strings({64}, xs));
  auto e = layers::Flatten()(layers::Embedding(lookup.vocabulary_size(), 4)(lookup(in)));
  Model model(in, layers::Dense(1, {.activation = "sigmoid"})(e));
  model.compile({.optimizer = optimizers::Adam({.learning_rate = 0.05}), .loss = losses::BinaryCrossentropy(),
                 .metrics = {"accuracy"}});
  const Tensor x = Tensor::from_strings({64, 1}, xs);
  const Tensor y = Tensor::from_vector<float>({64, 1}, ys);
  History h = model.fit(x, y, {.batch_size = 16, .epochs = 40, .verbose = 0});
  EXPECT_LT(h.history["loss"].back(), 0.1f * h.history["loss"].front());
  EXPECT_EQ(h.history["accuracy"].back(), 1.f);
  // A word never seen is the OOV index, and the model still runs.
  EXPECT_EQ(model.predict(Tensor::from_strings({1, 1}, {"never seen"})).shape(), (Shape{1, 1}));
}

TEST(StringLookup, AdaptAfterCompileIsSeenByTheCompiledModel) {
  auto in = Input({1}, {.dtype = DType::string});
  layers::StringLookup lookup;
  Model model(in, lookup(in));
  const Tensor x = Tensor::from_strings({2, 1}, {"b", "a"});
  EXPECT_EQ(model.predict(x).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0}));  // all OOV
  lookup.adapt(Tensor::from_strings({3}, {"a", "b", "b"}));
  EXPECT_EQ(model.predict(x).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2}));
}

TEST(IntegerLookup, FeedsCategoryEncodingIntoDense) {
  auto in = Input({2}, {.dtype = DType::int64});
  layers::IntegerLookup lookup({.vocabulary = std::vector<std::int64_t>{10, 20, 30}});
  auto encoded = layers::CategoryEncoding(4, {.output_mode = "count"})(lookup(in));
  EXPECT_EQ(encoded.shape(), (Shape{kUnknownDim, 4}));
  Model model(in, encoded);
  const Tensor x = Tensor::from_vector<std::int64_t>({2, 2}, {10, 10, 30, 99});
  EXPECT_EQ(model.predict(x).to_vector<float>(), (std::vector<float>{0, 2, 0, 0, 1, 0, 0, 1}));
}

TEST(StringLookup, RefusesWrongInputsWhenCalled) {
  layers::StringLookup lookup({.vocabulary = std::vector<std::string>{"a"}});
  EXPECT_THROW(lookup(Input({1}, {.dtype = DType::int64})), ValueError);
  layers::IntegerLookup ints({.vocabulary = std::vector<std::int64_t>{1}});
  EXPECT_THROW(ints(Input({1}, {.dtype = DType::string})), ValueError);
  EXPECT_THROW(layers::StringLookup({.output_mode = "tfidf"}), ValueError);
  EXPECT_THROW(layers::StringLookup({.invert = true, .output_mode = "one_hot"}), ValueError);
  EXPECT_THROW(layers::StringLookup({.vocabulary = std::vector<std::string>{"a", "b", "a"}}), ValueError);
  EXPECT_THROW(layers::CategoryEncoding(3)(Input({1}, {.dtype = DType::string})), ValueError);
}

TEST(StringLookup, NoOovIndicesRefusesUnknownTokensAtRunTime) {
  auto in = Input({1}, {.dtype = DType::string});
  layers::StringLookup lookup({.num_oov_indices = 0, .vocabulary = std::vector<std::string>{"a"}});
  Model model(in, lookup(in));
  EXPECT_EQ(model.predict(Tensor::from_strings({1, 1}, {"a"})).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0}));
  EXPECT_THROW(model.predict(Tensor::from_strings({1, 1}, {"b"})), ValueError);
}

TEST(Hashing, IntegersHashAsTheirDecimalText) {
  auto in = Input({1}, {.dtype = DType::int64});
  Model model(in, layers::Hashing(1000)(in));
  auto s = Input({1}, {.dtype = DType::string});
  Model strings(s, layers::Hashing(1000)(s));
  EXPECT_EQ(model.predict(Tensor::from_vector<std::int64_t>({2, 1}, {-42, 7})).to_vector<std::int64_t>(),
            strings.predict(Tensor::from_strings({2, 1}, {"-42", "7"})).to_vector<std::int64_t>());
  EXPECT_EQ(strings.predict(Tensor::from_strings({1, 1}, {"7"})).to_vector<std::int64_t>()[0],
            static_cast<std::int64_t>(fingerprint64("7") % 1000));
}

TEST(Discretization, AdaptNeedsNumBinsAndCallNeedsBoundaries) {
  EXPECT_THROW(layers::Discretization(), ValueError);
  layers::Discretization given({.bin_boundaries = std::vector<double>{0.0}});
  EXPECT_THROW(given.adapt(Tensor::from_vector<float>({2}, {1, 2})), ValueError);
  layers::Discretization unadapted({.num_bins = 3});
  EXPECT_THROW(unadapted(Input({1})), ValueError);
  unadapted.adapt(Tensor::from_vector<float>({6}, {0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(unadapted.bin_boundaries().size(), 2u);
}

TEST(HashedCrossing, RefusesFloatsAndUnequalShapes) {
  layers::HashedCrossing cross(10);
  EXPECT_THROW(cross({Input({1}), Input({1}, {.dtype = DType::int64})}), ValueError);
  EXPECT_THROW(cross({Input({1}, {.dtype = DType::int64}), Input({2}, {.dtype = DType::int64})}), ShapeError);
  EXPECT_EQ(cross({Input({1}, {.dtype = DType::string}), Input({1}, {.dtype = DType::int64})})[0].dtype(), DType::int64);
}

TEST(StringTensor, EagerOpsThatMoveBytesTakeStringsAndArithmeticRefuses) {
  const Tensor a = Tensor::from_strings({2, 1}, {"x", "héllo"});
  const Tensor b = Tensor::from_strings({1, 1}, {""});
  EXPECT_EQ(ops::concatenate({a, b}, 0).to_strings(), (std::vector<std::string>{"x", "héllo", ""}));
  EXPECT_EQ(ops::slice(a, {1, 0}, {1, 1}).to_strings(), (std::vector<std::string>{"héllo"}));
  EXPECT_EQ(ops::reshape(a, {-1}).shape(), (Shape{2}));
  EXPECT_EQ(ops::expand_dims(a, 0).shape(), (Shape{1, 2, 1}));
  EXPECT_THROW(ops::add(a, a), ValueError);
  EXPECT_THROW(ops::cast(a, DType::float32), ValueError);
}

}  // namespace preprocessing_test
