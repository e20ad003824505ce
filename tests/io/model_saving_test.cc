// Saving whole models from Strata (.h5 in the tf.keras 2 layout, .keras zip) and loading
// them back: same architecture, weights, predictions and compile state.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/hdf5.h"
#include "io/saving.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "layers/activations/activation.h"
#include "layers/core/dense.h"
#include "layers/regularization/dropout.h"
#include "layers/reshaping/flatten.h"
#include "layers/core/input_layer.h"
#include "layers/reshaping/reshape.h"
#include "models/compiled_model.h"
#include "models/sequential.h"
#include "optimizers/optimizers.h"
#include "test_util.h"

namespace strata::model_saving_test {
namespace {

Tensor ramp(Shape shape) {
  Tensor t(shape);
  auto v = t.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.05f * static_cast<float>(i % 23) - 0.5f;
  return t;
}

Model multi_io() {
  auto a = Input({2, 3}, {.name = "a"});
  auto b = Input({5}, {.name = "b"});
  auto shared = layers::Dense(4, {.activation = "elu", .name = "shared"});
  auto ya = shared(layers::Flatten({.name = "flat"})(a));
  auto yb = shared(layers::Dense(6, {.name = "proj"})(b));
  return Model({a, b}, {layers::Reshape({2, 2}, {.name = "reshape"})(ya), yb}, {.name = "multi"});
}

void expect_same_predictions(Model& a, Model& b, const std::vector<Tensor>& x) {
  auto p = a.predict(x), q = b.predict(x);
  ASSERT_EQ(p.size(), q.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    testing::expect_close(q[i], p[i], "output " + std::to_string(i), 0, 0);
}

class SaveFormat : public ::testing::TestWithParam<std::string> {};

TEST_P(SaveFormat, MultiInputSharedLayerModelRoundTrips) {
  testing::ScratchDir dir;
  Model m = multi_io();
  const std::string path = dir.file("m" + GetParam());
  m.save(path);
  Model again = models::load_model(path);
  EXPECT_EQ(again.to_json(), m.to_json());
  expect_same_predictions(m, again, {ramp({3, 2, 3}), ramp({3, 5})});
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"m" + GetParam()});  // no temporary left
}

TEST_P(SaveFormat, CompiledSequentialAndNestedModelRoundTrip) {
  testing::ScratchDir dir;
  Sequential inner({Input({4}), layers::Dense(3, {.activation = "relu"}), layers::Dropout(0.2)},
                   {.name = "inner"});
  auto x = Input({4});
  Model outer(x, layers::Activation("softmax")(layers::Dense(2)(inner(x))), {.name = "outer"});
  outer.compile({.optimizer = optimizers::SGD({.learning_rate = 0.05}),
                 .loss = "categorical_crossentropy",
                 .metrics = {"accuracy"}});
  const std::string path = dir.file("nested" + GetParam());
  outer.save(path);
  Model again = models::load_model(path);
  EXPECT_TRUE(again.compiled());
  expect_same_predictions(outer, again, {ramp({5, 4})});
  // A Sequential on its own, compiled with a string optimizer.
  Sequential seq({Input({3}), layers::Dense(2)});
  seq.compile({.optimizer = "adam", .loss = "mse"});
  seq.save(dir.file("seq" + GetParam()));
  Model seq2 = models::load_model(dir.file("seq" + GetParam()));
  EXPECT_TRUE(seq2.compiled());
  EXPECT_EQ(seq2.layers().size(), 1u);
  expect_same_predictions(seq, seq2, {ramp({2, 3})});
}

TEST_P(SaveFormat, NestedMultiInputModelWithFrozenLayerRoundTrips) {
  // Keras orders this inner model's layers by depth (the Dense on b first) and lists the
  // frozen layer's weights last in the nested .h5 group.
  testing::ScratchDir dir;
  auto a = Input({2, 3});
  auto b = Input({5});
  auto ya = layers::Dense(4, {.activation = "relu"})(layers::Flatten()(a));
  auto frozen = layers::Dense(6, {.name = "frozen"});
  frozen.set_trainable(false);
  auto yb = layers::Dense(7)(frozen(b));
  Model inner({a, b}, {ya, yb}, {.name = "branches"});
  auto x1 = Input({2, 3});
  auto x2 = Input({5});
  auto outs = inner({x1, x2});
  Model m({x1, x2}, {layers::Dense(1)(outs[0]), outs[1]});
  const std::string path = dir.file("nb" + GetParam());
  m.save(path);
  Model again = models::load_model(path);
  Model inner_again(std::static_pointer_cast<ModelImpl>(again.get_layer("branches").shared_impl()));
  EXPECT_FALSE(inner_again.get_layer("frozen").trainable());
  EXPECT_TRUE(inner_again.trainable());
  expect_same_predictions(m, again, {ramp({3, 2, 3}), ramp({3, 5})});
}

INSTANTIATE_TEST_SUITE_P(Formats, SaveFormat, ::testing::Values(".h5", ".keras"));

TEST(ModelSaving, KerasZipKeepsOptimizerStateSoTrainingResumesExactly) {
  testing::ScratchDir dir;
  Sequential m({Input({3}), layers::Dense(4, {.activation = "tanh"}), layers::Dense(2)});
  m.compile({.optimizer = optimizers::Adam({.learning_rate = 0.05}), .loss = "mse"});
  const Tensor x = ramp({6, 3}), y = ramp({6, 2});
  m.train_on_batch(x, y);
  m.train_on_batch(x, y);
  m.save(dir.file("m.keras"));
  Model again = models::load_model(dir.file("m.keras"));
  EXPECT_EQ(again.model().compiled->optimizer().iterations(), 2);
  m.train_on_batch(x, y);
  again.train_on_batch(x, y);
  expect_same_predictions(m, again, {ramp({2, 3})});
}

TEST(ModelSaving, H5FileHasTheTfKeras2Layout) {
  testing::ScratchDir dir;
  Sequential m({Input({3}), layers::Dense(2, {.name = "dense"})}, {.name = "seq"});
  m.save(dir.file("m.h5"));
  io::h5::File f(dir.file("m.h5"), io::h5::File::Mode::read);
  EXPECT_EQ(f.read_string_attribute("keras_version"), io::kKeras2LayoutVersion);
  auto config = nlohmann::json::parse(f.read_string_attribute("model_config"));
  EXPECT_EQ(config["class_name"], "Sequential");
  EXPECT_FALSE(config.contains("module"));
  EXPECT_EQ(config["config"]["layers"][0]["config"]["batch_input_shape"],
            nlohmann::json::parse("[null, 3]"));
  EXPECT_EQ(config["config"]["layers"][1]["config"]["dtype"], "float32");
  auto mw = f.open_group("model_weights");
  EXPECT_EQ(mw.read_string_list_attribute("layer_names"), std::vector<std::string>{"dense"});
  EXPECT_EQ(mw.open_group("dense").read_string_list_attribute("weight_names"),
            (std::vector<std::string>{"dense/kernel:0", "dense/bias:0"}));
  EXPECT_TRUE(mw.has_dataset("dense/dense/kernel:0"));
}

TEST(ModelSaving, KerasZipHasConfigMetadataAndKeyedWeights) {
  testing::ScratchDir dir;
  Model m = multi_io();
  m.save(dir.file("m.keras"));
  io::ZipReader zip(dir.file("m.keras"));
  EXPECT_EQ(zip.names(),
            (std::vector<std::string>{"metadata.json", "config.json", "model.weights.h5"}));
  auto meta = nlohmann::json::parse(zip.read("metadata.json"));
  EXPECT_TRUE(meta["keras_version"].get<std::string>().starts_with("3."));
  testing::write_bytes(dir.file("w.h5"), zip.read("model.weights.h5"));
  io::h5::File w(dir.file("w.h5"), io::h5::File::Mode::read);
  EXPECT_TRUE(w.has_dataset("layers/dense/vars/0"));  // "shared": first Dense in model.layers
  EXPECT_TRUE(w.has_dataset("layers/dense_1/vars/1"));
  EXPECT_FALSE(w.has_group("layers/input_layer/vars"));
}

TEST(ModelSaving, FormatIsToldBySignatureNotExtension) {
  testing::ScratchDir dir;
  Sequential m({Input({3}), layers::Dense(2)});
  m.save(dir.file("real.keras"));
  m.save(dir.file("real.h5"));
  std::filesystem::rename(dir.file("real.keras"), dir.file("zip_named.h5"));
  std::filesystem::rename(dir.file("real.h5"), dir.file("hdf5_named.keras"));
  for (const char* name : {"zip_named.h5", "hdf5_named.keras"}) {
    Model again = models::load_model(dir.file(name));
    expect_same_predictions(m, again, {ramp({2, 3})});
  }
}

TEST(ModelSaving, UnbuiltModelsAndDuplicateWeightNamesAreRefused) {
  testing::ScratchDir dir;
  Sequential lazy({layers::Dense(2)});
  EXPECT_THROW_WITH(lazy.save(dir.file("x.h5")), ValueError, "not built");
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
}  // namespace strata::model_saving_test
