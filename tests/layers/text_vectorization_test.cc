// TextVectorization against real Keras 3: every case in tests/data/text_vectorization/
// layers.json and adapt.json (written by tests/reference/make_text_vectorization_goldens.py)
// builds the layer from Keras's own config, runs it and compares with Keras's output:
// standardize, split, ngrams, every output mode, sequence lengths; adapt gives Keras's
// vocabulary and idf weights.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/ops.h"
#include "core/program.h"
#include "core/text.h"
#include "io/layer_config.h"
#include "layers/preprocessing/text_vectorization.h"

using namespace strata;

namespace text_vectorization_test {

using json = nlohmann::json;

namespace {

json load(const std::string& name) {
  std::ifstream f(std::string(STRATA_TEST_DATA) + "/text_vectorization/" + name);
  return json::parse(f);
}

Tensor strings_of(const json& t) {
  return Tensor::from_strings(Shape(t["shape"].get<std::vector<std::int64_t>>()),
                              t["values"].get<std::vector<std::string>>());
}

Layer from_keras(const json& config) {
  return io::layer_from_config(json{{"class_name", "TextVectorization"}, {"config", config}}, {});
}

Tensor run(const Layer& layer, const Tensor& x) {
  Graph g;
  Output in = g.placeholder({x.shape(), x.dtype()});
  Program p(g, {in}, {layer.impl().call(g, {in})[0]});
  return p.run({x})[0];
}

void expect_keras_output(const Tensor& got, const json& want, const std::string& mode, double tolerance) {
  EXPECT_EQ(got.shape().dims(), want["shape"].get<std::vector<std::int64_t>>());
  // Keras declares float32 for the encodings (compute_output_spec) but, called eagerly,
  // returns multi_hot and count as int64 with the same values; Strata gives what it declares.
  if (want["dtype"] == "int64" && (mode == "multi_hot" || mode == "count")) {
    ASSERT_EQ(got.dtype(), DType::float32);
    EXPECT_EQ(got.to_vector<float>(), want["values"].get<std::vector<float>>());
    return;
  }
  if (want["dtype"] == "int64") {
    ASSERT_EQ(got.dtype(), DType::int64);
    EXPECT_EQ(got.to_vector<std::int64_t>(), want["values"].get<std::vector<std::int64_t>>());
    return;
  }
  ASSERT_EQ(got.dtype(), DType::float32);
  const auto g = got.to_vector<float>();
  const auto w = want["values"].get<std::vector<float>>();
  ASSERT_EQ(g.size(), w.size());
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], tolerance * std::max(1.f, std::fabs(w[i]))) << i;
}

}  // namespace

TEST(TextVectorization, MatchesKerasForEveryOption) {
  int n = 0;
  for (const json& c : load("layers.json")) {
    SCOPED_TRACE(c["note"].get<std::string>());
    expect_keras_output(run(from_keras(c["config"]), strings_of(c["input"])), c["output"], c["config"]["output_mode"],
                        1e-6);
    ++n;
  }
  EXPECT_GE(n, 20);
}

TEST(TextVectorization, AdaptLearnsKerasVocabularyAndIdfWeights) {
  int n = 0, tf_idf = 0;
  for (const json& c : load("adapt.json")) {
    SCOPED_TRACE(c["note"].get<std::string>());
    json config = c["config"];
    config["vocabulary_size"] = nullptr;  // what adapt learns is under test
    auto layer = layers::TextVectorization::from(from_keras(config));
    layer.adapt(strings_of(c["data"]));
    EXPECT_EQ(layer.get_vocabulary(), c["vocabulary"].get<std::vector<std::string>>());
    if (c.contains("idf_weights")) {
      const auto want = c["idf_weights"].get<std::vector<float>>();
      const auto got = layer.idf_weights();
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << i;
      ++tf_idf;
    }
    ++n;
  }
  EXPECT_GE(n, 8);
  EXPECT_GE(tf_idf, 3);
}

TEST(TextVectorization, AdaptInBatchesEqualsAdaptAtOnce) {
  const std::vector<std::string> docs = {"a b c", "b c", "c", "d d d d", "b"};
  layers::TextVectorization once({.output_mode = "tf_idf"}), steps({.output_mode = "tf_idf"});
  once.adapt(Tensor::from_strings(Shape({5}), docs));
  auto& impl = static_cast<layers::TextVectorizationImpl&>(steps.impl());
  impl.reset_state();
  impl.update_state(Tensor::from_strings(Shape({2, 1}), {docs[0], docs[1]}));
  impl.update_state(Tensor::from_strings(Shape({3, 1}), {docs[2], docs[3], docs[4]}));
  impl.finalize_state();
  EXPECT_EQ(steps.get_vocabulary(), once.get_vocabulary());
  EXPECT_EQ(steps.idf_weights(), once.idf_weights());
  EXPECT_EQ(once.get_vocabulary(), (std::vector<std::string>{"[UNK]", "d", "c", "b", "a"}));
}

TEST(TextVectorization, TextOpsFollowTensorFlow) {
  using namespace strata::text;
  EXPECT_EQ(standardize("ÀB Straße, HeLLo!", Standardize::lower_and_strip_punctuation), "Àb straße hello");
  EXPECT_EQ(standardize("a-b_c'd", Standardize::strip_punctuation), "abcd");
  std::vector<std::string> t;
  split("  a\tb\n c\xC2\xA0" "d\x0b" "e ", Split::whitespace, t);
  EXPECT_EQ(t, (std::vector<std::string>{"a", "b", "c\xC2\xA0" "d", "e"}));
  t.clear();
  split("a\xC3\xB1\xF0\x9F\x98\x80\xFF", Split::character, t);
  EXPECT_EQ(t, (std::vector<std::string>{"a", "\xC3\xB1", "\xF0\x9F\x98\x80", "\xEF\xBF\xBD"}));
  EXPECT_EQ(ngrams({"a", "b", "c"}, {1, 3}), (std::vector<std::string>{"a", "b", "c", "a b c"}));
  EXPECT_EQ(ngrams({"a"}, {2}), std::vector<std::string>{});
}

TEST(TextVectorization, RefusesWhatItCannotDo) {
  EXPECT_THROW(layers::TextVectorization({.output_mode = "one_hot"}), NotImplementedError);
  EXPECT_THROW(layers::TextVectorization({.standardize = "upper"}), ValueError);
  EXPECT_THROW(layers::TextVectorization({.split = "comma"}), ValueError);
  EXPECT_THROW(layers::TextVectorization({.output_mode = "count", .output_sequence_length = 3}), ValueError);
  EXPECT_THROW(layers::TextVectorization({.encoding = "latin-1"}), NotImplementedError);
  EXPECT_THROW(layers::TextVectorization({.output_mode = "tf_idf", .vocabulary = std::vector<std::string>{"a"}}),
               ValueError);
  layers::TextVectorization given({.vocabulary = std::vector<std::string>{"a"}});
  EXPECT_THROW(given.adapt(Tensor::from_strings({1}, {"a b"})), ValueError);  // as Keras
  // Keys of Keras's config it cannot honour are refused by name.
  json config = load("layers.json")[0]["config"];
  config["ragged"] = true;  // Keras's ValueError outside "int" mode (in it, rows padded to the longest)
  config["output_mode"] = "multi_hot";
  EXPECT_THROW(from_keras(config), ValueError);
  config["output_mode"] = "int";
  config["ragged"] = false;
  config["sparse"] = true;  // Keras's ValueError in "int" mode (other modes give its values dense)
  ASSERT_EQ(config["output_mode"], "int");
  EXPECT_THROW(from_keras(config), ValueError);
  config["sparse"] = false;
  config["standardize"] = json{{"module", "builtins"}, {"class_name", "function"}, {"config", "my_standardize"}};
  EXPECT_THROW(from_keras(config), ValueError);
}

// Keras's int mode without a sequence length pads each batch's rows to its longest: the
// output's last dim is None, sized by the kernel each run, and the steps after it follow.
TEST(TextVectorization, IntWithoutSequenceLengthPadsEachBatchToItsLongestRow) {
  layers::TextVectorization ragged({.vocabulary = std::vector<std::string>{"a"}});
  Graph g;
  Output in = g.placeholder({Shape({kUnknownDim, 1}), DType::string});
  Output ids = ragged.impl().call(g, {in})[0];
  EXPECT_EQ(ids.shape(), (Shape{kUnknownDim, kUnknownDim}));
  Output doubled = ops::add(ops::cast(ids, DType::float32), ops::cast(ids, DType::float32));
  Program p(g, {in}, {ids, doubled});
  // "" is the mask (0), "[UNK]" 1, "a" 2.
  auto out = p.run({Tensor::from_strings({2, 1}, {"a b a", "a"})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(out[0].to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 1, 2, 2, 0, 0}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{4, 2, 4, 4, 0, 0}));
  out = p.run({Tensor::from_strings({3, 1}, {"b", "a", ""})});
  EXPECT_EQ(out[0].shape(), (Shape{3, 1}));
  EXPECT_EQ(out[0].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 0}));
  out = p.run({Tensor::from_strings({2, 1}, {"a a a a", "b"})});
  EXPECT_EQ(out[1].shape(), (Shape{2, 4}));
}

TEST(TextVectorization, ReadsAVocabularyFile) {
  const std::string path = ::testing::TempDir() + "/text_vectorization_vocabulary.txt";
  {
    std::ofstream f(path);
    f << "cat\ndog\r\nmat\n";
  }
  layers::TextVectorization tv({.output_sequence_length = 4, .vocabulary_file = path});
  EXPECT_EQ(tv.get_vocabulary(), (std::vector<std::string>{"", "[UNK]", "cat", "dog", "mat"}));
  const Tensor y = run(tv, Tensor::from_strings(Shape({1}), {"The dog, the CAT"}));
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 3, 1, 2}));
  EXPECT_THROW(layers::TextVectorization({.vocabulary_file = path + ".missing"}), IOError);
}

}  // namespace text_vectorization_test
