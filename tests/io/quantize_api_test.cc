// Model::quantize("int8") against Keras's model.quantize("int8") (issue #39, point 2):
// tests/reference/make_quantize_api_goldens.py saved float models (mlp: Dense, EinsumDense,
// Dense without bias; einsum: two EinsumDense; tokens: Embedding, Dense, LayerNormalization,
// Dense), the same quantized by Keras, and Keras's predictions and training after quantize
// (tests/data/quantize_api/). Strata loads the float file and quantizes it: the int8 kernels
// and scales are Keras's bit for bit (rounding ties included), so the int8 layers' outputs are
// too (the token model's LayerNormalization rounds as Strata's float kernels do: 1e-5);
// saved, the file has Keras's policies, variables and values; fit trains what Keras trains.
//
// With STRATA_QUANTIZE_API_DIR set, the saving test leaves Strata's files there, for
// tests/reference/check_quantize_api_resaved.py to load in Keras.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "../layers/golden_json.h"
#include "core/error.h"
#include "io/hdf5.h"
#include "io/npy.h"
#include "io/saving.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "layers/attention/multi_head_attention.h"
#include "layers/core/dense.h"
#include "layers/core/einsum_dense.h"
#include "layers/core/input_layer.h"
#include "models/sequential.h"
#include "optimizers/adam.h"
#include "optimizers/sgd.h"

namespace strata::quantize_api_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/quantize_api/";

Model quantized(const std::string& name) {
  Model model = models::load_model(kDir + name + ".float.keras");
  model.quantize("int8");
  return model;
}

// A golden array; int32 ones (token ids) as int32 tensors.
Tensor golden_input(const nlohmann::ordered_json& j) {
  if (j.value("dtype", "float32") != "int32") return testing::golden_tensor(j);
  return Tensor::from_vector<std::int32_t>(Shape(j.at("shape").get<std::vector<std::int64_t>>()),
                                           j.at("values").get<std::vector<std::int32_t>>());
}

void expect_equal_values(const Tensor& got, const Tensor& want, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  const auto a = got.to_vector<float>();
  const auto b = want.to_vector<float>();
  int differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && ++differ <= 3) {
      ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", Keras " << b[i];
    }
  }
  EXPECT_EQ(differ, 0) << what << ": " << differ << " of " << a.size() << " elements differ from Keras's";
}

// Keras's predictions for the model's input: bit for bit where every float op is an int8
// layer's (whose steps are each one correctly rounded float32 operation, docs/precision.md);
// within 1e-5 where the token model's LayerNormalization and pooling round as Strata's float
// kernels do.
void expect_predicts_keras(Model& model, const std::string& name, const std::string& what) {
  const Tensor got = model.predict(io::load_npy(kDir + name + ".input0.npy"));
  const Tensor want = io::load_npy(kDir + name + ".output0.npy");
  if (name == "tokens" || name == "attention" || name == "grouped") {  // softmax, normalization: float32's rounding
    testing::expect_close(got, want, what, 1e-5f, 1e-5f);
  } else {
    expect_equal_values(got, want, what);
  }
}

// Without Keras's "shared_object_id" keys: its serializer marks the one quantization config
// object that model.quantize gives every layer, a trace of Python's sharing, not a setting.
nlohmann::json without_shared_ids(nlohmann::json j) {
  if (j.is_object()) {
    j.erase("shared_object_id");
    for (auto& [key, value] : j.items()) value = without_shared_ids(value);
  }
  return j;
}

// Every layer's "dtype" and "quantization_config" in a .keras file's config.
std::map<std::string, nlohmann::json> policies_in(const std::string& keras_file) {
  const nlohmann::json config = nlohmann::json::parse(io::ZipReader(keras_file).read("config.json"));
  std::map<std::string, nlohmann::json> out;
  for (const auto& layer : config["config"]["layers"]) {
    const nlohmann::json& c = layer["config"];
    out[c["name"]] = without_shared_ids(
        {{"dtype", c["dtype"]}, {"quantization_config", c.value("quantization_config", nlohmann::json())}});
  }
  return out;
}

// "layers/<key>/vars/<i>" -> (element type, values as float32) of a .keras file's variables.
std::map<std::string, std::pair<std::string, Tensor>> variables_in(const std::string& keras_file,
                                                                   const std::string& scratch_file) {
  std::filesystem::remove(scratch_file);
  {
    std::ofstream(scratch_file, std::ios::binary) << io::ZipReader(keras_file).read("model.weights.h5");
  }
  const io::h5::File h5(scratch_file, io::h5::File::Mode::read);
  std::map<std::string, std::pair<std::string, Tensor>> out;
  for (const std::string& key : h5.open_group("layers").children()) {
    if (!h5.has_group("layers/" + key + "/vars")) continue;
    const io::h5::Group vars = h5.open_group("layers/" + key + "/vars");
    for (const std::string& v : vars.children()) {
      const io::h5::Dataset d = vars.open_dataset(v);
      out["layers/" + key + "/vars/" + v] = {d.type_name(), d.read(DType::float32)};
    }
  }
  return out;
}

// Every variable of `ours` is Keras's: path, trainability, element type in files, value.
void expect_same_variables(const Model& ours, const Model& keras) {
  const std::vector<Variable> got = ours.weights(), want = keras.weights();
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].path(), want[i].path());
    EXPECT_EQ(got[i].trainable(), want[i].trainable()) << got[i].path();
    EXPECT_EQ(got[i].stored_as(), want[i].stored_as()) << got[i].path();
    expect_equal_values(got[i].value(), want[i].value(), got[i].path());
  }
}

// Keras's quantizable classes are in `mode`, the others in none.
void expect_quantization_modes(const Model& model, const std::string& mode) {
  for (const Layer& layer : model.layers()) {
    const std::string& c = layer.class_name();
    EXPECT_EQ(layer.impl().quantization_mode, c == "Dense" || c == "EinsumDense" || c == "Embedding" ? mode : "")
        << layer.name();
  }
}

// The .keras file Strata saved holds Keras's file's policies, configs and variables (element
// types and values).
void expect_saved_as_keras_file(const std::string& file, const std::string& keras_file, testing::ScratchDir& scratch) {
  EXPECT_EQ(policies_in(file), policies_in(keras_file));
  const auto ours = variables_in(file, scratch.file("strata.weights.h5"));
  const auto keras = variables_in(keras_file, scratch.file("keras.weights.h5"));
  ASSERT_EQ(ours.size(), keras.size());
  for (const auto& [path, value] : keras) {
    ASSERT_TRUE(ours.count(path)) << path;
    EXPECT_EQ(ours.at(path).first, value.first) << path;
    expect_equal_values(ours.at(path).second, value.second, path);
  }
}

class QuantizeApi : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizeApi, KernelsAndScalesAreKerasBitForBit) {
  const Model ours = quantized(GetParam());
  expect_same_variables(ours, models::load_model(kDir + GetParam() + ".int8.keras"));
  expect_quantization_modes(ours, "int8");
}

// Exactly what Strata predicts from Keras's quantized file, and so what Keras predicts.
TEST_P(QuantizeApi, PredictsWhatKerasQuantizedModelPredicts) {
  Model model = quantized(GetParam());
  Model keras = models::load_model(kDir + GetParam() + ".int8.keras");
  const Tensor x = io::load_npy(kDir + GetParam() + ".input0.npy");
  expect_equal_values(model.predict(x), keras.predict(x), "Keras's file in Strata");
  expect_predicts_keras(model, GetParam(), GetParam());
}

TEST_P(QuantizeApi, SavedItIsKerasFileWithTheSamePoliciesVariablesAndValues) {
  testing::ScratchDir scratch;
  Model model = quantized(GetParam());
  const std::string file = scratch.file(GetParam() + ".keras");
  model.save(file);
  expect_saved_as_keras_file(file, kDir + GetParam() + ".int8.keras", scratch);
  Model again = models::load_model(file);
  expect_predicts_keras(again, GetParam(), "Strata's file");
  if (const char* keep = std::getenv("STRATA_QUANTIZE_API_DIR")) {
    std::filesystem::create_directories(keep);
    std::filesystem::copy_file(file, std::string(keep) + "/" + GetParam() + ".keras",
                               std::filesystem::copy_options::overwrite_existing);
  }
}

// Keras trains a quantized model: the int8 kernels and the scales are not trainable, the
// biases and the float layers are, and an int8 layer passes its input the gradient of the
// float product with the dequantized kernel. Two SGD steps, then predict.
TEST_P(QuantizeApi, FitTrainsWhatKerasTrains) {
  const auto& golden = testing::golden_file("quantize_api/" + GetParam() + ".train.json");
  Model model = quantized(GetParam());
  model.compile({.optimizer = optimizers::SGD({.learning_rate = 0.1}), .loss = "mse"});
  const Tensor x = golden_input(golden["x"]), y = testing::golden_tensor(golden["y"]);
  for (int step = 0; step < 2; ++step) {
    const float loss = model.train_on_batch(x, y).at("loss");
    const float want = golden["losses"][step].get<float>();
    EXPECT_NEAR(loss, want, 1e-5 + 1e-5 * std::fabs(want)) << "step " << step;
  }
  std::map<std::string, Tensor> trainable;
  for (const Variable& v : model.trainable_weights()) trainable[v.path()] = v.value();
  ASSERT_EQ(trainable.size(), golden["trainable"].size());
  for (const auto& [path, want] : golden["trainable"].items()) {
    ASSERT_TRUE(trainable.count(path)) << path;
    EXPECT_TRUE(testing::golden_near(trainable.at(path), want, path));
  }
  std::vector<std::string> frozen;
  for (const Variable& v : model.non_trainable_weights()) frozen.push_back(v.path());
  std::sort(frozen.begin(), frozen.end());
  EXPECT_EQ(frozen, golden["non_trainable"].get<std::vector<std::string>>());
  EXPECT_TRUE(testing::golden_near(model.predict(io::load_npy(kDir + GetParam() + ".input0.npy")),
                                   golden["predict_after"], "predict after fit"));
}

// Keras's quantize reaches MultiHeadAttention's and GroupQueryAttention's four EinsumDense
// projections, and so does Strata's, predicting what Keras's quantized layer predicts.
// Keras 3.15 writes a file of it that it cannot load itself, so saving one is refused by
// name, writing nothing.
class QuantizeApiAttention : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizeApiAttention, TheProjectionsAreQuantizedAsKerassAndSavingIsRefused) {
  const std::string name = GetParam();
  Model model = models::load_model(kDir + name + ".float.keras");
  const Tensor x = io::load_npy(kDir + name + ".input0.npy");
  const Tensor float_prediction = model.predict(x);
  model.quantize("int8");
  int quantized = 0;
  for (const Layer& layer : model.layers()) {
    for (const Layer& projection : layer.impl().sublayers()) quantized += projection.impl().quantization_mode == "int8";
  }
  EXPECT_EQ(quantized, 4);
  expect_predicts_keras(model, name, name + " quantized");
  EXPECT_NE(model.predict(x).to_vector<float>(), float_prediction.to_vector<float>()) << "the int8 path ran";
  testing::ScratchDir scratch;
  for (const char* file : {"quantized.keras", "quantized.h5"}) {
    EXPECT_THROW_WITH(model.save(scratch.file(file)), NotImplementedError, "projection",
                      "save the model before quantize()");
    EXPECT_FALSE(std::filesystem::exists(scratch.file(file))) << file;
  }
}

INSTANTIATE_TEST_SUITE_P(Keras3, QuantizeApiAttention, ::testing::Values("attention", "grouped"));

INSTANTIATE_TEST_SUITE_P(Keras3, QuantizeApi, ::testing::Values("mlp", "einsum", "heads", "tokens"));

// model.quantize("int4") as Keras's (tests/reference/make_quantize_modes_goldens.py: Keras's own
// quantize("int4") of the same float files): Keras's default sub-channel "int4/128", the
// packed kernels, scales, zero points and g_idx bit for bit, the predictions Keras's
// quantized model makes (within float32's rounding), and the saved file Keras's
// (policies, configs, variables, values).
class QuantizeApiInt4 : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizeApiInt4, IsKerassQuantizeInt4BitForBit) {
  Model ours = models::load_model(kDir + GetParam() + ".float.keras");
  ours.quantize("int4");
  expect_same_variables(ours, models::load_model(kDir + GetParam() + ".int4.keras"));
  expect_quantization_modes(ours, "int4/128");
  const Tensor x = io::load_npy(kDir + GetParam() + ".input0.npy");
  const Tensor keras_output = io::load_npy(kDir + GetParam() + ".int4.output0.npy");
  // Float32 products of the dequantized kernels: within float32's rounding of Keras's (sums
  // a CPU path orders otherwise; LayerNormalization in the token model).
  const float tolerance = GetParam() == "tokens" ? 1e-5f : 1e-6f;
  testing::expect_close(ours.predict(x), keras_output, "int4 predictions", tolerance, tolerance);
  testing::ScratchDir scratch;
  const std::string file = scratch.file(GetParam() + ".keras");
  ours.save(file);
  expect_saved_as_keras_file(file, kDir + GetParam() + ".int4.keras", scratch);
}

INSTANTIATE_TEST_SUITE_P(Keras3, QuantizeApiInt4, ::testing::Values("mlp", "einsum", "heads", "tokens"));

// model.quantize("float8") as Keras's: the kernels kept, the scales (1) and amax histories
// (0, 1024 long) added in Keras's order, Keras's float8 predictions, Keras's saved file.
class QuantizeApiFloat8 : public ::testing::TestWithParam<std::string> {};

TEST_P(QuantizeApiFloat8, IsKerassQuantizeFloat8) {
  Model ours = models::load_model(kDir + GetParam() + ".float.keras");
  ours.quantize("float8");
  expect_same_variables(ours, models::load_model(kDir + GetParam() + ".float8.keras"));
  for (const Layer& layer : ours.layers()) {  // Keras's float8 layers: Dense and EinsumDense
    const std::string& c = layer.class_name();
    EXPECT_EQ(layer.impl().quantization_mode, c == "Dense" || c == "EinsumDense" ? "float8/1024" : "") << layer.name();
  }
  const Tensor x = io::load_npy(kDir + GetParam() + ".input0.npy");
  testing::expect_close(ours.predict(x), io::load_npy(kDir + GetParam() + ".float8.output0.npy"), "float8 predictions",
                        1e-6f, 1e-6f);
  testing::ScratchDir scratch;
  const std::string file = scratch.file(GetParam() + ".keras");
  ours.save(file);
  expect_saved_as_keras_file(file, kDir + GetParam() + ".float8.keras", scratch);
}

INSTANTIATE_TEST_SUITE_P(Keras3, QuantizeApiFloat8, ::testing::Values("mlp", "einsum"));

// Quantizing a compiled model between steps keeps its optimizer and the state it has for the
// weights that stay (Adam's moments of the biases, its step count), as Keras does.
TEST(QuantizeApiTraining, TheOptimizerAndItsStateCarryAcrossQuantize) {
  const auto& golden = testing::golden_file("quantize_api/mlp.adam.json");
  Model model = models::load_model(kDir + "mlp.float.keras");
  model.compile({.optimizer = optimizers::Adam({.learning_rate = 0.01}), .loss = "mse"});
  const Tensor x = testing::golden_tensor(golden["x"]), y = testing::golden_tensor(golden["y"]);
  for (int step = 0; step < 4; ++step) {
    if (step == 2) model.quantize("int8");
    const float loss = model.train_on_batch(x, y).at("loss");
    const float want = golden["losses"][step].get<float>();
    EXPECT_NEAR(loss, want, 1e-5 + 1e-5 * std::fabs(want)) << "step " << step;
  }
  EXPECT_EQ(model.optimizer().iterations(), golden["iterations"].get<std::int64_t>());
  for (const Variable& v : model.trainable_weights()) {
    ASSERT_TRUE(golden["trainable"].contains(v.path())) << v.path();
    EXPECT_TRUE(testing::golden_near(v.value(), golden["trainable"][v.path()], v.path()));
  }
}

// Keras's errors, and Strata's refusals, leave the model as it was.
TEST(QuantizeApiErrors, AreKerasErrorsAndChangeNothing) {
  Sequential unbuilt({layers::Dense(2)}, {.name = "seq"});
  EXPECT_THROW_WITH(unbuilt.quantize("int8"), ValueError,
                    "Cannot quantize a layer that isn't yet built. "
                    "Layer 'seq' (of type 'Sequential') is not built yet.");

  Model model = models::load_model(kDir + "mlp.float.keras");
  const std::vector<Tensor> before = model.get_weights();
  EXPECT_THROW_WITH(model.quantize("int3"), ValueError,
                    "Invalid quantization mode. Expected one of ('int8', 'float8', 'int4', 'gptq', 'awq'). "
                    "Received: mode=int3");
  EXPECT_THROW_WITH(model.quantize("gptq"), ValueError, "`GPTQConfig`");
  const std::vector<Tensor> after = model.get_weights();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    expect_equal_values(after[i], before[i], "weight " + std::to_string(i));
  }
  for (const Layer& layer : model.layers()) EXPECT_EQ(layer.impl().quantization_mode, "") << layer.name();

  model.quantize("int8");
  EXPECT_THROW_WITH(model.quantize("int8"), ValueError,
                    "Layer 'dense' is already quantized with dtype_policy='int8_from_float32'. Received: mode=int8");
  Model loaded = models::load_model(std::string(STRATA_TEST_DATA) + "/quantized/int8_mlp.keras");
  EXPECT_THROW_WITH(loaded.quantize("int8"), ValueError, "already quantized");

  // An equation whose kernel_scale Keras squeezes into another layout (two summed letters,
  // one kept from the input) is refused before any layer changes, the Dense before it too.
  const KerasTensor q = Input({3, 4});
  const KerasTensor h = layers::Dense(4, {.name = "before"})(q);
  Model squeezed(q, layers::EinsumDense("abc,bcd->ad", Shape{6}, {.name = "squeezed"})(h), {.name = "squeezed"});
  const std::vector<Tensor> squeezed_before = squeezed.get_weights();
  EXPECT_THROW_WITH(squeezed.quantize("int8"), NotImplementedError, "abc,bcd->ad", "kernel_scale");
  for (const Layer& layer : squeezed.layers()) EXPECT_EQ(layer.impl().quantization_mode, "") << layer.name();
  ASSERT_EQ(squeezed.get_weights().size(), squeezed_before.size());
}

// The replaced kernel's regularizer goes with it (Keras's int8 kernel has none, and is not
// trained); the bias's stays; the compiled model computes the int8 model at once.
TEST(QuantizeApiTraining, TheKernelsRegularizerGoesTheBiasesStays) {
  const KerasTensor x = Input({3});
  layers::Dense dense(2, {.kernel_regularizer = "l2", .bias_regularizer = "l1", .name = "d"});
  Model model(x, dense(x));
  model.compile({.optimizer = "sgd", .loss = "mse"});
  ASSERT_EQ(dense.weight_rules().size(), 2u);
  model.quantize("int8");
  ASSERT_EQ(dense.weight_rules().size(), 1u);
  EXPECT_EQ(dense.weight_rules()[0].variable.path(), "d/bias");
  EXPECT_TRUE(model.compiled());
  const Tensor in = Tensor::from_vector<float>(Shape{1, 3}, {0.5f, -1.f, 2.f});
  const Tensor got = model.predict(in);
  testing::ScratchDir scratch;
  model.save(scratch.file("d.keras"));
  Model copy = models::load_model(scratch.file("d.keras"));
  expect_equal_values(copy.predict(in), got, "the saved int8 model");
}

}  // namespace
}  // namespace strata::quantize_api_test
