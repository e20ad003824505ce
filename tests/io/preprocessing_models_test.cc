// Models with string and integer inputs through the preprocessing layers, saved by real
// Keras 3 (tests/data/preprocessing/model_*.keras/.h5, made by
// tests/reference/make_preprocessing_goldens.py): Strata loads them (an adapted
// vocabulary from the .keras assets, a given one from the config) and predicts what Keras
// predicted; Strata's own saves load back with the same vocabulary and predictions. The
// lookups' tf_idf mode (model_tf_idf_lookup.keras, tests/reference/make_lookup_tf_idf_goldens.py)
// reads and writes its weights where Keras does.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "io/hdf5.h"
#include "io/saving.h"
#include "io/zip.h"
#include "layers/core/input_layer.h"
#include "layers/preprocessing/integer_lookup.h"
#include "layers/preprocessing/string_lookup.h"
#include "test_util.h"

using namespace strata;

namespace preprocessing_models_test {

using json = nlohmann::json;

namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/preprocessing/";

json load_json(const std::string& name) {
  std::ifstream f(kDir + name);
  return json::parse(f);
}

Tensor to_tensor(const json& t) {
  const Shape shape(t["shape"].get<std::vector<std::int64_t>>());
  const std::string dtype = t["dtype"];
  if (dtype == "string") return Tensor::from_strings(shape, t["values"].get<std::vector<std::string>>());
  if (dtype == "int64") return Tensor::from_vector(shape, t["values"].get<std::vector<std::int64_t>>());
  return Tensor::from_vector(shape, t["values"].get<std::vector<float>>());
}

std::vector<Tensor> inputs_of(const json& g) {
  std::vector<Tensor> xs;
  for (const char* k : {"city", "code", "tags", "amount"}) xs.push_back(to_tensor(g["inputs"][k]));
  return xs;
}

void expect_predicts_like_keras(Model model, const json& g) {
  const std::vector<float> got = model.predict(inputs_of(g))[0].to_vector<float>();
  const std::vector<float> want = g["prediction"]["values"].get<std::vector<float>>();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f + 1e-4f * std::fabs(want[i])) << i;
}

layers::StringLookup city_lookup(const Model& model) {
  for (const Layer& l : model.layers()) {
    if (l.name() == "city_lookup") return layers::StringLookup::from(l);
  }
  throw ValueError("no city_lookup");
}

}  // namespace

TEST(PreprocessingModels, LoadsKerasAdaptedVocabularyFromKerasAssets) {
  const json g = load_json("model_adapted.json");
  Model model = models::load_model(kDir + "model_adapted.keras");
  EXPECT_EQ(city_lookup(model).get_vocabulary(), g["vocabulary"].get<std::vector<std::string>>());
  expect_predicts_like_keras(model, g);
}

TEST(PreprocessingModels, LoadsKerasGivenVocabularyFromKerasAndH5) {
  const json g = load_json("model_vocabulary.json");
  for (const char* file : {"model_vocabulary.keras", "model_vocabulary.h5"}) {
    SCOPED_TRACE(file);
    Model model = models::load_model(kDir + file, {.compile = false});
    EXPECT_EQ(city_lookup(model).get_vocabulary(), g["vocabulary"].get<std::vector<std::string>>());
    expect_predicts_like_keras(model, g);
  }
}

TEST(PreprocessingModels, StrataSavesAdaptedVocabularyAsKerasAsset) {
  const json g = load_json("model_adapted.json");
  Model model = models::load_model(kDir + "model_adapted.keras", {.compile = false});
  strata::testing::ScratchDir dir;
  const std::string path = dir.file("again.keras");
  models::save_model(model, path);
  io::ZipReader zip(path);
  ASSERT_TRUE(zip.contains("assets/layers/string_lookup/vocabulary.txt"));
  const auto vocab = g["vocabulary"].get<std::vector<std::string>>();
  std::string text;
  for (std::size_t i = 0; i < vocab.size(); ++i) text += (i ? "\n" : "") + vocab[i];
  EXPECT_EQ(zip.read("assets/layers/string_lookup/vocabulary.txt"), text);
  Model again = models::load_model(path);
  EXPECT_EQ(city_lookup(again).get_vocabulary(), vocab);
  expect_predicts_like_keras(again, g);
}

TEST(PreprocessingModels, H5RefusesAnAdaptedVocabularyItCannotHold) {
  Model model = models::load_model(kDir + "model_adapted.keras", {.compile = false});
  strata::testing::ScratchDir dir;
  EXPECT_THROW(models::save_model(model, dir.file("m.h5")), NotImplementedError);
  EXPECT_TRUE(dir.entries().empty());
}

TEST(PreprocessingModels, AnEmptyStringTokenSurvivesTheAssetsRoundTrip) {
  auto in = Input({1}, {.dtype = DType::string, .name = "s"});
  layers::StringLookup lookup({.output_mode = "one_hot"});
  lookup.adapt(Tensor::from_strings({5}, {"b", "", "b", "a", ""}));
  ASSERT_EQ(lookup.get_vocabulary(), (std::vector<std::string>{"[UNK]", "b", "", "a"}));
  Model model(in, lookup(in));
  strata::testing::ScratchDir dir;
  models::save_model(model, dir.file("m.keras"));
  Model again = models::load_model(dir.file("m.keras"));
  const Tensor x = Tensor::from_strings({3, 1}, {"", "a", "zz"});
  EXPECT_EQ(again.predict(x).to_vector<float>(), model.predict(x).to_vector<float>());
  EXPECT_EQ(again.predict(x).to_vector<float>(), (std::vector<float>{0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0}));
}

// sparse=True lookups and encodings (tests/reference/make_sparse_outputs_goldens.py): Keras's
// model predicts through them, and returns the encoding output as a tf.SparseTensor; Strata's
// prediction is the same and the encoding its dense values, from Keras's file and its own.
TEST(PreprocessingModels, SparseEncodingsPredictKerasValuesDense) {
  const json g = load_json("sparse_outputs.json")["model"];
  ASSERT_TRUE(g["encoding_was_sparse"].get<bool>());
  const std::vector<Tensor> xs{to_tensor(g["words"]), to_tensor(g["ids"])};
  auto check = [&](Model model, const std::string& what) {
    const std::vector<Tensor> out = model.predict(xs);
    ASSERT_EQ(out.size(), 2u) << what;
    const std::vector<float> got = out[0].to_vector<float>();
    const std::vector<float> want = g["prediction"]["values"].get<std::vector<float>>();
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f + 1e-5f * std::fabs(want[i])) << what;
    EXPECT_EQ(out[1].to_vector<float>(), g["encoding"]["values"].get<std::vector<float>>()) << what;
  };
  Model model = models::load_model(kDir + "model_sparse_outputs.keras", {.compile = false});
  check(model, "Keras's file");
  strata::testing::ScratchDir dir;
  models::save_model(model, dir.file("again.keras"));
  check(models::load_model(dir.file("again.keras"), {.compile = false}), "Strata's file");
}

TEST(PreprocessingModels, TfIdfLookupsLoadPredictAndSaveWhereKerasReads) {
  const json g = load_json("model_tf_idf_lookup.json");
  const std::vector<Tensor> xs{to_tensor(g["colours"]), to_tensor(g["codes"])};
  auto check = [&](Model model) {
    layers::StringLookup colours = layers::StringLookup::from(model.get_layer("colour_tf_idf"));
    EXPECT_EQ(colours.get_vocabulary(), g["colour_vocabulary"].get<std::vector<std::string>>());
    EXPECT_EQ(colours.idf_weights(), g["colour_idf_weights"].get<std::vector<float>>());
    EXPECT_EQ(layers::IntegerLookup::from(model.get_layer("code_tf_idf")).idf_weights(),
              g["code_idf_weights"].get<std::vector<float>>());
    const std::vector<float> got = model.predict(xs)[0].to_vector<float>();
    const std::vector<float> want = g["prediction"]["values"].get<std::vector<float>>();
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5f + 1e-5f * std::fabs(want[i])) << i;
  };
  Model model = models::load_model(kDir + "model_tf_idf_lookup.keras", {.compile = false});
  check(model);
  strata::testing::ScratchDir dir;
  const std::string path = dir.file("again.keras");
  models::save_model(model, path);
  io::ZipReader zip(path);
  const std::string weights = dir.file("model.weights.h5");
  {
    std::ofstream f(weights, std::ios::binary);
    f << zip.read("model.weights.h5");
  }
  io::h5::File file(weights, io::h5::File::Mode::read);
  EXPECT_EQ(file.open_dataset("layers/string_lookup/vars/idf_weights").read(DType::float32).to_vector<float>(),
            g["colour_idf_weights"].get<std::vector<float>>());
  EXPECT_EQ(file.open_dataset("layers/integer_lookup/vars/idf_weights").read(DType::float32).to_vector<float>(),
            g["code_idf_weights"].get<std::vector<float>>());
  check(models::load_model(path));
}

}  // namespace preprocessing_models_test
