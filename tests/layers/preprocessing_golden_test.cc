// The preprocessing layers against real Keras 3: every case in
// tests/data/preprocessing/layers.json and adapt.json (written by
// tests/reference/make_preprocessing_goldens.py) builds the layer from Keras's own config,
// runs it and compares with Keras's output exactly: hashes, lookups, encodings, dtypes
// and shapes; adapt gives Keras's vocabularies and bin boundaries. lookup_tf_idf.json
// (tests/reference/make_lookup_tf_idf_goldens.py) holds the lookups' tf_idf mode: given
// weights padded as Keras pads them, and adapt's document frequencies.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "core/program.h"
#include "core/string_pool.h"
#include "io/layer_config.h"
#include "layers/preprocessing/discretization.h"
#include "layers/preprocessing/index_lookup.h"
#include "layers/preprocessing/string_lookup.h"
#include "../io/test_util.h"

using namespace strata;

namespace preprocessing_golden_test {

using json = nlohmann::json;

namespace {

json load(const std::string& name) {
  std::ifstream f(std::string(STRATA_TEST_DATA) + "/preprocessing/" + name);
  return json::parse(f);
}

Tensor to_tensor(const json& t) {
  const Shape shape(t["shape"].get<std::vector<std::int64_t>>());
  const std::string dtype = t["dtype"];
  if (dtype == "string") return Tensor::from_strings(shape, t["values"].get<std::vector<std::string>>());
  if (dtype == "int64") return Tensor::from_vector(shape, t["values"].get<std::vector<std::int64_t>>());
  if (dtype == "int32") return Tensor::from_vector(shape, t["values"].get<std::vector<std::int32_t>>());
  return Tensor::from_vector(shape, t["values"].get<std::vector<float>>());
}

Layer from_keras(const json& c) {
  return io::layer_from_config(json{{"class_name", c["class_name"]}, {"config", c["config"]}}, {});
}

// Runs the layer on concrete tensors (fully known shapes: rank-0 and rank-1 cases too).
Tensor run(const Layer& layer, const std::vector<Tensor>& xs) {
  Graph g;
  std::vector<Output> feeds;
  for (const Tensor& x : xs) feeds.push_back(g.placeholder({x.shape(), x.dtype()}));
  Program p(g, feeds, {layer.impl().call(g, feeds)[0]});
  return p.run(xs)[0];
}

void expect_equal(const Tensor& got, json want, const std::string& what) {
  // Keras's lookup layers (and TextVectorization, through its lookup) declare float32
  // encodings (compute_output_spec) but return int64 ones when called eagerly; Strata gives
  // what they declare.
  if (want["dtype"] == "int64" && got.dtype() == DType::float32 &&
      (what.find("Lookup") != std::string::npos || what.find("TextVectorization") != std::string::npos)) {
    want["dtype"] = "float32";
  }
  EXPECT_EQ(to_string(got.dtype()), want["dtype"].get<std::string>()) << what;
  EXPECT_EQ(got.shape().dims(), want["shape"].get<std::vector<std::int64_t>>()) << what;
  switch (got.dtype()) {
    case DType::string: EXPECT_EQ(got.to_strings(), want["values"].get<std::vector<std::string>>()) << what; break;
    case DType::int64: EXPECT_EQ(got.to_vector<std::int64_t>(), want["values"].get<std::vector<std::int64_t>>()) << what; break;
    case DType::int32: EXPECT_EQ(got.to_vector<std::int32_t>(), want["values"].get<std::vector<std::int32_t>>()) << what; break;
    case DType::float32: EXPECT_EQ(got.to_vector<float>(), want["values"].get<std::vector<float>>()) << what; break;
  }
}

void check_class(const std::string& class_name) {
  int n = 0;
  for (const json& c : load("layers.json")) {
    if (c["class_name"] != class_name) continue;
    const std::string what = class_name + " (" + c["note"].get<std::string>() + ")";
    SCOPED_TRACE(what);
    std::vector<Tensor> xs;
    if (c.contains("inputs")) {
      for (const json& t : c["inputs"]) xs.push_back(to_tensor(t));
    } else {
      xs.push_back(to_tensor(c["input"]));
    }
    expect_equal(run(from_keras(c), xs), c["output"], what);
    ++n;
  }
  EXPECT_GT(n, 3) << "no golden cases for " << class_name;
}

}  // namespace

TEST(Hashing, MatchesKerasFarmHashSipHashMasksAndModes) { check_class("Hashing"); }
TEST(HashedCrossing, MatchesKerasCrossHashedOnStringsAndInts) { check_class("HashedCrossing"); }
TEST(StringLookup, MatchesKerasWithOovMasksInvertAndModes) { check_class("StringLookup"); }
TEST(IntegerLookup, MatchesKerasWithOovMethodsMasksInvertAndModes) { check_class("IntegerLookup"); }
TEST(CategoryEncoding, MatchesKerasInEveryMode) { check_class("CategoryEncoding"); }
TEST(Discretization, MatchesKerasDigitizeInEveryMode) { check_class("Discretization"); }

TEST(StringLookup, AdaptLearnsKerasVocabularyOrder) {
  int n = 0;
  for (const json& c : load("adapt.json")) {
    if (c["class_name"] != "StringLookup" && c["class_name"] != "IntegerLookup") continue;
    Layer layer = from_keras(c);
    auto& lookup = static_cast<layers::IndexLookupImpl&>(layer.impl());
    lookup.adapt(to_tensor(c["data"]));
    if (c["class_name"] == "StringLookup") {
      EXPECT_EQ(lookup.string_vocabulary(), c["vocabulary"].get<std::vector<std::string>>()) << c["config"].dump();
    } else {
      EXPECT_EQ(lookup.int_vocabulary(), c["vocabulary"].get<std::vector<std::int64_t>>()) << c["config"].dump();
    }
    ++n;
  }
  EXPECT_GE(n, 6);
}

TEST(StringLookup, TfIdfWeighsCountsAsKerasWithGivenWeights) {
  int n = 0;
  const json golden = load("lookup_tf_idf.json");
  for (const json& c : golden["layers"]) {
    const std::string what = c["class_name"].get<std::string>() + " (" + c["note"].get<std::string>() + ")";
    SCOPED_TRACE(what);
    expect_equal(run(from_keras(c), {to_tensor(c["input"])}), c["output"], what);
    ++n;
  }
  EXPECT_GE(n, 7);
}

// sparse=True (tests/reference/make_sparse_outputs_goldens.py): Keras's tf.SparseTensor made
// dense, for every class that takes it; and Keras's refusal of it with output_mode "int".
TEST(SparseOutputs, EveryClassGivesKerasValuesDense) {
  std::set<std::string> classes;
  const json golden = load("sparse_outputs.json");
  for (const json& c : golden["layers"]) {
    const std::string what = c["class_name"].get<std::string>() + " (" + c["note"].get<std::string>() + ")";
    SCOPED_TRACE(what);
    ASSERT_EQ(c["config"].value("sparse", true), true) << what;
    std::vector<Tensor> xs;
    if (c.contains("inputs")) {
      for (const json& t : c["inputs"]) xs.push_back(to_tensor(t));
    } else {
      xs.push_back(to_tensor(c["input"]));
    }
    const Layer layer = from_keras(c);
    expect_equal(run(layer, xs), c["output"], what);
    if (c["config"].contains("sparse")) EXPECT_EQ(io::layer_config(layer)["sparse"], true) << what;  // written back
    classes.insert(c["class_name"].get<std::string>());
  }
  EXPECT_EQ(classes.size(), 7u);
  for (const std::string cls : {"StringLookup", "IntegerLookup", "Hashing", "Discretization", "TextVectorization"}) {
    json config = {{"name", "s"}, {"sparse", true}, {"output_mode", "int"}};
    if (cls == "Hashing") config["num_bins"] = 3;
    if (cls == "Discretization") config["bin_boundaries"] = {0.0};
    if (cls == "StringLookup" || cls == "TextVectorization") config["vocabulary"] = {"a"};
    if (cls == "IntegerLookup") config["vocabulary"] = {1};
    SCOPED_TRACE(cls);
    EXPECT_THROW_WITH(io::layer_from_config(json{{"class_name", cls}, {"config", config}}, {}), ValueError, "sparse",
                      "output_mode");
    config["sparse"] = false;  // the same config without sparse loads
    EXPECT_NO_THROW(io::layer_from_config(json{{"class_name", cls}, {"config", config}}, {})) << cls;
  }
}

// TextVectorization's ragged=True: Keras's tf.RaggedTensor rows padded with 0 to the
// batch's longest (RaggedTensor.to_tensor()), output_sequence_length cutting longer rows only.
TEST(RaggedOutputs, TextVectorizationGivesKerasRowsPaddedToTheLongest) {
  const json golden = load("sparse_outputs.json");
  int n = 0;
  for (const json& c : golden["ragged"]) {
    const std::string what = "TextVectorization (" + c["note"].get<std::string>() + ")";
    SCOPED_TRACE(what);
    ASSERT_EQ(c["config"]["ragged"], true);
    const Layer layer = from_keras(c);
    expect_equal(run(layer, {to_tensor(c["input"])}), c["output"], what);
    EXPECT_EQ(io::layer_config(layer)["ragged"], true) << what;
    ++n;
  }
  EXPECT_EQ(n, 5);
}

TEST(StringLookup, TfIdfAdaptLearnsKerasDocumentFrequencies) {
  int n = 0;
  const json golden = load("lookup_tf_idf.json");
  for (const json& c : golden["adapt"]) {
    const std::string what = c["class_name"].get<std::string>() + " " + c["config"].dump();
    SCOPED_TRACE(what);
    Layer layer = from_keras(c);
    auto& lookup = static_cast<layers::IndexLookupImpl&>(layer.impl());
    lookup.adapt(to_tensor(c["data"]));
    if (c["class_name"] == "StringLookup") {
      EXPECT_EQ(lookup.string_vocabulary(), c["vocabulary"].get<std::vector<std::string>>());
    } else {
      EXPECT_EQ(lookup.int_vocabulary(), c["vocabulary"].get<std::vector<std::int64_t>>());
    }
    // The OOV slots hold a float32 mean, whose order of summing is TensorFlow's own.
    const auto want = c["idf_weights"].get<std::vector<float>>();
    const std::vector<float>& got = lookup.idf_weights();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f * std::fabs(want[i])) << i;
    const Tensor out = run(layer, {to_tensor(c["input"])});
    const auto want_out = c["output"]["values"].get<std::vector<float>>();
    ASSERT_EQ(out.shape().dims(), c["output"]["shape"].get<std::vector<std::int64_t>>());
    for (std::size_t i = 0; i < want_out.size(); ++i)
      EXPECT_NEAR(out.to_vector<float>()[i], want_out[i], 1e-6f * std::fabs(want_out[i])) << i;
    ++n;
  }
  EXPECT_GE(n, 7);
}

TEST(StringLookup, TfIdfRefusesWhatKerasRefuses) {
  const std::vector<std::string> vocab{"a", "b"};
  EXPECT_THROW(layers::StringLookup({.vocabulary = vocab, .output_mode = "tf_idf"}), ValueError);
  EXPECT_THROW(layers::StringLookup({.vocabulary = vocab, .idf_weights = std::vector<double>{1, 2}}), ValueError);
  EXPECT_THROW(layers::StringLookup({.vocabulary = vocab, .idf_weights = std::vector<double>{1}, .output_mode = "tf_idf"}),
               ValueError);
  layers::StringLookup adapted({.output_mode = "tf_idf"});
  EXPECT_THROW(adapted.set_vocabulary(vocab), ValueError);  // weights are needed
  EXPECT_THROW(adapted.adapt(Tensor::from_strings({1, 2, 1}, {"a", "b"})), ValueError);  // documents are rows
  adapted.set_vocabulary(vocab, std::vector<double>{0.5, 1.5});
  EXPECT_EQ(adapted.idf_weights(), (std::vector<float>{1.f, 0.5f, 1.5f}));
  // Weights of the wrong length change nothing: vocabulary and weights stay as they were.
  EXPECT_THROW(adapted.set_vocabulary({"x", "y", "z"}, std::vector<double>{1, 2}), ValueError);
  EXPECT_EQ(adapted.get_vocabulary(), (std::vector<std::string>{"[UNK]", "a", "b"}));
  EXPECT_EQ(adapted.idf_weights(), (std::vector<float>{1.f, 0.5f, 1.5f}));
}

TEST(Discretization, AdaptLearnsKerasQuantileBoundaries) {
  int n = 0;
  for (const json& c : load("adapt.json")) {
    if (c["class_name"] != "Discretization") continue;
    Layer layer = from_keras(c);
    auto& d = static_cast<layers::DiscretizationImpl&>(layer.impl());
    const Tensor data = to_tensor(c["data"]);
    if (c.contains("batch_size")) {  // adapted over a batched dataset
      const std::int64_t b = c["batch_size"];
      d.reset_state();
      for (std::int64_t i = 0; i < data.shape().dims()[0]; i += b) {
        d.update_state(data.slice_rows(i, std::min(i + b, data.shape().dims()[0])));
      }
      d.finalize_state();
    } else {
      d.adapt(data);
    }
    EXPECT_EQ(d.options.bin_boundaries.value(), c["bin_boundaries"].get<std::vector<double>>()) << c["config"].dump();
    ++n;
  }
  EXPECT_GE(n, 5);
}

}  // namespace preprocessing_golden_test
