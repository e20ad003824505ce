// plot_model: the layer graph as Graphviz DOT with shapes, rendered when `dot` exists.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/plot_model.h"
#include "strata.h"

using namespace strata;

namespace plot_model_test {

namespace fs = std::filesystem;

namespace {
Model two_headed() {
  auto in = Input({4}, {.name = "features"});
  auto h = layers::Dense(16, {.activation = "relu", .name = "hidden"})(in);
  auto a = layers::Dense(3, {.name = "class_head"})(h);
  auto b = layers::Dense(1, {.name = "value_head"})(h);
  return Model({in}, {a, b}, {.name = "two_heads"});
}
}  // namespace

TEST(PlotModel, DotHasEveryLayerEveryCallAndShapes) {
  Model m = two_headed();
  std::string dot = model_to_dot(m, {.show_shapes = true});
  EXPECT_NE(dot.find("digraph \"two_heads\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("features (InputLayer)"), std::string::npos) << dot;
  EXPECT_NE(dot.find("hidden (Dense)|{{Input shape:|(None, 4)}|{Output shape:|(None, 16)}}"), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("class_head (Dense)|{{Input shape:|(None, 16)}|{Output shape:|(None, 3)}}"), std::string::npos)
      << dot;
  EXPECT_NE(dot.find("layer_0 -> layer_1;"), std::string::npos) << dot;
  EXPECT_NE(dot.find("layer_1 -> layer_2;"), std::string::npos) << dot;
  EXPECT_NE(dot.find("layer_1 -> layer_3;"), std::string::npos) << dot;
  std::string plain = model_to_dot(m, {.show_layer_names = false, .rankdir = "LR"});
  EXPECT_EQ(plain.find("Output shape"), std::string::npos);
  EXPECT_NE(plain.find("rankdir=LR"), std::string::npos);
  EXPECT_NE(plain.find("[label=\"Dense\"]"), std::string::npos) << plain;
}

TEST(PlotModel, WritesDotAndRendersPngWhenGraphvizIsInstalled) {
  Model m = two_headed();
  fs::path dir = fs::temp_directory_path() / ("strata_plot_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  plot_model(m, (dir / "m.dot").string(), {.show_shapes = true});
  std::ifstream in(dir / "m.dot");
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), model_to_dot(m, {.show_shapes = true}));
  const bool have_dot = std::system("command -v dot > /dev/null 2>&1") == 0;
  if (have_dot) {
    plot_model(m, (dir / "m.png").string(), {.show_shapes = true});
    std::ifstream png(dir / "m.png", std::ios::binary);
    char magic[8] = {};
    png.read(magic, 8);
    EXPECT_EQ(std::string(magic + 1, 3), "PNG");
  } else {
    try {
      plot_model(m, (dir / "m.png").string());
      FAIL() << "expected an IOError without Graphviz";
    } catch (const IOError& e) {
      EXPECT_NE(std::string(e.what()).find("graphviz"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir / "m.png"));
  }
  EXPECT_THROW(plot_model(m, (dir / "m.jpg").string()), ValueError);
  fs::remove_all(dir);
}

}  // namespace plot_model_test
