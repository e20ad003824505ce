// Keras 3 files of quantized and mixed-precision models (tests/reference/make_quantized_goldens.py:
// tests/data/quantized/), issue #39. int8 Dense, EinsumDense and Embedding load with their
// QuantizedDTypePolicy and int8 variables and predict what Keras predicted, bit for bit: every
// step of Keras's int8 arithmetic is one correctly rounded float32 operation or an exact integer
// product (docs/precision.md), so no tolerance is needed. Keras's sub-channel int4 files
// ("int4/128") and its float8 file too, their float kernels Keras's exactly and their float32
// products within float32's rounding (expect_predicts_keras). Strata saves them back with the same policies and int8 datasets. Policies
// Strata does not honour (float8, per-channel int4) are refused naming the layer, the key
// and the value; the bfloat16 and float16 ones are mixed_precision_files_test.cc's.
//
// With STRATA_QUANTIZED_RESAVE_DIR set, the resave test also leaves Strata's files there, for
// tests/reference/check_quantized_resaved.py to load in Keras.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/dtype_policy_config.h"
#include "io/hdf5.h"
#include "io/layer_config.h"
#include "io/npy.h"
#include "io/saving.h"
#include "io/zip.h"
#include "strata.h"
#include "keras_test_util.h"

namespace strata::quantized_files_test {
namespace {

const std::string kQuantizedDir = std::string(STRATA_TEST_DATA) + "/quantized/";

// Strata's predictions for base's inputs equal Keras's ones exactly.
void expect_predicts_keras_exactly(Model& model, const std::string& base, const std::string& what) {
  const Tensor x = io::load_npy(base + ".input0.npy");
  const Tensor want = io::load_npy(base + ".output0.npy");
  const std::vector<Tensor> got = model.predict(std::vector<Tensor>{x});
  ASSERT_EQ(got.size(), 1u) << what;
  ASSERT_EQ(got[0].shape(), want.shape()) << what;
  const auto a = got[0].to_vector<float>();
  const auto b = want.to_vector<float>();
  int differ = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i] && ++differ <= 3) ADD_FAILURE() << what << ": element " << i << " is " << a[i] << ", Keras gives " << b[i];
  }
  EXPECT_EQ(differ, 0) << what << ": " << differ << " of " << a.size() << " elements differ from Keras's";
}

// Strata's predictions against Keras's: exactly for int8 files (every step an exact integer
// sum or one correctly rounded float32 operation); int4 and float8 layers multiply float32
// kernels, whose sums a CPU path may order otherwise than TensorFlow (the portable path's
// Eigen does): within float32's rounding there (bit for bit on the AVX2 and AVX-512 paths).
void expect_predicts_keras(Model& model, const std::string& base, const std::string& what) {
  if (base.find("int8_") != std::string::npos) return expect_predicts_keras_exactly(model, base, what);
  testing::expect_close(model.predict(io::load_npy(base + ".input0.npy")), io::load_npy(base + ".output0.npy"), what,
                        1e-6f, 1e-6f);
}

// The "dtype" of every quantizable layer in a .keras file's config.
std::map<std::string, nlohmann::json> quantized_policies_in(const std::string& keras_file) {
  const nlohmann::json config = nlohmann::json::parse(io::ZipReader(keras_file).read("config.json"));
  std::map<std::string, nlohmann::json> out;
  for (const auto& layer : config["config"]["layers"]) {
    const std::string cls = layer["class_name"];
    if (cls == "Dense" || cls == "EinsumDense" || cls == "Embedding") out[layer["config"]["name"]] = layer["config"]["dtype"];
  }
  return out;
}

// "layers/<key>/vars/<i>" -> element type ("int8", "float32") of a .keras file's variables,
// its model.weights.h5 extracted to `scratch_file`.
std::map<std::string, std::string> quantized_variable_types(const std::string& keras_file,
                                                            const std::string& scratch_file) {
  std::filesystem::remove(scratch_file);
  {
    std::ofstream(scratch_file, std::ios::binary) << io::ZipReader(keras_file).read("model.weights.h5");
  }
  const io::h5::File h5(scratch_file, io::h5::File::Mode::read);
  std::map<std::string, std::string> out;
  for (const std::string& key : h5.open_group("layers").children()) {
    if (!h5.has_group("layers/" + key + "/vars")) continue;
    const io::h5::Group vars = h5.open_group("layers/" + key + "/vars");
    for (const std::string& v : vars.children()) out["layers/" + key + "/vars/" + v] = vars.open_dataset(v).type_name();
  }
  return out;
}

class Int8Files : public ::testing::TestWithParam<std::string> {};

TEST_P(Int8Files, KerasFilesLoadAndPredictWhatKerasPredictedExactly) {
  for (const std::string ext : {".keras", ".h5"}) {
    Model model = models::load_model(kQuantizedDir + GetParam() + ext);
    expect_predicts_keras(model, kQuantizedDir + GetParam(), GetParam() + ext);
  }
}

TEST_P(Int8Files, SavedByStrataTheyKeepPoliciesAndInt8Variables) {
  testing::ScratchDir scratch;
  const char* keep = std::getenv("STRATA_QUANTIZED_RESAVE_DIR");
  const auto keras_policies = quantized_policies_in(kQuantizedDir + GetParam() + ".keras");
  ASSERT_FALSE(keras_policies.empty());
  for (const std::string from : {".keras", ".h5"}) {
    Model model = models::load_model(kQuantizedDir + GetParam() + from);
    for (const std::string ext : {".keras", ".h5"}) {
      const std::string file = scratch.file("again" + ext);
      model.save(file);
      Model again = models::load_model(file);
      expect_predicts_keras(again, kQuantizedDir + GetParam(), "Strata's " + ext + " from " + from);
      if (ext == ".keras") {
        for (const auto& [layer, policy] : quantized_policies_in(file)) {
          EXPECT_EQ(policy["class_name"], keras_policies.at(layer)["class_name"]) << layer;
          EXPECT_EQ(policy["config"], keras_policies.at(layer)["config"]) << layer;
        }
        // Every variable is stored with the element type Keras's own file gives it (the
        // int8 tables as int8).
        EXPECT_EQ(quantized_variable_types(file, scratch.file("strata.weights.h5")),
                  quantized_variable_types(kQuantizedDir + GetParam() + ".keras", scratch.file("keras.weights.h5")))
            << ext << " from " << from;
      }
      if (keep && from == ".keras") {
        std::filesystem::create_directories(keep);
        std::filesystem::copy_file(file, std::string(keep) + "/" + GetParam() + ext,
                                   std::filesystem::copy_options::overwrite_existing);
      }
    }
  }
}

// int8, and Keras's sub-channel int4 ("int4/128": the float layers on the kernel Keras
// dequantizes, layers/core/int4_quantization.h).
INSTANTIATE_TEST_SUITE_P(Keras3, Int8Files, ::testing::Values("int8_mlp", "int8_tokens", "int4_mlp", "int4_tokens"));

nlohmann::ordered_json int4_policy(const std::string& mode) {
  return {{"module", "keras.dtype_policies"},
          {"class_name", "Int4DTypePolicy"},
          {"config", {{"mode", mode}, {"source_name", "float32"}}},
          {"registered_name", nullptr}};
}

nlohmann::ordered_json int8_policy() {
  return {{"module", "keras.dtype_policies"},
          {"class_name", "QuantizedDTypePolicy"},
          {"config", {{"mode", "int8"}, {"source_name", "float32"}}},
          {"registered_name", nullptr}};
}

// Keras's float8 file (QuantizedFloat8DTypePolicy, layers/core/float8_quantization.h): the
// inputs and kernels quantized-dequantized to float8_e4m3fn, the bias rounded to bfloat16;
// Keras's predictions (within float32's rounding: expect_predicts_keras), saved back with Keras's policy and variables; training,
// whose scale updates Strata does not emulate, refused by name. (Keras writes no .h5 of it
// that it can load.)
TEST(Float8Files, LoadPredictWhatKerasPredictedAndSaveBack) {
  testing::ScratchDir scratch;
  Model model = models::load_model(kQuantizedDir + "float8_mlp.keras");
  expect_predicts_keras(model, kQuantizedDir + "float8_mlp", "float8_mlp.keras");
  EXPECT_EQ(model.get_layer("dense").impl().quantization_mode, "float8/1024");
  const std::string file = scratch.file("again.keras");
  model.save(file);
  Model again = models::load_model(file);
  expect_predicts_keras(again, kQuantizedDir + "float8_mlp", "Strata's float8_mlp.keras");
  const auto keras_policies = quantized_policies_in(kQuantizedDir + "float8_mlp.keras");
  for (const auto& [layer, policy] : quantized_policies_in(file)) {
    EXPECT_EQ(policy["class_name"], "QuantizedFloat8DTypePolicy") << layer;
    EXPECT_EQ(policy["config"], keras_policies.at(layer)["config"]) << layer;
  }
  EXPECT_EQ(quantized_variable_types(file, scratch.file("strata.weights.h5")),
            quantized_variable_types(kQuantizedDir + "float8_mlp.keras", scratch.file("keras.weights.h5")));
  if (const char* keep = std::getenv("STRATA_QUANTIZED_RESAVE_DIR")) {
    std::filesystem::create_directories(keep);
    std::filesystem::copy_file(file, std::string(keep) + "/float8_mlp.keras", std::filesystem::copy_options::overwrite_existing);
  }
  const Tensor x = io::load_npy(kQuantizedDir + "float8_mlp.input0.npy");
  model.compile({.optimizer = optimizers::SGD(), .loss = losses::MeanSquaredError()});
  EXPECT_THROW_WITH(model.fit(x, model.predict(x), {.epochs = 1, .verbose = 0}), NotImplementedError, "'dense'",
                    "float8");
}

// What the file's policy asks beyond what Strata computes is refused by name: an int8
// policy on a class with no int8 form, a quantization_config other than Keras's default
// (here weight-only int8: no input quantizer), a policy key Strata does not read.
TEST(QuantizedPolicyConfigs, WhatStrataDoesNotComputeIsRefusedByName) {
  using json = nlohmann::ordered_json;
  auto refused = [](const json& entry, const std::string& key, const std::string& value) {
    try {
      io::layer_from_config(entry, {});
      ADD_FAILURE() << "accepted " << entry.dump();
    } catch (const NotImplementedError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("'q'"), std::string::npos) << msg;
      EXPECT_NE(msg.find("'" + key + "'"), std::string::npos) << msg;
      EXPECT_NE(msg.find(value), std::string::npos) << msg;
    }
  };
  refused({{"class_name", "Conv1D"}, {"config", {{"name", "q"}, {"filters", 2}, {"kernel_size", 3}, {"dtype", int8_policy()}}}},
          "dtype", "Conv1D has no int8 form");
  json weight_only = io::quantization_config_of("int8");
  weight_only["config"]["activation_quantizer"] = nullptr;
  refused({{"class_name", "Dense"},
           {"config", {{"name", "q"}, {"units", 2}, {"dtype", int8_policy()}, {"quantization_config", weight_only}}}},
          "quantization_config", "\"activation_quantizer\":null");
  json extra = int8_policy();
  extra["config"]["amax_history_length"] = 8;
  refused({{"class_name", "Dense"}, {"config", {{"name", "q"}, {"units", 2}, {"dtype", extra}}}}, "dtype",
          "amax_history_length");
  // A quantized policy by name, and a mode that is not a string.
  refused({{"class_name", "Dense"}, {"config", {{"name", "q"}, {"units", 2}, {"dtype", "int8_from_float32"}}}}, "dtype",
          "int8_from_float32");
  json numeric_mode = int8_policy();
  numeric_mode["config"]["mode"] = 8;
  refused({{"class_name", "Dense"}, {"config", {{"name", "q"}, {"units", 2}, {"dtype", numeric_mode}}}}, "dtype",
          "mode is not a string");
  // Keras's default int8 config, and none at all, are what Strata computes.
  for (const json& config : {io::quantization_config_of("int8"), json()}) {
    const Layer dense = io::layer_from_config(
        {{"class_name", "Dense"}, {"config", {{"name", "q"}, {"units", 2}, {"dtype", int8_policy()}, {"quantization_config", config}}}},
        {});
    EXPECT_EQ(dense.impl().quantization_mode, "int8");
  }
  // int4: Keras's per-channel mode ("int4": inputs quantized, no groups) and an int4 config
  // with an input quantizer are not what Strata computes.
  json per_channel = int4_policy("int4");
  refused({{"class_name", "Dense"}, {"config", {{"name", "q"}, {"units", 2}, {"dtype", per_channel}}}}, "dtype",
          "sub-channel int4");
  json quantized_inputs = io::quantization_config_of("int4/128");
  quantized_inputs["config"]["activation_quantizer"] = io::quantization_config_of("int8")["config"]["activation_quantizer"];
  refused({{"class_name", "Dense"},
           {"config", {{"name", "q"}, {"units", 2}, {"dtype", int4_policy("int4/128")}, {"quantization_config", quantized_inputs}}}},
          "quantization_config", "AbsMaxQuantizer");
}

// Keras's sub-channel int4 with several groups (the files above hold one): the float kernel
// (q − zero[g_idx]) · scale[g_idx] from nibbles packed along the columns (the even column in
// the low nibble, an odd count padded), written out here, for a Dense (groups of rows) and an
// Embedding (groups of columns).
TEST(Int4Layers, DequantizeByGroupsAsKerasDoes) {
  using json = nlohmann::ordered_json;
  // A byte's two signed nibbles, as Keras's unpack_int4.
  auto nibble = [](int byte, int which) {
    const int u = byte & 0xff, t = which == 0 ? u & 15 : u >> 4;
    return t >= 8 ? t - 16 : t;
  };
  std::mt19937 rng(4);
  std::uniform_int_distribution<int> bytes(-128, 127), zeros(-8, 7);
  std::uniform_real_distribution<float> scales(0.05f, 0.5f), values(-1.f, 1.f);
  {  // Dense(3) on 5 inputs, groups of 2 rows: g_idx 0 0 1 1 2.
    const std::int64_t in = 5, units = 3, packed = 2, groups = 3;
    Layer dense = io::layer_from_config(
        {{"class_name", "Dense"},
         {"config", {{"name", "q"}, {"units", units}, {"dtype", int4_policy("int4/2")},
                     {"quantization_config", io::quantization_config_of("int4/2")}}}},
        {});
    const KerasTensor x_in = Input({in});
    Model model(x_in, dense(x_in));
    std::vector<float> p(in * packed), b(units), s(groups * units), z(groups * units), g(in);
    for (float& v : p) v = static_cast<float>(bytes(rng));
    for (float& v : b) v = values(rng);
    for (float& v : s) v = scales(rng);
    for (float& v : z) v = static_cast<float>(zeros(rng));
    for (std::int64_t r = 0; r < in; ++r) g[static_cast<std::size_t>(r)] = static_cast<float>(r / 2);
    ASSERT_EQ(dense.weights().size(), 5u);  // kernel, bias, kernel_scale, kernel_zero, g_idx: Keras's order
    dense.set_weights({Tensor::from_vector<float>({in, packed}, p), Tensor::from_vector<float>({units}, b),
                       Tensor::from_vector<float>({groups, units}, s), Tensor::from_vector<float>({groups, units}, z),
                       Tensor::from_vector<float>({in}, g)});
    std::vector<float> xv(2 * in);
    for (float& v : xv) v = values(rng);
    const auto got = model.predict(Tensor::from_vector<float>({2, in}, xv)).to_vector<float>();
    for (std::int64_t i = 0; i < 2; ++i) {
      for (std::int64_t c = 0; c < units; ++c) {
        double want = b[static_cast<std::size_t>(c)];
        for (std::int64_t r = 0; r < in; ++r) {
          const int q = nibble(static_cast<int>(p[static_cast<std::size_t>(r * packed + c / 2)]), static_cast<int>(c % 2));
          const std::size_t at = static_cast<std::size_t>((r / 2) * units + c);
          want += double(xv[static_cast<std::size_t>(i * in + r)]) * double((float(q) - z[at]) * s[at]);
        }
        EXPECT_NEAR(got[static_cast<std::size_t>(i * units + c)], want, 1e-5) << i << ", " << c;
      }
    }
  }
  {  // Embedding(4, 5), groups of 2 columns: g_idx 0 0 1 1 2 over the columns.
    const std::int64_t rows = 4, columns = 5, packed = 3, groups = 3;
    Layer embedding = io::layer_from_config(
        {{"class_name", "Embedding"},
         {"config", {{"name", "q"}, {"input_dim", rows}, {"output_dim", columns}, {"dtype", int4_policy("int4/2")},
                     {"quantization_config", io::quantization_config_of("int4/2")}}}},
        {});
    const KerasTensor ids_in = Input({2}, {.dtype = DType::int32});
    Model model(ids_in, embedding(ids_in));
    std::vector<float> p(rows * packed), s(rows * groups), z(rows * groups), g(columns);
    for (float& v : p) v = static_cast<float>(bytes(rng));
    for (float& v : s) v = scales(rng);
    for (float& v : z) v = static_cast<float>(zeros(rng));
    for (std::int64_t c = 0; c < columns; ++c) g[static_cast<std::size_t>(c)] = static_cast<float>(c / 2);
    ASSERT_EQ(embedding.weights().size(), 4u);  // embeddings, embeddings_scale, embeddings_zero, g_idx
    embedding.set_weights({Tensor::from_vector<float>({rows, packed}, p), Tensor::from_vector<float>({rows, groups}, s),
                           Tensor::from_vector<float>({rows, groups}, z), Tensor::from_vector<float>({columns}, g)});
    const std::vector<std::int32_t> ids{3, 1};
    const auto got = model.predict(Tensor::from_vector<std::int32_t>({1, 2}, ids)).to_vector<float>();
    for (std::size_t k = 0; k < ids.size(); ++k) {
      const std::int64_t r = ids[k];
      for (std::int64_t c = 0; c < columns; ++c) {
        const int q = nibble(static_cast<int>(p[static_cast<std::size_t>(r * packed + c / 2)]), static_cast<int>(c % 2));
        const std::size_t at = static_cast<std::size_t>(r * groups + c / 2);
        EXPECT_EQ(got[k * columns + static_cast<std::size_t>(c)], (float(q) - z[at]) * s[at]) << r << ", " << c;
      }
    }
  }
}

}  // namespace
}  // namespace strata::quantized_files_test
