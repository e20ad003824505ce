// adapt(layer, dataset): Keras's layer.adapt(tf.data.Dataset) through the layers'
// incremental interface (layers/adapt.h). Discretization adapted over a batched dataset
// gives Keras's boundaries for the same batches (tests/data/preprocessing/adapt.json).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "data/adapt.h"
#include "layers/core/dense.h"
#include "layers/preprocessing/discretization.h"
#include "layers/core/input_layer.h"
#include "layers/preprocessing/normalization.h"
#include "layers/preprocessing/string_lookup.h"
#include "layers/preprocessing/text_vectorization.h"
#include "models/model.h"

using namespace strata;

namespace adapt_test {

using json = nlohmann::json;

TEST(DatasetAdapt, DiscretizationOverBatchesMatchesKeras) {
  const json all = json::parse(std::ifstream(std::string(STRATA_TEST_DATA) + "/preprocessing/adapt.json"));
  int n = 0;
  for (const json& c : all) {
    if (c["class_name"] != "Discretization" || !c.contains("batch_size")) continue;
    const auto dims = c["data"]["shape"].get<std::vector<std::int64_t>>();
    const Tensor x = Tensor::from_vector(Shape(dims), c["data"]["values"].get<std::vector<float>>());
    layers::Discretization layer({.num_bins = c["config"]["num_bins"].get<std::int64_t>(),
                                  .epsilon = c["config"]["epsilon"].get<double>()});
    adapt(layer, Dataset::from_tensors({x}).batch(c["batch_size"].get<std::int64_t>()));
    EXPECT_EQ(layer.bin_boundaries(), c["bin_boundaries"].get<std::vector<double>>());
    ++n;
  }
  EXPECT_EQ(n, 1);
}

TEST(DatasetAdapt, StringLookupOverBatchesLearnsWhatOneTensorTeaches) {
  std::vector<std::string> words;
  for (int i = 0; i < 50; ++i) words.push_back(std::string(1, static_cast<char>('a' + (i * i) % 7)));
  const Tensor x = Tensor::from_strings({50}, words);
  layers::StringLookup whole, batched, first_two;
  whole.adapt(x);
  adapt(batched, Dataset::from_tensors({x}).batch(8));
  EXPECT_EQ(batched.get_vocabulary(), whole.get_vocabulary());
  adapt(first_two, Dataset::from_tensors({x}).batch(8), 2);
  layers::StringLookup sixteen;
  sixteen.adapt(x.slice_rows(0, 16));
  EXPECT_EQ(first_two.get_vocabulary(), sixteen.get_vocabulary());
}

TEST(DatasetAdapt, TextVectorizationOverBatchesLearnsWhatOneTensorTeaches) {
  // Documents of (n, 1) strings, as Keras's adapt takes a batched tf.data.Dataset of them:
  // the vocabulary and the tf_idf document counts add up across batches.
  std::vector<std::string> docs;
  for (int i = 0; i < 30; ++i) {
    const std::string first(1, static_cast<char>('a' + i % 5)), second(1, static_cast<char>('a' + (i * i) % 7));
    docs.push_back(first + " " + second + (i % 3 ? " Zz!" : ""));
  }
  const Tensor x = Tensor::from_strings({30, 1}, docs);
  layers::TextVectorization whole({.ngrams = std::vector<std::int64_t>{1, 2}, .output_mode = "tf_idf"});
  layers::TextVectorization batched({.ngrams = std::vector<std::int64_t>{1, 2}, .output_mode = "tf_idf"});
  whole.adapt(x);
  adapt(batched, Dataset::from_tensors({x}).batch(7));
  EXPECT_EQ(batched.get_vocabulary(), whole.get_vocabulary());
  EXPECT_EQ(batched.idf_weights(), whole.idf_weights());
  EXPECT_GT(whole.vocabulary_size(), 10);
}

TEST(DatasetAdapt, RefusesLayersThatDoNotAdaptAndEndlessData) {
  const Tensor x = Tensor::from_strings({4}, {"a", "b", "c", "d"});
  EXPECT_THROW(adapt(layers::Dense(2), Dataset::from_tensors({x})), ValueError);
  EXPECT_THROW(adapt(layers::StringLookup(), Dataset::from_tensors({x}).repeat()), ValueError);
  layers::StringLookup ok;
  adapt(ok, Dataset::from_tensors({x}).repeat(), 3);
  EXPECT_EQ(ok.vocabulary_size(), 4);  // [UNK], and the three seen
}

TEST(DatasetAdapt, NormalizationOverBatchesLearnsWhatOneTensorTeaches) {
  std::vector<float> v;
  for (int i = 0; i < 40; ++i) v.push_back(static_cast<float>((i * 7) % 11) - 3.f + 0.25f * static_cast<float>(i % 2));
  const Tensor x = Tensor::from_vector<float>({20, 2}, v);
  layers::Normalization whole, batched;
  whole.adapt(x);
  adapt(batched, Dataset::from_tensors({x}).batch(6));
  const Tensor probe = Tensor::from_vector<float>({1, 2}, {1.f, -2.f});
  const auto run = [&](const layers::Normalization& n) {
    auto in = Input({2});
    return Model(in, n(in)).predict(probe).to_vector<float>();
  };
  const auto a = run(whole), b = run(batched);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6f);
  EXPECT_NE(a[0], 1.f);  // adapted: not the identity
}

}  // namespace adapt_test
