// Models with TextVectorization saved by real Keras 3 (tests/data/text_vectorization/
// model_*.keras, made by tests/reference/make_text_vectorization_goldens.py): Strata loads
// them (the adapted vocabulary from the .keras assets, tf_idf's weights from
// model.weights.h5) and predicts what Keras predicted; Strata's own saves put both where
// Keras 3 reads them and load back with the same predictions.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/hdf5.h"
#include "io/saving.h"
#include "io/zip.h"
#include "layers/preprocessing/text_vectorization.h"
#include "strata.h"
#include "test_util.h"

using namespace strata;

namespace text_vectorization_models_test {

using json = nlohmann::json;

namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/text_vectorization/";

json golden(const std::string& model) {
  std::ifstream f(kDir + "models.json");
  return json::parse(f)[model];
}

Tensor input_of(const json& g) {
  return Tensor::from_strings(Shape(g["input"]["shape"].get<std::vector<std::int64_t>>()),
                              g["input"]["values"].get<std::vector<std::string>>());
}

void expect_predicts_like_keras(Model model, const json& g) {
  const std::vector<float> got = model.predict(input_of(g)).to_vector<float>();
  const std::vector<float> want = g["prediction"]["values"].get<std::vector<float>>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f) << i;
}

layers::TextVectorization vectorizer(const Model& model) {
  for (const Layer& l : model.layers()) {
    if (l.class_name() == "TextVectorization") return layers::TextVectorization::from(l);
  }
  throw ValueError("no TextVectorization");
}

void expect_idf_weights(const layers::TextVectorization& tv, const json& g) {
  const auto want = g["idf_weights"].get<std::vector<float>>();
  const auto got = tv.idf_weights();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << i;
}

}  // namespace

TEST(TextVectorizationModels, LoadsKerasAdaptedIntModel) {
  const json g = golden("int");
  Model model = models::load_model(kDir + "model_int.keras");
  EXPECT_EQ(vectorizer(model).get_vocabulary(), g["vocabulary"].get<std::vector<std::string>>());
  expect_predicts_like_keras(model, g);
}

TEST(TextVectorizationModels, LoadsKerasTfIdfWeightsFromTheWeightsFile) {
  const json g = golden("tf_idf");
  Model model = models::load_model(kDir + "model_tf_idf.keras");
  EXPECT_EQ(vectorizer(model).get_vocabulary(), g["vocabulary"].get<std::vector<std::string>>());
  expect_idf_weights(vectorizer(model), g);
  expect_predicts_like_keras(model, g);
}

TEST(TextVectorizationModels, StrataSavesWhereKerasReads) {
  for (const char* name : {"int", "tf_idf"}) {
    SCOPED_TRACE(name);
    const json g = golden(name);
    Model model = models::load_model(kDir + "model_" + name + ".keras", {.compile = false});
    strata::testing::ScratchDir dir;
    const std::string path = dir.file("again.keras");
    models::save_model(model, path);
    io::ZipReader zip(path);
    const auto vocab = g["vocabulary"].get<std::vector<std::string>>();
    std::string text;
    for (std::size_t i = 0; i < vocab.size(); ++i) text += (i ? "\n" : "") + vocab[i];
    // Keras 3 writes the vocabulary for the layer and for the StringLookup inside it.
    EXPECT_EQ(zip.read("assets/layers/text_vectorization/vocabulary.txt"), text);
    EXPECT_EQ(zip.read("assets/layers/text_vectorization/_lookup_layer/vocabulary.txt"), text);
    if (g.contains("idf_weights")) {
      const std::string weights = dir.file("model.weights.h5");
      {
        std::ofstream f(weights, std::ios::binary);
        f << zip.read("model.weights.h5");
      }
      io::h5::File file(weights, io::h5::File::Mode::read);
      for (const char* p : {"layers/text_vectorization/vars/idf_weights",
                            "layers/text_vectorization/_lookup_layer/vars/idf_weights"}) {
        EXPECT_EQ(file.open_dataset(p).read(DType::float32).to_vector<float>(), vectorizer(model).idf_weights()) << p;
      }
    }
    Model again = models::load_model(path);
    EXPECT_EQ(vectorizer(again).get_vocabulary(), vocab);
    if (g.contains("idf_weights")) expect_idf_weights(vectorizer(again), g);
    expect_predicts_like_keras(again, g);
  }
}

TEST(TextVectorizationModels, TrainsAnEmbeddingBehindTheVectorizer) {
  auto in = Input({1}, {.dtype = DType::string, .name = "text"});
  layers::TextVectorization tv({.max_tokens = 20, .output_sequence_length = 5});
  const Tensor docs = Tensor::from_strings({4, 1}, {"good movie", "bad movie", "very good", "very bad film"});
  tv.adapt(docs);
  auto x = layers::GlobalAveragePooling1D()(layers::Embedding(tv.vocabulary_size(), 4)(tv(in)));
  Model model(in, layers::Dense(1, {.activation = "sigmoid"})(x));
  model.compile({.optimizer = optimizers::Adam({.learning_rate = 0.05}), .loss = "binary_crossentropy"});
  const Tensor y = Tensor::from_vector<float>({4, 1}, {1, 0, 1, 0});
  const float before = model.evaluate(docs, y).at("loss");
  model.fit(docs, y, {.batch_size = 4, .epochs = 30, .verbose = 0});
  EXPECT_LT(model.evaluate(docs, y).at("loss"), before * 0.5f);
}

}  // namespace text_vectorization_models_test
