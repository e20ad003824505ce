// Keras JSON configs: the Keras 3 schema written by to_json, every dialect read by
// model_from_json, custom layer registration and the errors for what is unsupported.
#include "io/model_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/ops.h"
#include "io/layer_config.h"
#include "io/saving.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "layers/activations/activation.h"
#include "layers/core/dense.h"
#include "layers/regularization/dropout.h"
#include "layers/reshaping/flatten.h"
#include "layers/core/input_layer.h"
#include "layers/reshaping/reshape.h"
#include "models/sequential.h"
#include "test_util.h"

namespace strata::model_config_test {
namespace {

using nlohmann::json;

Tensor ramp(Shape shape) {
  Tensor t(shape);
  auto v = t.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.1f * static_cast<float>(i % 17) - 0.7f;
  return t;
}

void copy_weights(const Model& from, const Model& to) {
  auto a = from.weights(), b = to.weights();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) b[i].assign(a[i].value());
}

Model functional_sample() {
  auto a = Input({2, 3}, {.name = "a"});
  auto b = Input({5}, {.name = "b"});
  auto shared = layers::Dense(4, {.activation = "elu", .name = "shared"});
  auto ya = shared(layers::Flatten({.name = "flat"})(a));
  auto yb = shared(layers::Dense(6, {.name = "proj"})(b));
  auto r = layers::Reshape({2, 2}, {.name = "reshape"})(ya);
  return Model({a, b}, {r, layers::Activation("tanh", {.name = "act"})(yb)}, {.name = "multi"});
}

TEST(ModelConfig, ToJsonWritesKeras3Schema) {
  clear_session();
  Model m = functional_sample();
  json j = json::parse(m.to_json());
  EXPECT_EQ(j["module"], "keras.src.models.functional");
  EXPECT_EQ(j["class_name"], "Functional");
  EXPECT_EQ(j["registered_name"], "Functional");
  EXPECT_TRUE(j.contains("build_config"));
  const json& layers = j["config"]["layers"];
  ASSERT_EQ(layers.size(), 7u);
  const json* shared = nullptr;
  for (const auto& l : layers) {
    if (l["name"] == "shared") shared = &l;
  }
  ASSERT_TRUE(shared);
  EXPECT_EQ((*shared)["module"], "keras.layers");
  EXPECT_TRUE((*shared)["registered_name"].is_null());
  EXPECT_EQ((*shared)["build_config"]["input_shape"], json::parse("[null, 6]"));
  EXPECT_EQ((*shared)["config"]["dtype"]["class_name"], "DTypePolicy");
  EXPECT_EQ((*shared)["config"]["kernel_initializer"]["module"], "keras.initializers");
  ASSERT_EQ((*shared)["inbound_nodes"].size(), 2u);  // called twice
  const json& t = (*shared)["inbound_nodes"][1]["args"][0];
  EXPECT_EQ(t["class_name"], "__keras_tensor__");
  EXPECT_EQ(t["config"]["keras_history"], json::parse(R"(["proj", 0, 0])"));
  EXPECT_EQ(j["config"]["input_layers"], json::parse(R"([["a", 0, 0], ["b", 0, 0]])"));
  EXPECT_EQ(j["config"]["output_layers"], json::parse(R"([["reshape", 0, 0], ["act", 0, 0]])"));
  // A single input is a bare triple in Keras 3.
  auto x = Input({3}, {.name = "x"});
  json single = json::parse(Model(x, layers::Dense(2)(x)).to_json());
  EXPECT_EQ(single["config"]["input_layers"], json::parse(R"(["x", 0, 0])"));
}

TEST(ModelConfig, JsonRoundTripKeepsArchitectureAndPredictions) {
  clear_session();
  Model m = functional_sample();
  Model again = models::model_from_json(m.to_json());
  EXPECT_EQ(again.to_json(), m.to_json());
  copy_weights(m, again);
  std::vector<Tensor> x{ramp({3, 2, 3}), ramp({3, 5})};
  auto p = m.predict(x), q = again.predict(x);
  for (std::size_t i = 0; i < p.size(); ++i) testing::expect_close(q[i], p[i], "output", 0, 0);
  // The legacy (Keras 2) dialect reads back too.
  Model legacy = io::model_from_config(io::model_to_config(m, io::ConfigDialect::keras2));
  copy_weights(m, legacy);
  auto r = legacy.predict(x);
  for (std::size_t i = 0; i < p.size(); ++i)
    testing::expect_close(r[i], p[i], "legacy output", 0, 0);
}

TEST(ModelConfig, SequentialAndNestedRoundTrip) {
  clear_session();
  Sequential inner({Input({4}), layers::Dense(3, {.activation = "relu"}), layers::Dropout(0.5)},
                   {.name = "inner"});
  auto x = Input({4});
  Model outer(x, layers::Dense(2)(inner(x)), {.name = "outer"});
  json j = json::parse(outer.to_json());
  EXPECT_EQ(j["config"]["layers"][1]["class_name"], "Sequential");
  EXPECT_EQ(j["config"]["layers"][1]["module"], "keras");
  Model again = models::model_from_json(outer.to_json());
  copy_weights(outer, again);
  testing::expect_close(again.predict(ramp({2, 4})), outer.predict(ramp({2, 4})), "nested", 0, 0);
}

TEST(ModelConfig, ReadsKeras2FunctionalWithListNodesAndBatchInputShape) {
  const char* text =
      R"({"class_name": "Model", "keras_version": "2.2.4", "backend": "tensorflow", "config": {
    "name": "model_1",
    "layers": [
      {"name": "input_1", "class_name": "InputLayer", "config": {"batch_input_shape": [null, 3], "dtype": "float32",
        "sparse": false, "name": "input_1"}, "inbound_nodes": []},
      {"name": "dense_1", "class_name": "Dense", "config": {"name": "dense_1", "trainable": true, "units": 2,
        "activation": "hard_sigmoid", "use_bias": true,
        "kernel_initializer": {"class_name": "VarianceScaling", "config": {"scale": 1.0, "mode": "fan_avg",
          "distribution": "uniform", "seed": null}},
        "bias_initializer": {"class_name": "Zeros", "config": {}}, "kernel_regularizer": null},
       "inbound_nodes": [[["input_1", 0, 0, {}]]]}],
    "input_layers": [["input_1", 0, 0]], "output_layers": [["dense_1", 0, 0]]}})";
  Model m = models::model_from_json(text);
  EXPECT_EQ(m.name(), "model_1");
  EXPECT_EQ(m.inputs()[0].shape(), (Shape{kUnknownDim, 3}));
  // Keras 2's hard_sigmoid: clip(0.2x + 0.5, 0, 1) on zero weights -> 0.5 + 0.2*bias.
  for (auto& w : m.weights()) w.assign(Tensor::filled(w.shape(), 0.0f));
  m.get_layer("dense_1").weights()[1].assign(Tensor::from_vector<float>({2}, {1.0f, -5.0f}));
  auto y = m.predict(ramp({1, 3})).to_vector<float>();
  EXPECT_NEAR(y[0], 0.7f, 1e-6);
  EXPECT_NEAR(y[1], 0.0f, 1e-6);
}

TEST(ModelConfig, ReadsKeras3FunctionalWithDTypePolicyAndBareTriples) {
  const char* text =
      R"({"module": "keras.src.models.functional", "class_name": "Functional", "config": {
    "name": "functional", "trainable": true,
    "layers": [
      {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_shape": [null, 8], "dtype": "float32",
        "sparse": false, "ragged": false, "name": "input_layer", "optional": false}, "registered_name": null,
        "name": "input_layer", "inbound_nodes": []},
      {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense", "trainable": true,
        "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"}, "registered_name": null},
        "units": 4, "activation": "relu", "use_bias": true,
        "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null},
          "registered_name": null},
        "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros", "config": {}, "registered_name": null},
        "kernel_regularizer": null, "bias_regularizer": null, "kernel_constraint": null, "bias_constraint": null},
       "registered_name": null, "build_config": {"input_shape": [null, 8]}, "name": "dense",
       "inbound_nodes": [{"args": [{"class_name": "__keras_tensor__", "config": {"shape": [null, 8], "dtype": "float32",
         "keras_history": ["input_layer", 0, 0]}}], "kwargs": {}}]}],
    "input_layers": ["input_layer", 0, 0], "output_layers": ["dense", 0, 0]},
    "registered_name": "Functional", "build_config": {"input_shape": [null, 8]}})";
  Model m = models::model_from_json(text);
  EXPECT_EQ(m.layers().size(), 2u);
  EXPECT_EQ(m.count_params(), 36);
}

TEST(ModelConfig, ReadsTfKeras213DialectModuleKeysAroundKeras2Content) {
  const char* text =
      R"({"module": "keras.src.engine.functional", "class_name": "Functional", "registered_name": null,
   "config": {"name": "model", "trainable": true, "layers": [
    {"module": "keras.layers", "class_name": "InputLayer", "config": {"batch_input_shape": [null, 5], "dtype": "float32",
      "sparse": false, "ragged": false, "name": "input_1"}, "registered_name": null, "name": "input_1", "inbound_nodes": []},
    {"module": "keras.layers", "class_name": "Dense", "config": {"name": "dense", "trainable": true, "dtype": "float32",
      "units": 1, "activation": "sigmoid", "use_bias": true,
      "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform", "config": {"seed": null},
        "registered_name": null}, "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros",
        "config": {}, "registered_name": null}},
     "registered_name": null, "build_config": {"input_shape": [null, 5]}, "name": "dense",
     "inbound_nodes": [[["input_1", 0, 0, {}]]]}],
   "input_layers": [["input_1", 0, 0]], "output_layers": [["dense", 0, 0]]}, "keras_version": "2.13.1"})";
  Model m = models::model_from_json(text);
  EXPECT_EQ(m.count_params(), 6);
}

TEST(ModelConfig, ReadsKeras2SequentialsBareListDictAndWithoutInputLayer) {
  // Keras <= 2.2.2: config is the bare list; the first layer carries batch_input_shape.
  Model bare = models::model_from_json(R"({"class_name": "Sequential", "config": [
    {"class_name": "Dense", "config": {"name": "dense_1", "units": 3, "activation": "relu",
      "batch_input_shape": [null, 4], "dtype": "float32", "use_bias": true,
      "kernel_initializer": {"class_name": "VarianceScaling", "config": {"scale": 1.0, "mode": "fan_avg",
        "distribution": "uniform", "seed": null}}, "bias_initializer": {"class_name": "Zeros", "config": {}}}},
    {"class_name": "Dropout", "config": {"name": "dropout_1", "rate": 0.5}},
    {"class_name": "Dense", "config": {"name": "dense_2", "units": 2, "activation": "softmax"}}],
    "keras_version": "2.1.4"})");
  EXPECT_EQ(bare.inputs()[0].shape(), (Shape{kUnknownDim, 4}));
  EXPECT_EQ(bare.count_params(), 15 + 8);
  // Keras 2.2.3+: a dict with name and layers; mixed-precision style Policy dtype.
  Model dict = models::model_from_json(
      R"({"class_name": "Sequential", "config": {"name": "sequential_7", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 2, 3], "dtype": "float32", "name": "in"}},
    {"class_name": "Flatten", "config": {"name": "flatten", "dtype": {"class_name": "Policy", "config": {"name": "float32"}}}},
    {"class_name": "Dense", "config": {"name": "dense", "units": 1, "kernel_initializer": "glorot_uniform"}}]}})");
  EXPECT_EQ(dict.name(), "sequential_7");
  EXPECT_EQ(dict.count_params(), 7);
  // No input shape anywhere: the Sequential is built from the first data.
  Model lazy =
      models::model_from_json(R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "Dense", "config": {"name": "d", "units": 2}}]}})");
  EXPECT_TRUE(lazy.inputs().empty());
  EXPECT_EQ(lazy.predict(ramp({3, 5})).shape(), (Shape{3, 2}));
}

TEST(ModelConfig, UnsupportedClassesNameTheClassTheLayerAndWhatIsSupported) {
  const char* lambda = R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 2], "name": "in"}},
    {"class_name": "Lambda", "config": {"name": "my_lambda", "function": ["4wEAAAAA", null, null]}}]}})";
  EXPECT_THROW_WITH(models::model_from_json(lambda), NotImplementedError, "class 'Lambda'",
                    "layer 'my_lambda'", "Supported classes: ", "Dense", "register_layer");
  const char* unknown = R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 2], "name": "in"}},
    {"class_name": "FancyAttention", "config": {"name": "attn"}}]}})";
  EXPECT_THROW_WITH(models::model_from_json(unknown), NotImplementedError, "class 'FancyAttention'",
                    "layer 'attn'");
  EXPECT_THROW_WITH(models::model_from_json(
                        R"({"class_name": "MyModel", "config": {"name": "mine", "units": 3}})"),
                    NotImplementedError, "'MyModel'", "Model subclass", "register_keras_serializable<MyModel>");
  EXPECT_THROW_WITH(models::model_from_json("{not json"), ValueError, "invalid JSON");
  // A key of an unexpected type is a ValueError too, not the JSON library's own exception.
  EXPECT_THROW_WITH(models::model_from_json(R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
      {"class_name": "Dense", "config": {"name": 5, "units": 2}}]}})"),
                    ValueError, "does not have the expected structure");
}

// Readers recurse as configs nest: nesting is bounded while parsing, before any of them
// runs (a million-deep config would otherwise overflow the stack).
TEST(ModelConfig, NestingBeyondTheLimitIsRefusedWhileParsing) {
  auto nested = [](int depth) {
    std::string inner = R"({"class_name": "Sequential", "config": {"name": "s", "layers": []}})";
    for (int i = 0; i < depth; ++i) inner = R"({"class_name": "Sequential", "config": {"name": "s", "layers": [)" + inner + "]}}";
    return inner;
  };
  EXPECT_THROW_WITH(models::model_from_json(std::string(1'000'000, '[')), ValueError, "nests deeper than 256");
  EXPECT_THROW_WITH(models::model_from_json(nested(100)), ValueError, "nests deeper than 256");
  // Within the limit, a config nests as deep as it likes (this one is refused for what it
  // is, not for its depth).
  try {
    models::model_from_json(nested(20));
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).find("nests deeper"), std::string::npos) << e.what();
  }
  // From a file it is a damaged file: an IOError naming it.
  testing::ScratchDir dir;
  io::ZipWriter zip;
  zip.add("config.json", nested(100));
  zip.add("metadata.json", R"({"keras_version": "3.6.0"})");
  testing::write_bytes(dir.file("deep.keras"), zip.finish());
  EXPECT_THROW_WITH(models::load_model(dir.file("deep.keras")), IOError, "deep.keras", "config.json",
                    "nests deeper than 256");
}

// A user's layer: y = x * x, registered by class name.
class SquareImpl : public LayerImpl {
 public:
  explicit SquareImpl(std::string name) : LayerImpl("Square", std::move(name)) {}
  std::vector<Output> call(Graph& graph, const std::vector<Output>& in) override {
    return {ops::mul(in[0], in[0])};
  }
};
class Square : public Layer {
 public:
  explicit Square(std::string name = "") : Layer(std::make_shared<SquareImpl>(std::move(name))) {}
  explicit Square(const nlohmann::ordered_json& config)
      : Square(config.value("name", std::string())) {}
  static nlohmann::ordered_json get_config(const LayerImpl&) { return {{"power", 2}}; }
};

TEST(ModelConfig, RegisterLayerLetsAUsersClassLoad) {
  const std::string text = R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 2], "name": "in"}},
    {"class_name": "Square", "config": {"name": "sq", "power": 2}}]}})";
  EXPECT_THROW(models::model_from_json(text), NotImplementedError);
  io::register_layer<Square>("Square");
  Model m = models::model_from_json(text);
  auto y = m.predict(Tensor::from_vector<float>({1, 2}, {3.0f, -2.0f})).to_vector<float>();
  EXPECT_FLOAT_EQ(y[0], 9.0f);
  EXPECT_FLOAT_EQ(y[1], 4.0f);
  json saved = json::parse(m.to_json());
  EXPECT_EQ(saved["config"]["layers"][1]["config"]["power"], 2);
  EXPECT_EQ(saved["config"]["layers"][1]["registered_name"], "Square");
  // Keras names a class its user registered under a package "package>Square": the class
  // registered without one reads it.
  const std::string packaged = R"({"class_name": "Sequential", "config": {"name": "s", "layers": [
    {"class_name": "InputLayer", "config": {"batch_input_shape": [null, 2], "name": "in"}},
    {"class_name": "Square", "config": {"name": "sq", "power": 2}, "registered_name": "my_package>Square"}]}})";
  EXPECT_FLOAT_EQ(models::model_from_json(packaged).predict(Tensor::from_vector<float>({1, 2}, {3.0f, -2.0f}))
                      .to_vector<float>()[0],
                  9.0f);
  // Files holding the class load too.
  testing::ScratchDir dir;
  auto x = Input({2});
  Model with_dense(x, layers::Dense(3)(Square()(x)));
  for (const char* name : {"sq.keras", "sq.h5"}) {
    with_dense.save(dir.file(name));
    Model again = models::load_model(dir.file(name));
    testing::expect_close(again.predict(ramp({4, 2})), with_dense.predict(ramp({4, 2})), name, 0,
                          0);
  }
}

// The model configs of real Keras files, committed as JSON to seed tests/fuzz/
// fuzz_model_json (tests/data/model_configs/README.md), each build the model its file
// holds: same name, same parameter count as loading the file itself.
TEST(ModelConfig, CommittedRealConfigsBuildTheirFilesModels) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  const std::string dir = std::string(STRATA_TEST_DATA) + "/model_configs/";
  const std::vector<std::pair<std::string, std::string>> sources = {
      {"sequential_lstm_k224", testing::real_models_dir() + "/lstm_stacked_k224.h5"},
      {"bigru_tf27", testing::real_models_dir() + "/bigru_tf27.h5"},
      {"cnn_mnist_k231", testing::real_models_dir() + "/cnn_mnist_k231.h5"},
      {"nested_k3", testing::golden_dir() + "/nested.h5"},
      {"multi_io_shared_k3", testing::golden_dir() + "/multi_io_shared.h5"},
      {"cnn_bn_merge_k3", testing::golden_dir() + "/cnn_bn_merge.h5"},
      {"functional_mlp_keras3", testing::golden_dir() + "/functional_mlp.keras"}};
  for (const auto& [name, file] : sources) {
    SCOPED_TRACE(name);
    const Model from_json = models::model_from_json(testing::read_bytes(dir + name + ".json"));
    const Model from_file = models::load_model(file, {.compile = false});
    EXPECT_EQ(from_json.name(), from_file.name());
    EXPECT_EQ(from_json.count_params(), from_file.count_params());
    EXPECT_GT(from_json.count_params(), 0);
  }
}

}  // namespace
}  // namespace strata::model_config_test
