// Saving and loading the 3-D and 1-D-transposed convolution family: models saved by
// Keras 3.15.1 (tests/reference/make_conv3d_goldens.py) load from .keras and .h5 and
// predict what Keras predicted; a Strata model with every new layer round-trips through
// to_json, .keras and .h5; Keras 2's spellings of the amounts are read.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "io/hdf5.h"
#include "io/layer_config.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "keras_test_util.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "layers/pooling/global_pooling.h"
#include "layers/pooling/pooling.h"
#include "layers/reshaping/flatten.h"
#include "layers/reshaping/spatial_padding.h"
#include "layers/reshaping/upsampling.h"
#include "models/model.h"
#include "test_util.h"

namespace strata::conv3d_configs_test {
namespace {

using json = nlohmann::ordered_json;
using namespace strata::layers;

Tensor ramp(Shape shape) {
  Tensor t(shape);
  auto v = t.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.05f * static_cast<float>(i % 23) - 0.5f;
  return t;
}

// Distinct values in every weight, so one read into the wrong slot changes predictions.
void fill_weights(const Model& m) {
  std::vector<Tensor> values;
  int k = 0;
  for (const auto& w : m.weights()) {
    Tensor t(w.shape());
    auto v = t.values<float>();
    for (std::size_t i = 0; i < v.size(); ++i) {
      v[i] = 0.1f * static_cast<float>((i * 7 + static_cast<std::size_t>(k) * 3) % 11) - 0.5f;
    }
    values.push_back(t);
    ++k;
  }
  m.set_weights(values);
}

class Keras3Files : public ::testing::TestWithParam<std::string> {};

TEST_P(Keras3Files, LoadFromKerasAndH5AndPredictAsKeras) {
  const std::string base = testing::golden_dir() + "/" + GetParam();
  for (const std::string ext : {".keras", ".h5"}) {
    SCOPED_TRACE(ext);
    Model model = models::load_model(base + ext);
    auto outs = model.predict(testing::load_numbered(base, "input"));
    auto ys = testing::load_numbered(base, "output");
    ASSERT_EQ(outs.size(), 1u);
    ASSERT_EQ(ys.size(), 1u);
    testing::expect_close(outs[0], ys[0], GetParam() + ext);
  }
}

INSTANTIATE_TEST_SUITE_P(Conv3D, Keras3Files, ::testing::Values("conv3d_block", "conv1d_transpose_seq"));

// Every new layer, channels_first included, in one functional model.
Model volume_model() {
  auto x = Input({6, 6, 6, 2}, {.name = "volume"});
  auto h = Conv3D(4, 3, {.padding = "same", .activation = "relu", .name = "conv"})(x);
  h = MaxPooling3D(2, {.name = "pool"})(h);
  h = ZeroPadding3D({{1, 0}, {0, 1}, {1, 1}}, {.name = "pad"})(h);
  h = Conv3DTranspose(3, 3, {.strides = {2, 1, 2}, .padding = "same", .output_padding = IntTriple{1, 0, 1},
                                     .name = "deconv"})(h);
  h = Cropping3D({1, 0, 2}, {.name = "crop"})(h);
  h = AveragePooling3D({2, 1, 2}, {.strides = IntTriple{2, 1, 1}, .padding = "same", .name = "avg"})(h);
  h = UpSampling3D({1, 2, 1}, {.name = "up"})(h);
  h = Conv3D(2, 2, {.data_format = "channels_first", .groups = 1, .name = "conv_cf"})(h);
  auto g = GlobalMaxPooling3D({.name = "gmp"})(h);
  auto y = Dense(2, {.name = "out"})(g);
  return Model(x, y, {.name = "volume_model"});
}

Model sequence_model() {
  auto x = Input({7, 3}, {.name = "steps"});
  auto h = Conv1DTranspose(4, 3, {.strides = 2, .padding = "same", .output_padding = 1, .activation = "relu",
                                  .name = "up"})(x);
  h = Conv1DTranspose(2, 2, {.data_format = "channels_first", .dilation_rate = 2, .name = "dilated"})(h);
  auto y = Dense(2, {.name = "out"})(Flatten({.name = "flat"})(h));
  return Model(x, y, {.name = "sequence_model"});
}

struct Case {
  const char* name;
  Model (*make)();
  Shape input;
};

class Conv3DRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(Conv3DRoundTrip, ToJsonKerasAndH5GiveTheSameModelAndPredictions) {
  testing::ScratchDir dir;
  Model m = GetParam().make();
  fill_weights(m);
  const std::vector<Tensor> x{ramp(GetParam().input)};
  const auto expected = m.predict(x);
  Model from_json = models::model_from_json(m.to_json());
  EXPECT_EQ(from_json.to_json(), m.to_json());
  for (const std::string ext : {".keras", ".h5"}) {
    SCOPED_TRACE(ext);
    const std::string path = dir.file(std::string(GetParam().name) + ext);
    m.save(path);
    Model again = models::load_model(path);
    EXPECT_EQ(again.to_json(), m.to_json());
    testing::expect_close(again.predict(x)[0], expected[0], "prediction", 0, 0);
  }
}

INSTANTIATE_TEST_SUITE_P(Models, Conv3DRoundTrip,
                         ::testing::Values(Case{"volume_model", volume_model, Shape{2, 6, 6, 6, 2}},
                                           Case{"sequence_model", sequence_model, Shape{3, 7, 3}}),
                         [](const auto& info) { return std::string(info.param.name); });

Layer from(const std::string& cls, const std::string& config, int keras_major = 2) {
  return io::layer_from_config(json{{"class_name", cls}, {"config", json::parse(config)}},
                               {.keras_major = keras_major, .source = "test"});
}

TEST(Conv3DConfigs, AmountsReadFromAnIntPerAxisIntsOrPairsAreWrittenAsPairs) {
  EXPECT_EQ(io::layer_config(from("ZeroPadding3D", R"({"name": "z", "padding": 2})"))["padding"],
            json::parse("[[2, 2], [2, 2], [2, 2]]"));
  EXPECT_EQ(io::layer_config(from("Cropping3D", R"({"name": "c", "cropping": [1, 2, 3]})"))["cropping"],
            json::parse("[[1, 1], [2, 2], [3, 3]]"));
  EXPECT_EQ(io::layer_config(from("ZeroPadding3D", R"({"name": "z", "padding": [[1, 0], [0, 2], [3, 1]]})"))["padding"],
            json::parse("[[1, 0], [0, 2], [3, 1]]"));
  EXPECT_THROW(from("ZeroPadding3D", R"({"name": "z", "padding": [[1, 0], [0, 2]]})"), ValueError);
  EXPECT_THROW(from("Cropping3D", R"({"name": "c", "cropping": [1, -1, 0]})"), ValueError);
}

TEST(Conv3DConfigs, Keras2TuplesIntsAndNullsAreRead) {
  Layer conv = from("Conv3D", R"({"name": "c", "filters": 4, "kernel_size": 3, "strides": [2, 1, 1],
      "padding": "SAME", "data_format": null, "dilation_rate": 1})");
  const auto& c = static_cast<const Conv3DImpl&>(conv.impl());
  EXPECT_EQ(c.kernel_size, (IntTriple{3, 3, 3}));
  EXPECT_EQ(c.options.strides, (IntTriple{2, 1, 1}));
  EXPECT_EQ(c.options.padding, "same");
  EXPECT_EQ(io::layer_config(conv)["kernel_size"], json::parse("[3, 3, 3]"));

  Layer pool = from("MaxPooling3D", R"({"name": "p", "pool_size": [2, 2, 1], "strides": null})");
  EXPECT_EQ(io::layer_config(pool)["strides"], json::parse("[2, 2, 1]"));

  Layer t1 = from("Conv1DTranspose", R"({"name": "t", "filters": 2, "kernel_size": 3, "strides": 2,
      "output_padding": null})");
  EXPECT_EQ(io::layer_config(t1)["kernel_size"], json::parse("[3]"));
  EXPECT_EQ(io::layer_config(t1)["output_padding"], nullptr);
  Layer t3 = from("Conv3DTranspose", R"({"name": "t", "filters": 2, "kernel_size": 3, "strides": 2,
      "output_padding": 1})");
  EXPECT_EQ(io::layer_config(t3)["output_padding"], json::parse("[1, 1, 1]"));
}

TEST(Conv3DConfigs, TransposedConvolutionsRefuseGroupsAndBadOutputPadding) {
  EXPECT_THROW_WITH(from("Conv3DTranspose", R"({"name": "t", "filters": 2, "kernel_size": 3, "groups": 2})"),
                    NotImplementedError, "groups");
  EXPECT_THROW_WITH(from("Conv1DTranspose", R"({"name": "t", "filters": 2, "kernel_size": 3, "strides": 2,
      "output_padding": 2})"), ValueError, "output_padding", "strictly less than strides");
}

// A Keras 2 .h5 written by the Theano backend holding one layer of `cls` whose kernel
// (2, 1, 2, 1, 1) is 1, 2, 3, 4.
std::string theano_h5(const testing::ScratchDir& dir, const std::string& cls) {
  const std::string path = dir.file(cls + ".h5");
  io::h5::File f(path, io::h5::File::Mode::create);
  f.write_string_attribute("keras_version", "2.2.4");
  f.write_string_attribute("backend", "theano");
  f.write_string_attribute("model_config", R"({"class_name": "Sequential", "config": {"name": "s",
      "layers": [{"class_name": ")" + cls + R"(", "config": {"name": "c", "filters": 1,
      "kernel_size": [2, 1, 2], "use_bias": false, "batch_input_shape": [null, 2, 1, 2, 1]}}]}})");
  auto mw = f.create_group("model_weights");
  mw.write_string_list_attribute("layer_names", {"c"});
  mw.write_string_attribute("backend", "theano");
  auto g = mw.create_group("c");
  g.write_string_list_attribute("weight_names", {"c/kernel:0"});
  Tensor k(Shape{2, 1, 2, 1, 1});
  auto v = k.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i + 1);
  g.create_dataset("c/kernel:0", k);
  f.close();
  return path;
}

// Keras 2's loader flips Theano's Conv3D kernels along their spatial axes and leaves
// Conv3DTranspose's as they are (its list of classes to flip does not name it).
TEST(Conv3DConfigs, TheanoConv3DKernelsAreFlippedBackAndConv3DTransposeKernelsAreNot) {
  testing::ScratchDir dir;
  Model conv = models::load_model(theano_h5(dir, "Conv3D"));
  EXPECT_EQ(conv.get_layer("c").get_weights()[0].to_vector<float>(), (std::vector<float>{4, 3, 2, 1}));
  Model deconv = models::load_model(theano_h5(dir, "Conv3DTranspose"));
  EXPECT_EQ(deconv.get_layer("c").get_weights()[0].to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

}  // namespace
}  // namespace strata::conv3d_configs_test
