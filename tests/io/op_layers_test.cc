// Keras 3 operation layers (keras.ops calls on symbolic tensors, saved in functional
// models): tests/data/op_layers/*.keras, made by tests/reference/make_layer_class_goldens.py,
// load and predict what Keras predicted; saved again by Strata they load and predict the
// same, and as .h5 (tf.keras's TFOpLambda form) where tf.keras has one.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "io/layer_config.h"
#include "io/npy.h"
#include "io/saving.h"
#include "models/model.h"
#include "tests/io/keras_test_util.h"

using namespace strata;
using nlohmann::ordered_json;

namespace op_layers_test {

namespace {

const ordered_json& goldens() {
  static const ordered_json data = [] {
    std::ifstream f(std::string(STRATA_TEST_DATA) + "/layer_classes_golden.json");
    if (!f) throw std::runtime_error("cannot open layer_classes_golden.json");
    return ordered_json::parse(f);
  }();
  return data;
}

const ordered_json& case_named(const std::string& name) {
  for (const auto& c : goldens().at("op_layers"))
    if (c.at("name") == name) return c;
  throw std::runtime_error("no op layer case " + name);
}

Tensor golden_tensor(const ordered_json& j) {
  std::vector<float> v;
  for (const auto& x : j.at("values")) v.push_back(x.is_boolean() ? (x.get<bool>() ? 1.f : 0.f) : x.get<float>());
  return Tensor::from_vector<float>(Shape(j.at("shape").get<std::vector<std::int64_t>>()), v);
}

Tensor as_float(const Tensor& t) {
  if (t.dtype() == DType::float32) return t;
  std::vector<float> v;
  if (t.dtype() == DType::int32) {
    for (auto x : t.to_vector<std::int32_t>()) v.push_back(static_cast<float>(x));
  } else {
    for (auto x : t.to_vector<std::int64_t>()) v.push_back(static_cast<float>(x));
  }
  return Tensor::from_vector<float>(t.shape(), v);
}

std::vector<Tensor> inputs_of(const ordered_json& c) {
  std::vector<Tensor> xs;
  for (const auto& in : c.at("inputs")) xs.push_back(golden_tensor(in));
  return xs;
}

Tensor predict(Model& model, const std::vector<Tensor>& xs) {
  return as_float(xs.size() == 1 ? model.predict(xs[0]) : model.predict(xs)[0]);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("strata_op_" + name)).string();
}

class OpLayerFile : public ::testing::TestWithParam<std::string> {};

TEST_P(OpLayerFile, LoadsPredictsAndSavesAsKeras) {
  const ordered_json& c = case_named(GetParam());
  const std::string path = std::string(STRATA_TEST_DATA) + "/../../" + c.at("file").get<std::string>();
  const std::vector<Tensor> xs = inputs_of(c);
  const Tensor want = golden_tensor(c.at("output"));
  Model model = models::load_model(path, {.compile = false});
  strata::testing::expect_close(predict(model, xs), want, GetParam());

  const std::string again = temp_path(GetParam() + ".keras");
  model.save(again);
  Model reloaded = models::load_model(again, {.compile = false});
  strata::testing::expect_close(predict(reloaded, xs), want, GetParam() + " saved by Strata");
  std::filesystem::remove(again);
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("op_layers")) {
    const std::string name = c.at("name").get<std::string>();
    // sum_all's output has no batch axis, which predict (batch by batch, as Keras's) cannot
    // concatenate.
    if (name == "sum_all") continue;
    names.push_back(name);
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, OpLayerFile, ::testing::ValuesIn(case_names()), [](const auto& info) {
  std::string n = info.param;
  for (char& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
});

}  // namespace

TEST(OpLayers, ArithmeticSavesAsTfOpLambdaInH5) {
  // MobileNetV3's hard sigmoid: (x + 3) relu6 * (1/6), ops saved as tf.keras's TFOpLambda.
  const ordered_json& c = case_named("mobilenetv3_hard_swish");
  const std::string path = std::string(STRATA_TEST_DATA) + "/../../" + c.at("file").get<std::string>();
  Model model = models::load_model(path, {.compile = false});
  const std::string h5 = temp_path("hard_swish.h5");
  model.save(h5);
  // Written as tf.keras writes a TFOpLambda: the call bare, ["layer", node, index, kwargs].
  int tf_ops = 0;
  const io::ModelFileInfo info = io::inspect_model_file(h5);
  for (const auto& l : info.config["config"]["layers"]) {
    if (l.value("class_name", "") != "TFOpLambda") continue;
    ++tf_ops;
    EXPECT_TRUE(l["inbound_nodes"][0][0].is_string()) << l["inbound_nodes"].dump();
  }
  EXPECT_GE(tf_ops, 2);  // + 3.0 and * (1/6) at least
  Model reloaded = models::load_model(h5, {.compile = false});
  strata::testing::expect_close(predict(reloaded, inputs_of(c)), golden_tensor(c.at("output")), "hard_swish .h5");
  std::filesystem::remove(h5);
}

// One model holding every new layer class (tests/data/layer_classes/all_new.*), saved by
// Keras 3 (.keras and .h5) and by tf.keras (.tf.h5: LeakyReLU's "alpha", Normalization's
// count set by adapt), loads and predicts what the Keras that saved it predicted.
class NewClassesFile : public ::testing::TestWithParam<std::string> {};

TEST_P(NewClassesFile, PredictsWhatKerasPredicts) {
  const std::string dir = std::string(STRATA_TEST_DATA) + "/layer_classes/";
  const std::string file = GetParam();
  const std::string base = dir + (file == "all_new.tf.h5" ? "all_new.tf" : "all_new");
  Model model = models::load_model(dir + file, {.compile = false});
  const Tensor x = io::load_npy(base + ".input0.npy");
  strata::testing::expect_close(model.predict(x), io::load_npy(base + ".output0.npy"), file);
}

INSTANTIATE_TEST_SUITE_P(Keras, NewClassesFile,
                         ::testing::Values("all_new.keras", "all_new.h5", "all_new.tf.h5"),
                         [](const auto& info) {
                           std::string n = info.param;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(OpLayers, TfKerasReverseOperatorsAndTensorOperands) {
  // 1.0 - x and 2.0 / (x * x + 1.0) as tf.keras saves them: a "_CONSTANT_VALUE" first
  // operand, and the tensor operand among the keyword arguments.
  const std::string base = std::string(STRATA_TEST_DATA) + "/op_layers/tf_reverse_ops.tf";
  Model model = models::load_model(base + ".h5", {.compile = false});
  strata::testing::expect_close(model.predict(io::load_npy(base + ".input0.npy")),
                                io::load_npy(base + ".output0.npy"), "tf_reverse_ops.tf.h5");
}

}  // namespace op_layers_test
