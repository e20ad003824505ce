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
#include "io/hdf5.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "layers/core/input_layer.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "layers/core/dense.h"
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

const bool linear_registered = saving::register_keras_serializable<Linear>("my_package");
const bool mlp_registered = saving::register_keras_serializable<MLPBlock>("my_package");

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

TEST(CustomLayerFiles, KerasFilesWithRegisteredLayersLoadAndPredictAsKeras) {
  ASSERT_TRUE(custom_layer_files::linear_registered && custom_layer_files::mlp_registered);
  const Tensor x = strata::testing::golden_tensor(custom_layers_golden().at("input"));
  for (const char* file : {"keras_linear.keras", "keras_linear.h5", "keras_mlp.keras"}) {
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
  for (const char* file : {"linear.keras", "linear.h5", "mlp.keras"}) {
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

TEST(CustomLayerFiles, OneClassNameCannotBeRegisteredUnderTwoPackages) {
  EXPECT_THROW_WITH(saving::register_keras_serializable<Linear>("other_package"), ValueError, "'other_package>Linear'",
                    "already registered as 'my_package>Linear'");
  EXPECT_THROW_WITH(saving::register_keras_serializable<Linear>("bad>package"), ValueError, "package");
  EXPECT_EQ(io::registered_name_of("Linear"), "my_package>Linear");
}

}  // namespace
}  // namespace strata::custom_layer_files_tests
