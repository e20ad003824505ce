// Users' own layers travel between Strata and Python Keras (tests/reference/
// make_custom_layer_goldens.py registers the same classes under the same package there):
// Keras's files with Linear and MLPBlock load here and predict what Keras predicted, and
// the files Strata writes (committed beside them, and checked here to be what Strata
// writes now) are what Keras loaded and predicted the same from.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/ops.h"
#include "io/custom_layer.h"
#include "io/safe_file.h"
#include "io/hdf5.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "io/weights_h5.h"
#include "layers/core/input_layer.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "layers/core/dense.h"
#include "optimizers/adam.h"
#include "optimizers/nadam.h"
#include "optimizers/rmsprop.h"
#include "models/custom_model.h"
#include "tests/layers/golden_json.h"
#include "test_util.h"

namespace custom_layer_files {
using namespace strata;

// The guide's Linear, as make_custom_layer_goldens.py's.
class Linear : public CustomLayer {
 public:
  explicit Linear(std::int64_t units = 32, std::string name = "") : CustomLayer("Linear", name), units(units) {}
  void build(const std::vector<TensorSpec>& inputs) override {
    w = add_weight("w", {inputs[0].shape.dims().back(), units}, initializers::RandomNormal());
    b = add_weight("b", {units}, initializers::Zeros());
  }
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {ops::add(ops::matmul(inputs[0], graph.variable(w)), graph.variable(b))};
  }
  io::json get_config() const override { return {{"units", units}}; }
  static Layer from_config(const io::json& config) {
    return make_layer<Linear>(config.at("units").get<std::int64_t>(), config.at("name").get<std::string>());
  }
  std::int64_t units;
  Variable w, b;
};

// Two Linear layers tracked as Keras's attributes linear_1 and linear_2.
class MLPBlock : public CustomLayer {
 public:
  explicit MLPBlock(std::string name = "") : CustomLayer("MLPBlock", name) {
    linear_1 = track("linear_1", make_layer<Linear>(8));
    linear_2 = track("linear_2", make_layer<Linear>(1));
  }
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
    return {call_layer(linear_2, graph, ops::relu(call_layer(linear_1, graph, inputs[0])))};
  }
  static Layer from_config(const io::json& config) {
    return make_layer<MLPBlock>(config.at("name").get<std::string>());
  }
  Layer linear_1, linear_2;
};

// A keras.Model subclass with its own call, as make_custom_layer_goldens.py's MLP: two
// Dense layers tracked as attributes `hidden` and `out`.
class MLP : public CustomModel {
 public:
  explicit MLP(std::int64_t units = 8, std::string name = "mlp") : CustomModel({}, {}, std::move(name), "MLP"),
                                                                   units(units) {
    hidden = track("hidden", layers::Dense(units, {.activation = "relu", .name = "dense"}));
    out = track("out", layers::Dense(2, {.name = "dense_1"}));
  }
  std::vector<KerasTensor> call(const std::vector<KerasTensor>& x) override { return {out(hidden(x[0]))}; }
  io::json get_config() const override { return {{"units", units}}; }
  static Model from_config(const io::json& config) {
    return make_model<MLP>(config.at("units").get<std::int64_t>(), config.at("name").get<std::string>());
  }
  std::int64_t units;
  Layer hidden, out;
};

// A model whose call uses a layer it does not track: it has no place in a file.
class Untracked : public CustomModel {
 public:
  Untracked() : CustomModel({}, {}, "untracked", "Untracked") {}
  std::vector<KerasTensor> call(const std::vector<KerasTensor>& x) override { return {dense(x[0])}; }
  static Model from_config(const io::json&) { return make_model<Untracked>(); }
  Layer dense = layers::Dense(2);
};

// Attributes Keras walks after the others (a leading '_'): `_enc` is first reached through
// `layers`.
class Private : public CustomModel {
 public:
  Private() : CustomModel({}, {}, "private", "Private") {
    enc = track("_enc", layers::Dense(4));
    dec = track("dec", layers::Dense(2));
  }
  std::vector<KerasTensor> call(const std::vector<KerasTensor>& x) override { return {dec(enc(x[0]))}; }
  static Model from_config(const io::json&) { return make_model<Private>(); }
  Layer enc, dec;
};

// Tracks `second` before `first` but calls `first` first: Keras's trainable_variables (and
// its optimizer's slots) follow the tracking, a Strata step reaches them in call order.
class Swapped : public CustomModel {
 public:
  Swapped() : CustomModel({}, {}, "swapped", "Swapped") {
    second = track("second", layers::Dense(2, {.name = "second"}));
    first = track("first", layers::Dense(4, {.name = "first"}));
  }
  std::vector<KerasTensor> call(const std::vector<KerasTensor>& x) override { return {second(first(x[0]))}; }
  static Model from_config(const io::json&) { return make_model<Swapped>(); }
  Layer second, first;
};

const bool linear_registered = saving::register_keras_serializable<Linear>("my_package");
const bool swapped_registered = saving::register_keras_serializable<Swapped>("my_package");
const bool untracked_registered = saving::register_keras_serializable<Untracked>("my_package");
const bool private_registered = saving::register_keras_serializable<Private>("my_package");
const bool mlp_registered = saving::register_keras_serializable<MLPBlock>("my_package");
const bool mlp_model_registered = saving::register_keras_serializable<MLP>("my_package");

}  // namespace custom_layer_files

// In namespace strata, not under a using-directive: a unity build shares anonymous namespaces.
namespace strata::custom_layer_files_tests {
namespace {
using custom_layer_files::Linear;
using custom_layer_files::MLPBlock;

const std::string& custom_layers_dir() {
  static const std::string dir = std::string(STRATA_TEST_DATA) + "/custom_layers/";
  return dir;
}

const nlohmann::ordered_json& custom_layers_golden() {
  return strata::testing::golden_file("custom_layers/custom_layers_golden.json");
}

Tensor custom_layer_ramp(const Shape& shape) {
  std::vector<float> v(static_cast<std::size_t>(shape.num_elements()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(0.1 * static_cast<double>(i % 7) - 0.3);
  return Tensor::from_vector<float>(shape, v);
}

void set_ramp_weights(const Model& model) {
  std::vector<Tensor> values;
  for (const auto& v : model.weights()) values.push_back(custom_layer_ramp(v.shape()));
  model.set_weights(values);
}

// The models of make_custom_layer_goldens.py, built here with its weights.
// Every name given: the files must not depend on which tests ran first.
Model strata_linear_model() {
  KerasTensor x = Input({3}, {.name = "input_layer"});
  Model m(x, layers::Dense(2, {.name = "dense"})(make_layer<Linear>(4, "linear")(x)), {.name = "functional"});
  set_ramp_weights(m);
  return m;
}
Model strata_mlp_model() {
  KerasTensor x = Input({3}, {.name = "input_layer"});
  Model m(x, make_layer<MLPBlock>("mlp_block")(x), {.name = "functional"});
  set_ramp_weights(m);
  return m;
}

Model strata_model_subclass() {
  Model m = make_model<custom_layer_files::MLP>(8);
  model_cast<custom_layer_files::MLP>(m).build({Shape{3}});
  set_ramp_weights(m);
  return m;
}

TEST(CustomLayerFiles, KerasFilesWithRegisteredLayersLoadAndPredictAsKeras) {
  ASSERT_TRUE(custom_layer_files::linear_registered && custom_layer_files::mlp_registered);
  const Tensor x = strata::testing::golden_tensor(custom_layers_golden().at("input"));
  for (const char* file : {"keras_linear.keras", "keras_linear.h5", "keras_mlp.keras", "keras_mlp.h5"}) {
    SCOPED_TRACE(file);
    Model model = models::load_model(custom_layers_dir() + file);
    const std::string name = std::string(file).find("mlp") != std::string::npos ? "mlp" : "linear";
    strata::testing::expect_close(model.predict(x),
                                  strata::testing::golden_tensor(custom_layers_golden().at("keras").at(name)), file);
    if (name == "linear") {
      EXPECT_EQ(model.layers()[1].class_name(), "Linear");
      EXPECT_EQ(layer_cast<Linear>(model.layers()[1]).units, 4);
      EXPECT_EQ(model.layers()[1].weights()[0].path(), "linear/w");
    } else {
      EXPECT_EQ(model.layers()[1].weights().size(), 4u);
    }
  }
}

TEST(CustomLayerFiles, StrataFilesAreWhatKerasLoadedAndPredictAsKerasDid) {
  const Tensor x = strata::testing::golden_tensor(custom_layers_golden().at("input"));
  strata::testing::ScratchDir dir;
  const char* write_to = std::getenv("STRATA_WRITE_CUSTOM_LAYER_FILES");
  for (const char* file : {"linear.keras", "linear.h5", "mlp.keras", "mlp.h5"}) {
    SCOPED_TRACE(file);
    const bool mlp = std::string(file).find("mlp") != std::string::npos;
    const Model model = mlp ? strata_mlp_model() : strata_linear_model();
    const std::string fresh = dir.file(std::string("strata_") + file);
    model.save(fresh);
    if (write_to) {  // regenerating: make_custom_layer_goldens.py reads them next
      std::filesystem::copy_file(fresh, std::string(write_to) + "/strata_" + file,
                                 std::filesystem::copy_options::overwrite_existing);
      continue;
    }
    // What Keras predicted from the committed file, Strata predicts.
    const auto& in_keras = custom_layers_golden().at("strata_files_in_keras");
    ASSERT_TRUE(in_keras.contains(file)) << "run tests/reference/make_custom_layer_goldens.py";
    strata::testing::expect_close(Model(model).predict(x), strata::testing::golden_tensor(in_keras.at(file)), file,
                                  1e-6f, 0);
    // The committed file is what Strata writes now: the same config, weights and predictions.
    const std::string committed = custom_layers_dir() + "strata_" + file;
    if (std::string(file).ends_with(".keras")) {
      EXPECT_EQ(io::json::parse(io::ZipReader(committed).read("config.json")),
                io::json::parse(io::ZipReader(fresh).read("config.json")));
    } else {
      auto model_config = [](const std::string& path) {
        return io::json::parse(io::h5::File(path, io::h5::File::Mode::read).read_string_attribute("model_config"));
      };
      EXPECT_EQ(model_config(committed), model_config(fresh));
    }
    Model loaded = models::load_model(committed);
    strata::testing::expect_close(loaded.predict(x), Model(model).predict(x), file, 0, 0);
  }
}

// Keras names a registered class "package>ClassName": .keras files in registered_name, .h5
// files in the class name itself; module null, as for a class Keras imports from no module.
TEST(CustomLayerFiles, FilesNameTheClassAsKerasDoes) {
  const Model model = strata_linear_model();
  const io::json config = io::json::parse(model.to_json());
  const io::json& linear = config["config"]["layers"][1];
  EXPECT_EQ(linear["class_name"], "Linear");
  EXPECT_EQ(linear["registered_name"], "my_package>Linear");
  EXPECT_TRUE(linear["module"].is_null());
  EXPECT_EQ(linear["config"]["units"], 4);
  EXPECT_EQ(linear["config"]["name"], "linear");
  strata::testing::ScratchDir dir;
  model.save(dir.file("m.h5"));
  const io::json h5 =
      io::json::parse(io::h5::File(dir.file("m.h5"), io::h5::File::Mode::read).read_string_attribute("model_config"));
  EXPECT_EQ(h5["config"]["layers"][1]["class_name"], "my_package>Linear");
}

// A Model subclass travels under its own class (io/custom_model.h): Keras's file loads as
// an MLP here, and Strata's, laid out as Keras lays it out, is what Keras loaded.
TEST(CustomLayerFiles, AModelSubclassLoadsAndSavesUnderItsOwnClass) {
  ASSERT_TRUE(custom_layer_files::mlp_model_registered);
  strata::testing::ScratchDir dir;
  const Model model = strata_model_subclass();
  const std::string fresh = dir.file("strata_model_mlp.keras");
  model.save(fresh);
  if (const char* write_to = std::getenv("STRATA_WRITE_CUSTOM_LAYER_FILES")) {
    std::filesystem::copy_file(fresh, std::string(write_to) + "/strata_model_mlp.keras",
                               std::filesystem::copy_options::overwrite_existing);
    return;
  }
  const Tensor x = strata::testing::golden_tensor(custom_layers_golden().at("input"));
  Model from_keras = models::load_model(custom_layers_dir() + "keras_model_mlp.keras");
  EXPECT_EQ(model_cast<custom_layer_files::MLP>(from_keras).units, 8);
  EXPECT_EQ(from_keras.name(), "mlp");
  strata::testing::expect_close(from_keras.predict(x),
                                strata::testing::golden_tensor(custom_layers_golden().at("keras").at("model_mlp")),
                                "keras_model_mlp.keras");
  const io::json config = io::json::parse(io::ZipReader(fresh).read("config.json"));
  EXPECT_EQ(config["class_name"], "MLP");
  EXPECT_EQ(config["registered_name"], "my_package>MLP");
  EXPECT_TRUE(config["module"].is_null());
  EXPECT_EQ(config["config"]["units"], 8);
  EXPECT_EQ(config["config"]["name"], "mlp");
  EXPECT_EQ(config["build_config"]["input_shape"], io::json::parse("[null, 3]"));
  {
    // Keras's walk: `hidden` first (sorted attributes), then `out` reached through `layers`.
    strata::testing::ScratchDir h5dir;
    const std::string h5 = h5dir.file("w.h5");
    io::write_file_atomically(h5, io::ZipReader(fresh).read("model.weights.h5"));
    const io::h5::File weights(h5, io::h5::File::Mode::read);
    EXPECT_TRUE(weights.has_dataset("hidden/vars/0"));
    EXPECT_TRUE(weights.has_dataset("hidden/vars/1"));
    EXPECT_TRUE(weights.has_dataset("layers/dense_1/vars/0"));
    EXPECT_FALSE(weights.has_group("out"));
    EXPECT_TRUE(weights.has_group("vars"));
  }
  // What Keras predicted from the committed file, Strata predicts; the committed file is
  // what Strata writes now; it loads here as the class it was saved as.
  const auto& in_keras = custom_layers_golden().at("strata_files_in_keras");
  ASSERT_TRUE(in_keras.contains("model_mlp.keras")) << "run tests/reference/make_custom_layer_goldens.py";
  strata::testing::expect_close(Model(model).predict(x), strata::testing::golden_tensor(in_keras.at("model_mlp.keras")),
                                "strata_model_mlp.keras", 1e-6f, 0);
  const std::string committed = custom_layers_dir() + "strata_model_mlp.keras";
  EXPECT_EQ(io::json::parse(io::ZipReader(committed).read("config.json")), config);
  Model loaded = models::load_model(committed);
  EXPECT_EQ(model_cast<custom_layer_files::MLP>(loaded).units, 8);
  strata::testing::expect_close(loaded.predict(x), Model(model).predict(x), "reloaded", 0, 0);
  // Keras saves a Model subclass to .keras only.
  EXPECT_THROW_WITH(model.save(dir.file("mlp.h5")), NotImplementedError, "Model subclass", ".keras");
}

// make_custom_layer_goldens.py's regression targets for the compiled MLP: (5, 2).
Tensor compiled_mlp_targets() {
  std::vector<float> v(10);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(0.2 * static_cast<double>(i % 5) - 0.4);
  return Tensor::from_vector<float>({5, 2}, v);
}

// One more epoch of one batch, as the Python script's one_more_epoch, and the prediction.
Tensor one_more_epoch(Model model, const Tensor& x) {
  model.fit(x, compiled_mlp_targets(), {.batch_size = 5, .epochs = 1, .verbose = 0, .shuffle = false});
  return model.predict(x);
}

// The float values of a tensor of any number type (the step count is int64).
Tensor as_floats(const Tensor& t) {
  std::vector<float> v(static_cast<std::size_t>(t.size()));
  for (std::int64_t i = 0; i < t.size(); ++i) v[static_cast<std::size_t>(i)] = t.item(i);
  return Tensor::from_vector<float>(t.shape(), v);
}

// The MLP compiled with Adam(0.01) on mean squared error, as make_custom_layer_goldens.py's.
Model compiled_mlp() {
  Model m = strata_model_subclass();
  m.compile({.optimizer = optimizers::Adam({.learning_rate = 0.01}), .loss = "mse"});
  return m;
}

// ... and fitted two epochs of one batch, as its trained_model_subclass.
Model trained_compiled_mlp(const Tensor& x) {
  Model m = compiled_mlp();
  m.fit(x, compiled_mlp_targets(), {.batch_size = 5, .epochs = 2, .verbose = 0, .shuffle = false});
  return m;
}

// With STRATA_WRITE_CUSTOM_LAYER_FILES set, copies the file Strata wrote there for the
// Python script to check (tests/reference/make_custom_layer_goldens.py) and says so.
bool copied_for_keras(const std::string& fresh, const std::string& name) {
  const char* write_to = std::getenv("STRATA_WRITE_CUSTOM_LAYER_FILES");
  if (!write_to) return false;
  std::filesystem::copy_file(fresh, std::string(write_to) + "/" + name, std::filesystem::copy_options::overwrite_existing);
  return true;
}

void expect_optimizer_variables(const Model& model, const nlohmann::ordered_json& golden, const std::string& what) {
  const std::vector<Variable> vars = model.optimizer().variables();
  ASSERT_EQ(vars.size(), golden.size()) << what;
  for (std::size_t i = 0; i < vars.size(); ++i) {
    strata::testing::expect_close(as_floats(vars[i].value()), as_floats(strata::testing::golden_tensor(golden[i])),
                                  what + " optimizer variable " + std::to_string(i) + " (" + vars[i].path() + ")",
                                  1e-6f, 1e-5f);
  }
}

// A compiled subclass keeps its optimizer's state in its .keras file, as Keras 3 writes it
// (optimizer/vars: iteration, learning_rate, then each trainable variable's Adam moments
// in the model's trainable_variables order), both ways: Keras's file resumes here where
// Keras resumes it, and Strata's file holds what Keras's holds (Keras loaded it and
// resumed it alike: make_custom_layer_goldens.py).
TEST(CustomLayerFiles, ACompiledModelSubclassKeepsItsOptimizerStateBothWays) {
  ASSERT_TRUE(custom_layer_files::mlp_model_registered);
  const Tensor x = strata::testing::golden_tensor(custom_layers_golden().at("input"));
  const auto& keras = custom_layers_golden().at("keras");
  const Tensor keras_next = strata::testing::golden_tensor(keras.at("model_mlp_compiled_one_more_epoch"));

  Model from_keras = models::load_model(custom_layers_dir() + "keras_model_mlp_compiled.keras");
  ASSERT_TRUE(from_keras.compiled());
  EXPECT_EQ(from_keras.optimizer().iterations(), 2);
  expect_optimizer_variables(from_keras, keras.at("model_mlp_compiled_variables"), "Keras's file");
  // With a fresh optimizer (Adam's first step from zero moments) this moves elsewhere.
  strata::testing::expect_close(one_more_epoch(from_keras, x), keras_next, "Keras's file, one more epoch", 1e-5f,
                                1e-4f);

  // The same training here, saved: the file's optimizer/vars are Keras's.
  Model trained = trained_compiled_mlp(x);
  expect_optimizer_variables(trained, keras.at("model_mlp_compiled_variables"), "trained here");
  strata::testing::ScratchDir dir;
  const std::string fresh = dir.file("strata_model_mlp_compiled.keras");
  trained.save(fresh);
  if (copied_for_keras(fresh, "strata_model_mlp_compiled.keras")) return;
  {
    strata::testing::ScratchDir h5dir;
    const std::string h5 = h5dir.file("w.h5");
    io::write_file_atomically(h5, io::ZipReader(fresh).read("model.weights.h5"));
    const io::h5::File weights(h5, io::h5::File::Mode::read);
    const auto& golden = keras.at("model_mlp_compiled_variables");
    for (std::size_t i = 0; i < golden.size(); ++i) {
      const std::string at = "optimizer/vars/" + std::to_string(i);
      ASSERT_TRUE(weights.has_dataset(at)) << at;
      EXPECT_EQ(weights.open_dataset(at).shape(), strata::testing::golden_tensor(golden[i]).shape()) << at;
    }
    EXPECT_FALSE(weights.has_dataset("optimizer/vars/" + std::to_string(golden.size())));
  }
  Model reloaded = models::load_model(fresh);
  EXPECT_EQ(reloaded.optimizer().iterations(), 2);
  expect_optimizer_variables(reloaded, keras.at("model_mlp_compiled_variables"), "Strata's file");
  const Tensor next = one_more_epoch(trained, x);
  strata::testing::expect_close(one_more_epoch(reloaded, x), next, "Strata's file, one more epoch", 0, 0);
  strata::testing::expect_close(next, keras_next, "one more epoch here", 1e-5f, 1e-4f);
  const auto& in_keras = custom_layers_golden().at("strata_files_in_keras");
  ASSERT_TRUE(in_keras.contains("model_mlp_compiled.keras")) << "run tests/reference/make_custom_layer_goldens.py";
  strata::testing::expect_close(strata::testing::golden_tensor(in_keras.at("model_mlp_compiled.keras")), keras_next,
                                "Strata's file in Keras, one more epoch", 1e-6f, 1e-5f);
}

// save_weights and load_weights of a compiled subclass in Keras 3's layout (the .keras
// file's weights, optimizer/vars included), both ways: Keras's file resumes here as in
// Keras, and Keras read Strata's into a compiled MLP (make_custom_layer_goldens.py).
TEST(CustomLayerFiles, ACompiledModelSubclassSavesAndLoadsWeightsAsKeras) {
  ASSERT_TRUE(custom_layer_files::mlp_model_registered);
  const Tensor x = strata::testing::golden_tensor(custom_layers_golden().at("input"));
  const auto& keras = custom_layers_golden().at("keras");
  const Tensor keras_next = strata::testing::golden_tensor(keras.at("model_mlp_compiled_one_more_epoch"));
  Model from_keras = compiled_mlp();
  from_keras.load_weights(custom_layers_dir() + "keras_model_mlp_compiled.weights.h5");
  EXPECT_EQ(from_keras.optimizer().iterations(), 2);
  expect_optimizer_variables(from_keras, keras.at("model_mlp_compiled_variables"), "Keras's weights file");
  strata::testing::expect_close(one_more_epoch(from_keras, x), keras_next, "Keras's weights file, one more epoch",
                                1e-5f, 1e-4f);

  Model trained = trained_compiled_mlp(x);
  strata::testing::ScratchDir dir;
  const std::string fresh = dir.file("strata_model_mlp_compiled.weights.h5");
  trained.save_weights(fresh);
  if (copied_for_keras(fresh, "strata_model_mlp_compiled.weights.h5")) return;
  {
    const io::h5::File weights(fresh, io::h5::File::Mode::read);
    for (const char* at : {"hidden/vars/0", "hidden/vars/1", "layers/dense_1/vars/0", "layers/dense_1/vars/1",
                           "optimizer/vars/0", "optimizer/vars/9"}) {
      EXPECT_TRUE(weights.has_dataset(at)) << at;
    }
    EXPECT_TRUE(weights.has_group("vars"));
    EXPECT_FALSE(weights.has_group("out"));
  }
  Model reloaded = compiled_mlp();
  reloaded.load_weights(fresh);
  EXPECT_EQ(reloaded.optimizer().iterations(), 2);
  const Tensor next = one_more_epoch(trained, x);
  strata::testing::expect_close(one_more_epoch(reloaded, x), next, "Strata's weights file, one more epoch", 0, 0);
  EXPECT_THROW_WITH(reloaded.load_weights(fresh, {.skip_mismatch = true}), ValueError, "skip_mismatch");
  // Keras read the committed Strata file (tests/data/custom_layers) into a compiled MLP and
  // trained it one more epoch to the same weights as its own (make_custom_layer_goldens.py).
  const auto& in_keras = custom_layers_golden().at("strata_files_in_keras");
  ASSERT_TRUE(in_keras.contains("model_mlp_compiled.weights.h5")) << "run tests/reference/make_custom_layer_goldens.py";
  strata::testing::expect_close(strata::testing::golden_tensor(in_keras.at("model_mlp_compiled.weights.h5")),
                                keras_next, "Strata's weights file in Keras, one more epoch", 1e-6f, 1e-5f);
}

// Strata before 2026-11-30 wrote a subclass's .weights.h5 in the functional layout
// (layers/<key>/vars, as save_weights_h5 writes it): such a file still loads, its layers found
// by key (told apart by Keras 3's model "vars" group, which that layout lacks).
TEST(CustomLayerFiles, ASubclassWeightsFileInTheEarlierFunctionalLayoutStillLoads) {
  ASSERT_TRUE(custom_layer_files::mlp_model_registered);
  const Tensor x = strata::testing::golden_tensor(custom_layers_golden().at("input"));
  Model trained = trained_compiled_mlp(x);
  strata::testing::ScratchDir dir;
  std::vector<io::LayerWeights> layers;
  for (const Layer& layer : trained.layers()) {
    if (layer.class_name() != "InputLayer") layers.push_back({layer.name(), layer.weights(), layer.class_name()});
  }
  io::save_weights_h5(dir.file("earlier.weights.h5"), layers);
  Model reloaded = compiled_mlp();
  reloaded.load_weights(dir.file("earlier.weights.h5"));
  strata::testing::expect_close(reloaded.predict(x), trained.predict(x), "the earlier layout", 0, 0);

}

// The file lays the slots out in the optimizer's own pattern over Keras's variable order
// (the tracked layers'), whatever order a step built them in: RMSprop's every velocity,
// then every momentum, then every average gradient; Nadam's u_product after its slots.
TEST(CustomLayerFiles, ACompiledSubclassWritesItsSlotsInKerasVariableOrder) {
  ASSERT_TRUE(custom_layer_files::swapped_registered);
  const Tensor x = custom_layer_ramp({5, 3});
  for (const std::string kind : {"rmsprop", "nadam"}) {
    SCOPED_TRACE(kind);
    Model model = make_model<custom_layer_files::Swapped>();
    model_cast<custom_layer_files::Swapped>(model).build({Shape{3}});
    set_ramp_weights(model);
    optimizers::Optimizer optimizer =
        kind == "rmsprop" ? optimizers::Optimizer(optimizers::RMSprop({.momentum = 0.9, .centered = true}))
                          : optimizers::Optimizer(optimizers::Nadam());
    model.compile({.optimizer = optimizer, .loss = "mse"});
    model.fit(x, compiled_mlp_targets(), {.batch_size = 5, .epochs = 2, .verbose = 0, .shuffle = false});
    // Keras's trainable_variables: `second`'s kernel and bias, then `first`'s.
    const auto& swapped = model_cast<custom_layer_files::Swapped>(model);
    std::vector<Variable> keras_order;
    for (const Layer& layer : {swapped.second, swapped.first}) {
      for (const Variable& v : layer.trainable_weights()) keras_order.push_back(v);
    }
    ASSERT_EQ(keras_order.size(), 4u);
    auto slot = [&](const Variable& v, const std::string& name) {
      for (const auto& s : optimizer.impl().slot_variables()) {
        if (s.variable.id() == v.id() && s.slot_name == name) return s.slot;
      }
      ADD_FAILURE() << "no " << name << " slot for " << v.path();
      return Variable();
    };
    std::vector<Variable> expected{optimizer.impl().iterations(), optimizer.impl().learning_rate()};
    const std::vector<std::vector<std::string>> pattern =
        kind == "rmsprop" ? std::vector<std::vector<std::string>>{{"velocity"}, {"momentum"}, {"average_gradient"}}
                          : std::vector<std::vector<std::string>>{{"momentum", "velocity"}};
    for (const auto& block : pattern) {
      for (const Variable& v : keras_order) {
        for (const std::string& name : block) expected.push_back(slot(v, name));
      }
    }
    if (kind == "nadam") expected.push_back(optimizer.variables().back());  // u_product
    ASSERT_EQ(expected.size(), optimizer.variables().size());
    strata::testing::ScratchDir dir;
    const std::string path = dir.file("swapped.keras");
    model.save(path);
    strata::testing::ScratchDir h5dir;
    const std::string h5 = h5dir.file("w.h5");
    io::write_file_atomically(h5, io::ZipReader(path).read("model.weights.h5"));
    {
      const io::h5::File weights(h5, io::h5::File::Mode::read);
      for (std::size_t i = 0; i < expected.size(); ++i) {
        const std::string at = "optimizer/vars/" + std::to_string(i);
        ASSERT_TRUE(weights.has_dataset(at)) << at;
        strata::testing::expect_close(as_floats(weights.open_dataset(at).read(expected[i].dtype())),
                                      as_floats(expected[i].value()), at + " is " + expected[i].path(), 0, 0);
      }
      EXPECT_FALSE(weights.has_dataset("optimizer/vars/" + std::to_string(expected.size())));
    }
    // Read back into the same slots: one more epoch goes where the trained model's goes.
    Model reloaded = models::load_model(path);
    EXPECT_EQ(reloaded.optimizer().iterations(), 2);
    strata::testing::expect_close(one_more_epoch(reloaded, x), one_more_epoch(model, x), "one more epoch", 0, 0);
  }
}

TEST(CustomLayerFiles, AModelSubclassWalksItsAttributesAsKerasDoes) {
  ASSERT_TRUE(custom_layer_files::private_registered && custom_layer_files::untracked_registered);
  Model priv = make_model<custom_layer_files::Private>();
  model_cast<custom_layer_files::Private>(priv).build({Shape{3}});
  const auto paths = io::subclass_weight_paths(model_cast<custom_layer_files::Private>(priv));
  ASSERT_EQ(paths.size(), 2u);
  EXPECT_EQ(paths[0].first, "dec");
  EXPECT_EQ(paths[1].first, "layers/dense");  // `_enc`, reached through `layers` first
  strata::testing::ScratchDir dir;
  priv.save(dir.file("private.keras"));
  Model again = models::load_model(dir.file("private.keras"));
  const Tensor x = custom_layer_ramp({2, 3});
  strata::testing::expect_close(again.predict(x), priv.predict(x), "private", 0, 0);
  // A layer called but not tracked would be lost: saving says so.
  Model untracked = make_model<custom_layer_files::Untracked>();
  model_cast<custom_layer_files::Untracked>(untracked).build({Shape{3}});
  EXPECT_THROW_WITH(untracked.save(dir.file("untracked.keras")), ValueError, "without tracking it", "track(");
  // Names the file uses itself cannot name an attribute.
  class Bad : public CustomModel {
   public:
    Bad() : CustomModel({}, {}, "bad", "Bad") { track("layers", layers::Dense(1)); }
  };
  EXPECT_THROW_WITH(Bad(), ValueError, "'layers' cannot name a tracked layer");
}

TEST(CustomLayerFiles, AnUnregisteredModelClassIsAnErrorSayingHowToRegisterIt) {
  const std::string text = R"({"module": null, "class_name": "Tower", "registered_name": "shop>Tower",
    "config": {"name": "tower", "trainable": true}, "build_config": {"input_shape": [null, 3]}})";
  EXPECT_THROW_WITH(models::model_from_json(text), NotImplementedError, "'shop>Tower'",
                    "register_keras_serializable<Tower>(\"shop\")");
}

TEST(CustomLayerFiles, OneClassNameCannotBeRegisteredUnderTwoPackages) {
  EXPECT_THROW_WITH(saving::register_keras_serializable<Linear>("other_package"), ValueError, "'other_package>Linear'",
                    "already registered as 'my_package>Linear'");
  EXPECT_THROW_WITH(saving::register_keras_serializable<Linear>("bad>package"), ValueError, "package");
  EXPECT_EQ(io::registered_name_of("Linear"), "my_package>Linear");
}

}  // namespace
}  // namespace strata::custom_layer_files_tests
