// Loading files written by real Keras: small models saved by Keras 3 in both formats
// (tests/reference/make_keras_goldens.py), and the real-world files in
// shared/keras-models, compared with Keras's predictions.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.h"
#include "io/hdf5.h"
#include "io/layer_config.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "io/zip.h"
#include "keras_test_util.h"
#include "layers/keras_class.h"
#include "models/compiled_model.h"
#include "test_util.h"

namespace strata::keras_files_test {
namespace {

using testing::expect_close;
using testing::load_numbered;

void check_golden(const std::string& name, const std::string& ext) {
  SCOPED_TRACE(name + ext);
  const std::string base = testing::golden_dir() + "/" + name;
  Model model = models::load_model(base + ext);
  auto xs = load_numbered(base, "input");
  auto ys = load_numbered(base, "output");
  ASSERT_FALSE(xs.empty());
  auto outs = model.predict(xs);
  ASSERT_EQ(outs.size(), ys.size());
  for (std::size_t i = 0; i < ys.size(); ++i)
    expect_close(outs[i], ys[i], name + ext + " output " + std::to_string(i));
}

class KerasGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(KerasGolden, Keras3ZipMatchesKerasPredictions) { check_golden(GetParam(), ".keras"); }
TEST_P(KerasGolden, Keras3LegacyH5MatchesKerasPredictions) { check_golden(GetParam(), ".h5"); }

INSTANTIATE_TEST_SUITE_P(SmallModels, KerasGolden,
                         ::testing::Values("functional_mlp", "sequential_mlp", "multi_io_shared",
                                           "nested"));

TEST(KerasGolden, CompiledModelsComeBackCompiled) {
  for (const std::string ext : {".keras", ".h5"}) {
    for (const std::string name :
         {"functional_mlp", "sequential_mlp", "multi_io_shared", "nested"}) {
      EXPECT_TRUE(models::load_model(testing::golden_dir() + "/" + name + ext).compiled())
          << name << ext;
    }
    Model u =
        models::load_model(testing::golden_dir() + "/functional_mlp" + ext, {.compile = false});
    EXPECT_FALSE(u.compiled()) << ext;
    // Loaded compiled, the model trains.
    Model m = models::load_model(testing::golden_dir() + "/functional_mlp" + ext);
    Tensor x = load_numbered(testing::golden_dir() + "/functional_mlp", "input")[0];
    auto logs =
        m.train_on_batch(x, load_numbered(testing::golden_dir() + "/functional_mlp", "output")[0]);
    EXPECT_TRUE(logs.count("loss")) << ext;
  }
}

TEST(KerasGolden, LayerOrderIsKerasOrder) {
  // Keras writes config layers in its model.layers order; rebuilding must give the same.
  for (const std::string name : {"multi_io_shared", "nested", "functional_mlp"}) {
    const std::string path = testing::golden_dir() + "/" + name + ".keras";
    io::ZipReader zip(path);
    auto config = nlohmann::json::parse(zip.read("config.json"));
    std::vector<std::string> keras_order, ours;
    for (const auto& l : config["config"]["layers"]) keras_order.push_back(l["name"]);
    for (const auto& l : io::keras_layer_order(models::load_model(path))) ours.push_back(l.name());
    EXPECT_EQ(ours, keras_order) << name;
  }
}

TEST(KerasGolden, OptimizerStateFromKeras3ZipIsRestored) {
  // Keras trained functional_mlp one step with Adam(0.01) before saving.
  const std::string path = testing::golden_dir() + "/functional_mlp.keras";
  Model m = models::load_model(path);
  const optimizers::Optimizer& opt = m.model().compiled->optimizer();
  EXPECT_EQ(opt.iterations(), 1);
  EXPECT_NEAR(opt.learning_rate(), 0.01f, 1e-7);
  testing::ScratchDir dir;
  testing::write_bytes(dir.file("w.h5"), io::ZipReader(path).read("model.weights.h5"));
  io::h5::File w(dir.file("w.h5"), io::h5::File::Mode::read);
  const auto vars = opt.variables();
  ASSERT_EQ(w.open_group("optimizer/vars").children().size(), vars.size());
  for (std::size_t i = 2; i < vars.size(); ++i) {
    Tensor stored = w.open_dataset("optimizer/vars/" + std::to_string(i)).read(DType::float32);
    EXPECT_EQ(stored.to_vector<float>(), vars[i].value().to_vector<float>()) << vars[i].path();
  }
}

// --- the real files -----------------------------------------------------------------------

nlohmann::json manifest() {
  std::ifstream in(testing::real_models_dir() + "/manifest.json");
  return nlohmann::json::parse(in);
}

TEST(RealKerasFiles, EachLoadsAndMatchesKerasOrNamesItsMissingLayerClass) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  const auto m = manifest();
  ASSERT_EQ(m["files"].size(), 8u);
  int compared = 0, unsupported = 0;
  for (const auto& entry : m["files"]) {
    const std::string id = entry["id"];
    SCOPED_TRACE(id);
    std::set<std::string> missing;
    for (const auto& cls : entry["layer_types_flat"]) {
      if (!layers::find_keras_class(cls.get<std::string>())) missing.insert(cls.get<std::string>());
    }
    const std::string path = testing::real_models_dir() + "/" + entry["file"].get<std::string>();
    const std::string golden = testing::real_goldens_dir() + "/" + id;
    ASSERT_FALSE(load_numbered(golden, "output").empty()) << "no Keras golden output for " << id;
    if (missing.empty()) {
      Model model = models::load_model(path);
      auto outs = model.predict(load_numbered(golden, "input"));
      auto ys = load_numbered(golden, "output");
      ASSERT_EQ(outs.size(), ys.size());
      for (std::size_t i = 0; i < ys.size(); ++i) expect_close(outs[i], ys[i], id);
      ++compared;
      continue;
    }
    try {
      models::load_model(path);
      ADD_FAILURE() << id << " loaded although it uses unsupported classes";
    } catch (const NotImplementedError& e) {
      const std::string msg = e.what();
      bool names_class = false;
      for (const auto& cls : missing)
        names_class |= msg.find("class '" + cls + "'") != std::string::npos;
      EXPECT_TRUE(names_class) << msg;
      bool names_layer = false;
      for (const auto& layer : entry["layer_names"]) {
        names_layer |= msg.find("layer '" + layer.get<std::string>() + "'") != std::string::npos;
      }
      // Bidirectional's inner layer is named in the wrapper's config, not in layer_names.
      names_layer |= msg.find("layer '") != std::string::npos && missing.count("Bidirectional");
      EXPECT_TRUE(names_layer) << msg;
      EXPECT_NE(msg.find("Supported classes: "), std::string::npos) << msg;
      ++unsupported;
    }
  }
  std::cout << "[ real files ] compared with Keras: " << compared
            << ", unsupported layer classes: " << unsupported << "\n";
  EXPECT_GE(compared, 1);
}

TEST(RealKerasFiles, MlpIrisKeras214IsABareListSequentialAndLoadsCompiled) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  Model m = models::load_model(testing::real_models_dir() + "/mlp_iris_k214.h5");
  EXPECT_EQ(m.layers().size(), 2u);
  EXPECT_EQ(m.layers()[0].name(), "dense_1");
  EXPECT_EQ(m.inputs()[0].shape(), (Shape{kUnknownDim, 4}));
  EXPECT_EQ(m.count_params(), 163);
  EXPECT_TRUE(m.compiled());  // Adam with Keras 2's "lr", categorical_crossentropy, accuracy
}

}  // namespace
}  // namespace strata::keras_files_test
