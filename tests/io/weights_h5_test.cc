#include "io/weights_h5.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/error.h"
#include "io/hdf5.h"
#include "tests/io/test_util.h"

namespace strata::weights_h5_test {
namespace {

using io::LayerWeights;
using io::load_weights_h5;
using io::save_weights_h5;
using io::h5::File;
using testing::ScratchDir;

const std::string kKerasModels = std::string(STRATA_SHARED_DIR) + "/keras-models";

Tensor iota(Shape shape, float start) {
  Tensor t(std::move(shape));
  float v = start;
  for (float& x : t.values<float>()) x = v++;
  return t;
}

Variable var(const std::string& path, Shape shape, float start) {
  return Variable(path, iota(std::move(shape), start));
}

// A small MLP's layers, as models/ would describe them: weights in Keras's order.
std::vector<LayerWeights> mlp(float start = 0) {
  return {
      {"dense", {var("dense/kernel", {4, 3}, start), var("dense/bias", {3}, start + 100)}, "Dense"},
      {"dropout", {}, "Dropout"},
      {"dense_1",
       {var("dense_1/kernel", {3, 2}, start + 200), var("dense_1/bias", {2}, start + 300)},
       "Dense"},
  };
}

void expect_same_values(const std::vector<LayerWeights>& a, const std::vector<LayerWeights>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t l = 0; l < a.size(); ++l) {
    ASSERT_EQ(a[l].weights.size(), b[l].weights.size());
    for (std::size_t i = 0; i < a[l].weights.size(); ++i) {
      EXPECT_EQ(a[l].weights[i].value().to_vector<float>(),
                b[l].weights[i].value().to_vector<float>())
          << a[l].weights[i].path();
    }
  }
}

TEST(WeightsH5, RoundTripsInBothLayouts) {
  ScratchDir dir;
  for (const std::string name : {"model.h5", "model.weights.h5"}) {
    const auto saved = mlp(1);
    save_weights_h5(dir.file(name), saved);
    auto fresh = mlp(-1000);
    load_weights_h5(dir.file(name), fresh);
    expect_same_values(saved, fresh);
  }
}

TEST(WeightsH5, Keras2LayoutMatchesTfKerasSaveWeights) {
  ScratchDir dir;
  save_weights_h5(dir.file("w.h5"), mlp());
  File f(dir.file("w.h5"), File::Mode::read);
  EXPECT_EQ(f.read_string_list_attribute("layer_names"),
            (std::vector<std::string>{"dense", "dropout", "dense_1"}));
  EXPECT_EQ(f.read_string_attribute("backend"), "tensorflow");
  EXPECT_EQ(f.read_string_attribute("keras_version"), io::kKeras2LayoutVersion);
  EXPECT_EQ(f.open_group("dense").read_string_list_attribute("weight_names"),
            (std::vector<std::string>{"dense/kernel:0", "dense/bias:0"}));
  EXPECT_TRUE(f.open_group("dropout").read_string_list_attribute("weight_names").empty());
  auto kernel = f.open_dataset("dense_1/dense_1/kernel:0");
  EXPECT_EQ(kernel.shape(), (Shape{3, 2}));
  EXPECT_EQ(kernel.type_name(), "float32");
  EXPECT_EQ(kernel.read(DType::float32).item(5), 205.0f);
}

TEST(WeightsH5, Keras3LayoutKeysLayersByClassName) {
  ScratchDir dir;
  auto layers = mlp();
  layers[0].layer_name = "hidden";  // keys ignore names: dense, dropout, dense_1
  layers[2].layer_name = "logits";
  save_weights_h5(dir.file("m.weights.h5"), layers);
  File f(dir.file("m.weights.h5"), File::Mode::read);
  EXPECT_EQ(f.children(), (std::vector<std::string>{"layers"}));
  EXPECT_EQ(f.open_group("layers").children(),
            (std::vector<std::string>{"dense", "dense_1", "dropout"}));
  auto vars = f.open_group("layers/dense_1/vars");
  EXPECT_EQ(vars.read_string_attribute("name"), "logits");
  EXPECT_EQ(vars.children(), (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(vars.open_dataset("0").shape(), (Shape{3, 2}));
  EXPECT_TRUE(f.open_group("layers/dropout/vars").children().empty());
}

TEST(WeightsH5, SnakeCaseKeysFollowKeras) {
  EXPECT_EQ(io::to_snake_case("Dense"), "dense");
  EXPECT_EQ(io::to_snake_case("BatchNormalization"), "batch_normalization");
  EXPECT_EQ(io::to_snake_case("Conv2D"), "conv2d");
  EXPECT_EQ(io::to_snake_case("LSTM"), "lstm");
  EXPECT_EQ(io::to_snake_case("InputLayer"), "input_layer");
  EXPECT_EQ(io::to_snake_case("GlobalAveragePooling2D"), "global_average_pooling2d");
  EXPECT_EQ(io::to_snake_case("GRUCell"), "gru_cell");
  EXPECT_EQ(io::to_snake_case("PReLU"), "p_re_lu");  // as Keras's regexes make it
  std::vector<LayerWeights> layers = {{"in", {}, "InputLayer"}, {"a", {}, "Dense"},
                                      {"b", {}, "Conv2D"},      {"c", {}, "Dense"},
                                      {"d", {}, "Dense"},       {"named", {}}};
  EXPECT_EQ(
      io::keras3_layer_keys(layers),
      (std::vector<std::string>{"input_layer", "dense", "conv2d", "dense_1", "dense_2", "named"}));
}

TEST(WeightsH5, RefusesDuplicateWeightNamesAndKeepsOldFile) {
  ScratchDir dir;
  for (const std::string name : {"w.h5", "w.weights.h5"}) {
    save_weights_h5(dir.file(name), mlp(1));
    const std::string before = testing::read_bytes(dir.file(name));
    auto layers = mlp(2);
    layers[2].weights[0].set_path("dense/kernel");  // collides with layer 'dense'
    EXPECT_THROW_WITH(save_weights_h5(dir.file(name), layers), ValueError, "layer 'dense_1'",
                      "layer 'dense'", "'dense/kernel'", "unique");
    EXPECT_EQ(testing::read_bytes(dir.file(name)), before);
    auto fresh = mlp(-5);
    load_weights_h5(dir.file(name), fresh);
    expect_same_values(mlp(1), fresh);
  }
  auto twice = mlp();
  twice[2].layer_name = "dense";
  EXPECT_THROW_WITH(save_weights_h5(dir.file("x.h5"), twice), ValueError,
                    "two layers are named 'dense'");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"w.h5", "w.weights.h5"}));  // no temp files
}

TEST(WeightsH5, FailureWhileWritingKeepsOldFile) {
  ScratchDir dir;
  for (const std::string name : {"w.h5", "w.weights.h5"}) {
    save_weights_h5(dir.file(name), mlp(1));
    const std::string before = testing::read_bytes(dir.file(name));
    auto layers = mlp(2);
    layers[2].weights[1] = Variable("dense_1/bias", Tensor());  // fails after dense is written
    EXPECT_THROW_WITH(save_weights_h5(dir.file(name), layers), ValueError, "undefined tensor");
    EXPECT_EQ(testing::read_bytes(dir.file(name)), before);
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"w.h5", "w.weights.h5"}));
}

TEST(WeightsH5, FailedWriteLeavesNoTemporaryFile) {
  ScratchDir dir;
  std::filesystem::create_directories(dir.file("taken.h5/inside"));  // rename cannot replace it
  EXPECT_THROW_WITH(save_weights_h5(dir.file("taken.h5"), mlp()), IOError, "taken.h5");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"taken.h5"}));
  EXPECT_THROW_WITH(save_weights_h5(dir.file("no/such/dir/w.h5"), mlp()), IOError, "w.h5");
}

TEST(WeightsH5, TruncatedOrGarbageFileIsIOError) {
  ScratchDir dir;
  for (const std::string name : {"w.h5", "w.weights.h5"}) {
    save_weights_h5(dir.file(name), mlp());
    const std::string bytes = testing::read_bytes(dir.file(name));
    for (std::size_t keep :
         {bytes.size() - 1, bytes.size() / 2, std::size_t{100}, std::size_t{0}}) {
      testing::write_bytes(dir.file("cut_" + name), bytes.substr(0, keep));
      auto layers = mlp(-1);
      EXPECT_THROW(load_weights_h5(dir.file("cut_" + name), layers), IOError) << keep;
      expect_same_values(mlp(-1), layers);  // untouched
    }
  }
  EXPECT_THROW_WITH(load_weights_h5(dir.file("absent.h5"), mlp()), IOError, "absent.h5",
                    "does not exist");
}

TEST(WeightsH5, ShapeMismatchIsShapeErrorAndLoadsNothing) {
  ScratchDir dir;
  for (const std::string name : {"w.h5", "w.weights.h5"}) {
    save_weights_h5(dir.file(name), mlp(1));
    auto other = mlp(-1);
    other[2].weights[0] = var("dense_1/kernel", {3, 5}, 0);
    const auto before = other[0].weights[0].value().to_vector<float>();
    EXPECT_THROW_WITH(load_weights_h5(dir.file(name), other), ShapeError, name, "layer 'dense_1'",
                      "'dense_1/kernel'", "(3, 5)", "(3, 2)");
    EXPECT_EQ(other[0].weights[0].value().to_vector<float>(), before);  // all or nothing
  }
}

TEST(WeightsH5, MissingLayersAndCountMismatchesNameThePath) {
  ScratchDir dir;
  for (const std::string name : {"w.h5", "w.weights.h5"}) {
    save_weights_h5(dir.file(name), mlp());
    auto renamed = mlp();
    renamed[2].layer_name = "head";
    renamed[2].class_name = "";  // keyed by name in .weights.h5
    EXPECT_THROW_WITH(load_weights_h5(dir.file(name), renamed, {.by_name = true}), ValueError, name, "layer 'head'",
                      "head");
    auto extra = mlp();
    extra[0].weights.push_back(var("dense/extra", {1}, 0));
    EXPECT_THROW_WITH(load_weights_h5(dir.file(name), extra, {.by_name = true}), ValueError, name, "layer 'dense'",
                      "has 3 weights", "holds 2");
  }
}

TEST(WeightsH5, H5LoadsByOrderByDefaultAndByNameOnRequest) {
  ScratchDir dir;
  save_weights_h5(dir.file("w.h5"), mlp(1));
  // Keras's default for .h5: layers with weights in order, whatever their names.
  auto renamed = mlp(-1);
  renamed[2].layer_name = "head";
  load_weights_h5(dir.file("w.h5"), renamed);
  EXPECT_EQ(renamed[2].weights[0].value().to_vector<float>(), mlp(1)[2].weights[0].value().to_vector<float>());
  // A model with another number of weighted layers is refused, naming both lists.
  auto fewer = mlp(-1);
  fewer.pop_back();
  EXPECT_THROW_WITH(load_weights_h5(dir.file("w.h5"), fewer), ValueError, "w.h5", "by_name");
  // skip_mismatch needs by_name for .h5, as in Keras.
  EXPECT_THROW(load_weights_h5(dir.file("w.h5"), mlp(-1), {.skip_mismatch = true}), ValueError);
}

TEST(WeightsH5, SkipMismatchLeavesLayersThatDontFitAndLoadsTheRest) {
  ScratchDir dir;
  for (const std::string name : {"w.h5", "w.weights.h5"}) {
    save_weights_h5(dir.file(name), mlp(1));
    auto other = mlp(-1);
    other[2].weights[0] = var("dense_1/kernel", {3, 5}, 0);  // shape differs from the file's
    const auto untouched = other[2].weights[0].value().to_vector<float>();
    load_weights_h5(dir.file(name), other, {.by_name = true, .skip_mismatch = true});
    EXPECT_EQ(other[2].weights[0].value().to_vector<float>(), untouched) << name;
    EXPECT_EQ(other[0].weights[0].value().to_vector<float>(), mlp(1)[0].weights[0].value().to_vector<float>()) << name;
  }
}

TEST(WeightsH5, Keras3LayoutFallsBackToTheNameAttribute) {
  ScratchDir dir;
  save_weights_h5(dir.file("w.weights.h5"), mlp(1));  // stored under layers/dense, dense_1
  auto by_name = mlp(-1);
  for (auto& layer : by_name) layer.class_name = "";  // keys: dense, dropout, dense_1 by name
  by_name[0].class_name = "Renamed";                  // key 'renamed' misses; attr name matches
  load_weights_h5(dir.file("w.weights.h5"), by_name);
  expect_same_values(mlp(1), by_name);
}

// Weights saved by real Keras in full-model files (tf.keras and Keras 2.3): loaded by
// layer name from /model_weights.
TEST(WeightsH5, LoadsWeightsFromRealKerasFiles) {
  if (!std::filesystem::exists(kKerasModels)) GTEST_SKIP() << "no " << kKerasModels;
  std::vector<LayerWeights> iris = {
      {"dense_1", {var("dense_1/kernel", {4, 20}, 0), var("dense_1/bias", {20}, 0)}},
      {"dense_2", {var("dense_2/kernel", {20, 3}, 0), var("dense_2/bias", {3}, 0)}},
  };
  load_weights_h5(kKerasModels + "/mlp_iris_k214.h5", iris, {.by_name = true});  // a subset of its layers
  std::vector<LayerWeights> nids = {
      {"conv1d", {var("conv1d/kernel", {2, 1, 32}, 0), var("conv1d/bias", {32}, 0)}},
      {"flatten", {}},
      {"dense_1", {var("dense_1/kernel", {64, 1}, 0), var("dense_1/bias", {1}, 0)}},
  };
  load_weights_h5(kKerasModels + "/conv1d_nids_tf214.h5", nids, {.by_name = true});  // a subset of its layers
  for (const auto* layers : {&iris, &nids}) {
    for (const auto& layer : *layers) {
      for (const auto& w : layer.weights) {
        bool changed = false;
        for (float v : w.value().values<float>()) {
          ASSERT_TRUE(std::isfinite(v)) << w.path();
          changed |= (v != 0.0f);
        }
        if (w.name() == "kernel") EXPECT_TRUE(changed) << w.path();
      }
    }
  }
  std::vector<LayerWeights> wrong = {{"dense_1", {var("k", {4, 21}, 0), var("b", {20}, 0)}}};
  EXPECT_THROW_WITH(load_weights_h5(kKerasModels + "/mlp_iris_k214.h5", wrong, {.by_name = true}), ShapeError,
                    "/model_weights/dense_1/dense_1/kernel:0", "(4, 20)", "(4, 21)");
}

// The `model.weights.h5` member of a .keras zip (stored uncompressed, as Keras writes it),
// copied to `out`. Enough zip for a test; reading .keras files is io's later work.
bool extract_stored_member(const std::string& zip, const std::string& member,
                           const std::string& out) {
  const std::string bytes = testing::read_bytes(zip);
  auto byte = [&](std::size_t at) { return std::uint32_t(std::uint8_t(bytes[at])); };
  auto u16 = [&](std::size_t at) { return byte(at) | byte(at + 1) << 8; };
  auto u32 = [&](std::size_t at) { return u16(at) | u16(at + 2) << 16; };
  for (std::size_t at = bytes.find("PK\x03\x04"); at != std::string::npos && at + 30 < bytes.size();
       at = bytes.find("PK\x03\x04", at + 4)) {
    const std::uint32_t method = u16(at + 8), size = u32(at + 18), name_len = u16(at + 26),
                        extra_len = u16(at + 28);
    if (bytes.compare(at + 30, name_len, member) != 0 || method != 0) continue;
    testing::write_bytes(out, bytes.substr(at + 30 + name_len + extra_len, size));
    return true;
  }
  return false;
}

// A Keras 3.4.1 .keras file's weights: Sequential(LSTM, Dropout, LSTM, Dense).
TEST(WeightsH5, LoadsRealKeras3WeightsByClassKey) {
  const std::string zip = kKerasModels + "/lstm_stacked_k341_zip.keras";
  if (!std::filesystem::exists(zip)) GTEST_SKIP() << "no " << zip;
  ScratchDir dir;
  ASSERT_TRUE(extract_stored_member(zip, "model.weights.h5", dir.file("model.weights.h5")));
  std::vector<LayerWeights> layers = {
      {"lstm", {}, "LSTM"},  // its weights live under layers/lstm/cell/vars
      {"dropout", {}, "Dropout"},
      {"lstm_1", {}, "LSTM"},
      {"dense", {var("dense/kernel", {64, 1}, 0), var("dense/bias", {1}, 0)}, "Dense"},
  };
  load_weights_h5(dir.file("model.weights.h5"), layers);
  bool changed = false;
  for (float v : layers[3].weights[0].value().values<float>()) {
    ASSERT_TRUE(std::isfinite(v));
    changed |= (v != 0.0f);
  }
  EXPECT_TRUE(changed);
  layers[0].weights.push_back(var("lstm/kernel", {6, 400}, 0));
  EXPECT_THROW_WITH(load_weights_h5(dir.file("model.weights.h5"), layers), ValueError,
                    "layer 'lstm'", "/layers/lstm/vars", "holds 0");
}

}  // namespace
}  // namespace strata::weights_h5_test
