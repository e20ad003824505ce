// Configs of the convolution family: Keras 2 configs (tuples as lists, BN axis lists,
// null data_format) read into the right options, and CNNs with BatchNormalization and
// merge layers round-trip through to_json / model_from_json, .keras and .h5 with the
// same predictions.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/hdf5.h"
#include "io/layer_config.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "keras_test_util.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/convolutional/depthwise_conv2d.h"
#include "layers/convolutional/separable_conv2d.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "layers/merging/concatenate.h"
#include "layers/merging/dot.h"
#include "layers/merging/merge.h"
#include "layers/normalization/batch_normalization.h"
#include "layers/normalization/layer_normalization.h"
#include "layers/pooling/global_pooling.h"
#include "layers/pooling/pooling.h"
#include "layers/regularization/spatial_dropout.h"
#include "layers/reshaping/permute.h"
#include "layers/reshaping/spatial_padding.h"
#include "layers/reshaping/upsampling.h"
#include "models/model.h"
#include "test_util.h"

namespace strata::conv_configs_test {
namespace {

using json = nlohmann::ordered_json;

Tensor ramp(Shape shape, float scale = 0.05f) {
  Tensor t(shape);
  auto v = t.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(i % 23) - 0.5f;
  return t;
}

// Every weight gets distinct values (variances positive), so a weight read into the
// wrong slot changes the predictions.
void fill_weights(const Model& m) {
  std::vector<Tensor> values;
  int k = 0;
  for (const auto& w : m.weights()) {
    Tensor t(w.shape());
    auto v = t.values<float>();
    const bool positive = w.name().find("variance") != std::string::npos;
    for (std::size_t i = 0; i < v.size(); ++i) {
      const float x =
          0.1f * static_cast<float>((i * 7 + static_cast<std::size_t>(k) * 3) % 11) - 0.5f;
      v[i] = positive ? 0.5f + x * x : x;
    }
    values.push_back(t);
    ++k;
  }
  m.set_weights(values);
}

// A multi-input layer called on a list: its one output.
KerasTensor join(const Layer& layer, std::vector<KerasTensor> inputs) { return layer(inputs)[0]; }

// Conv2D, BatchNormalization, SeparableConv2D and DepthwiseConv2D branches joined by Add,
// pooling, padding, cropping, upsampling, a transposed convolution and Concatenate.
Model cnn_2d() {
  auto x = Input({12, 12, 3}, {.name = "image"});
  auto h = layers::Conv2D(8, 3, {.padding = "same", .activation = "relu", .name = "conv"})(x);
  h = layers::BatchNormalization({.momentum = 0.9, .epsilon = 1e-2, .name = "bn"})(h);
  auto a = layers::SeparableConv2D(8, {3, 3},
                                   {.padding = "same", .depth_multiplier = 2, .name = "sep"})(h);
  auto b = layers::DepthwiseConv2D(3, {.padding = "same", .name = "dw"})(h);
  auto c = layers::Conv2D(8, 1, {.dilation_rate = 1, .use_bias = false, .name = "proj"})(h);
  h = join(layers::Add({.name = "add"}), {a, b, c});
  h = layers::BatchNormalization({.center = false, .name = "bn_nocenter"})(h);
  h = layers::MaxPooling2D(
      3, {.strides = layers::IntPair{2, 2}, .padding = "same", .name = "pool"})(h);
  h = layers::ZeroPadding2D(layers::Padding2D({1, 0}, {0, 2}), {.name = "pad"})(h);
  h = layers::Cropping2D(layers::Padding2D({0, 1}, {1, 1}), {.name = "crop"})(h);
  h = layers::UpSampling2D({2, 1}, {.name = "up"})(h);
  auto t = layers::Conv2DTranspose(4, 3, {.strides = 2, .padding = "same", .name = "deconv"})(h);
  auto p = layers::AveragePooling2D(2, {.name = "avg"})(t);
  auto g1 = layers::GlobalAveragePooling2D({.name = "gap"})(p);
  auto g2 = layers::GlobalMaxPooling2D({.name = "gmp"})(h);
  auto y = join(layers::Concatenate(-1, {.name = "concat"}), {g1, g2});
  y = layers::Dense(3, {.activation = "softmax", .name = "out"})(y);
  return Model(x, y, {.name = "cnn_2d"});
}

// The 1-D layers, LayerNormalization, Permute and the other merge layers.
Model cnn_1d() {
  auto x = Input({10, 4}, {.name = "seq"});
  auto h = layers::Conv1D(
      6, 3, {.padding = "causal", .dilation_rate = 2, .activation = "tanh", .name = "c1"})(x);
  h = layers::LayerNormalization({.name = "ln"})(h);
  h = layers::SpatialDropout1D(0.3, {.seed = 7, .name = "sd"})(h);
  auto m = layers::MaxPooling1D(2, {.name = "mp"})(h);
  auto a = layers::AveragePooling1D(3, {.strides = 2, .padding = "same", .name = "ap"})(h);
  h = join(layers::Subtract({.name = "sub"}), {m, a});
  h = layers::ZeroPadding1D({2, 1}, {.name = "zp"})(h);
  h = layers::Cropping1D({1, 2}, {.name = "cr"})(h);
  h = layers::UpSampling1D(2, {.name = "us"})(h);
  auto q = layers::Permute({2, 1}, {.name = "perm"})(h);  // (6, 10)
  auto s = layers::Conv1D(10, 1, {.name = "c2"})(layers::Permute({2, 1}, {.name = "perm2"})(q));
  auto prod =
      join(layers::Multiply({.name = "mul"}), {s, join(layers::Maximum({.name = "max"}), {s, s})});
  auto avg = join(layers::Average({.name = "ave"}),
                  {prod, join(layers::Minimum({.name = "min"}), {s, prod})});
  auto d = join(layers::Dot(2, {.normalize = true, .name = "dot"}), {avg, s});  // (10, 10)
  auto y = layers::GlobalMaxPooling1D({.name = "gmp1"})(d);
  auto z = layers::GlobalAveragePooling1D({.keepdims = true, .name = "gap1"})(d);
  return Model(std::vector<KerasTensor>{x}, {y, z}, {.name = "cnn_1d"});
}

void expect_same_predictions(Model& a, Model& b, const std::vector<Tensor>& x) {
  auto p = a.predict(x), q = b.predict(x);
  ASSERT_EQ(p.size(), q.size());
  for (std::size_t i = 0; i < p.size(); ++i)
    testing::expect_close(q[i], p[i], "output " + std::to_string(i), 0, 0);
}

struct Case {
  const char* name;
  Model (*make)();
  Shape input;
};

class ConvRoundTrip : public ::testing::TestWithParam<Case> {};

TEST_P(ConvRoundTrip, ToJsonThenModelFromJsonPredictsTheSame) {
  Model m = GetParam().make();
  fill_weights(m);
  Model again = models::model_from_json(m.to_json());
  EXPECT_EQ(again.to_json(), m.to_json());
  again.set_weights(m.get_weights());
  expect_same_predictions(m, again, {ramp(GetParam().input)});
}

TEST_P(ConvRoundTrip, SavedKerasAndH5FilesLoadWithTheSameWeightsAndPredictions) {
  testing::ScratchDir dir;
  Model m = GetParam().make();
  fill_weights(m);
  for (const std::string ext : {".keras", ".h5"}) {
    SCOPED_TRACE(ext);
    const std::string path = dir.file(std::string(GetParam().name) + ext);
    m.save(path);
    Model again = models::load_model(path);
    EXPECT_EQ(again.to_json(), m.to_json());
    expect_same_predictions(m, again, {ramp(GetParam().input)});
  }
}

INSTANTIATE_TEST_SUITE_P(Models, ConvRoundTrip,
                         ::testing::Values(Case{"cnn_2d", cnn_2d, Shape{2, 12, 12, 3}},
                                           Case{"cnn_1d", cnn_1d, Shape{3, 10, 4}}),
                         [](const auto& info) { return std::string(info.param.name); });

Layer from(const std::string& cls, const std::string& config, int keras_major = 2) {
  return io::layer_from_config(json{{"class_name", cls}, {"config", json::parse(config)}},
                               {.keras_major = keras_major, .source = "test"});
}

TEST(ConvConfigs, Keras2TupleListsAndNullDataFormatAreRead) {
  Layer conv = from("Conv2D", R"({"name": "c", "filters": 4, "kernel_size": [3, 5],
      "strides": [2, 1], "padding": "same", "data_format": null, "dilation_rate": [1, 1],
      "activation": "relu", "use_bias": false, "kernel_regularizer": {"class_name": "L1L2",
      "config": {"l1": 0.0, "l2": 0.01}}})");
  const auto& c = static_cast<const layers::Conv2DImpl&>(conv.impl());
  EXPECT_EQ(c.kernel_size, (layers::IntPair{3, 5}));
  EXPECT_EQ(c.options.strides, (layers::IntPair{2, 1}));
  EXPECT_EQ(c.options.padding, "same");
  EXPECT_EQ(c.options.data_format, "");
  EXPECT_FALSE(c.options.use_bias);

  Layer c1 = from("Conv1D", R"({"name": "c1", "filters": 2, "kernel_size": [4], "strides": [2],
      "padding": "causal", "dilation_rate": [3]})");
  const auto& c1i = static_cast<const layers::Conv1DImpl&>(c1.impl());
  EXPECT_EQ(c1i.kernel_size, 4);
  EXPECT_EQ(c1i.options.strides, 2);
  EXPECT_EQ(c1i.options.dilation_rate, 3);

  Layer pool = from("MaxPooling1D", R"({"name": "p", "pool_size": [3], "strides": null,
      "padding": "valid"})");
  EXPECT_EQ(io::layer_config(pool)["strides"], json::array({3}));

  Layer pad = from("ZeroPadding2D", R"({"name": "z", "padding": [[1, 2], [3, 4]]})");
  EXPECT_EQ(io::layer_config(pad)["padding"], json::parse("[[1, 2], [3, 4]]"));
  Layer sym = from("Cropping2D", R"({"name": "k", "cropping": [1, 2]})");
  EXPECT_EQ(io::layer_config(sym)["cropping"], json::parse("[[1, 1], [2, 2]]"));
}

TEST(ConvConfigs, BatchNormalizationAxisListAndCenterScaleDecideTheWeights) {
  Layer bn = from("BatchNormalization", R"({"name": "bn", "axis": [3], "momentum": 0.9,
      "epsilon": 0.0001, "center": false, "scale": true})");
  const auto& o = static_cast<const layers::BatchNormalizationImpl&>(bn.impl()).options;
  EXPECT_EQ(o.axis, 3);
  EXPECT_DOUBLE_EQ(o.momentum, 0.9);
  EXPECT_DOUBLE_EQ(o.epsilon, 1e-4);
  auto x = Input({4, 4, 5});
  bn(x);
  std::vector<std::string> names;
  for (const auto& w : bn.weights()) names.push_back(w.path());
  EXPECT_EQ(names, (std::vector<std::string>{"bn/gamma", "bn/moving_mean", "bn/moving_variance"}));

  EXPECT_THROW_WITH(from("BatchNormalization", R"({"name": "b2", "axis": [1, 2]})"),
                    NotImplementedError, "b2", "several axes");
  EXPECT_THROW_WITH(from("BatchNormalization", R"({"name": "b3", "virtual_batch_size": 4})"),
                    NotImplementedError, "b3", "virtual_batch_size");
}

TEST(ConvConfigs, BadValuesNameTheLayerAndTheKey) {
  EXPECT_THROW_WITH(from("Conv2D", R"({"name": "c", "filters": 4, "kernel_size": [3, 3, 3]})"),
                    ValueError, "Conv2D 'c'", "kernel_size");
  EXPECT_THROW_WITH(from("Conv2D", R"({"name": "c", "filters": 4, "kernel_size": 3,
      "padding": "full"})"),
                    ValueError, "Conv2D 'c'", "padding 'full'");
  EXPECT_THROW_WITH(from("Conv2DTranspose", R"({"name": "t", "filters": 4, "kernel_size": 3,
      "output_padding": [1, 1]})"),
                    ValueError, "'t'", "output_padding", "strictly less than strides");
  EXPECT_THROW_WITH(from("Conv1D", R"({"name": "c", "kernel_size": 3})"), ValueError, "filters");
}

// Conv2DTranspose shares the transposed convolution of every rank, output_padding included:
// valid (in − 1)·s + k_eff + op per axis.
TEST(ConvConfigs, Conv2DTransposeReadsOutputPadding) {
  Layer t = from("Conv2DTranspose", R"({"name": "t", "filters": 4, "kernel_size": 3, "strides": [2, 3],
      "output_padding": [1, 2]})");
  EXPECT_EQ(io::layer_config(t)["output_padding"], json::parse("[1, 2]"));
  EXPECT_EQ(t(Input({5, 4, 2})).shape(), (Shape{kUnknownDim, 4 * 2 + 3 + 1, 3 * 3 + 3 + 2, 4}));
}

TEST(ConvConfigs, SeparableConv2DWeightsAreDepthwisePointwiseBias) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  Model m = models::load_model(testing::real_models_dir() + "/cnn_xception_gender_k205.h5");
  std::vector<std::string> names;
  for (const auto& w : m.get_layer("separable_conv2d_1").weights()) names.push_back(w.path());
  EXPECT_EQ(names, (std::vector<std::string>{"separable_conv2d_1/depthwise_kernel",
                                             "separable_conv2d_1/pointwise_kernel"}));
  Layer sep(m.get_layer("separable_conv2d_1"));
  EXPECT_EQ(sep.weights()[0].shape(), (Shape{3, 3, 8, 1}));
  EXPECT_EQ(sep.weights()[1].shape(), (Shape{1, 1, 8, 16}));
  auto groups = io::keras3_var_groups(sep);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].path, "vars");
}

// A Keras 2 .h5 holding one Conv1D (kernel 3 taps, one channel, one filter) written by
// the given backend.
std::string conv1d_h5(const testing::ScratchDir& dir, const std::string& backend) {
  const std::string path = dir.file(backend + ".h5");
  io::h5::File f(path, io::h5::File::Mode::create);
  f.write_string_attribute("keras_version", "2.2.4");
  f.write_string_attribute("backend", backend);
  f.write_string_attribute("model_config", R"({"class_name": "Sequential", "config": {"name": "s",
      "layers": [{"class_name": "Conv1D", "config": {"name": "c", "filters": 1,
      "kernel_size": [3], "use_bias": false, "batch_input_shape": [null, 3, 1]}}]}})");
  auto mw = f.create_group("model_weights");
  mw.write_string_list_attribute("layer_names", {"c"});
  mw.write_string_attribute("backend", backend);
  auto g = mw.create_group("c");
  g.write_string_list_attribute("weight_names", {"c/kernel:0"});
  Tensor k(Shape{3, 1, 1});
  auto v = k.values<float>();
  v[0] = 1, v[1] = 2, v[2] = 3;
  g.create_dataset("c/kernel:0", k);
  f.close();
  return path;
}

TEST(ConvConfigs, TheanoWrittenKernelsAreFlippedBackAsKeras2Does) {
  testing::ScratchDir dir;
  Tensor x(Shape{1, 3, 1});
  x.values<float>()[0] = 1;  // picks the first tap
  Model tf = models::load_model(conv1d_h5(dir, "tensorflow"));
  Model theano = models::load_model(conv1d_h5(dir, "theano"));
  EXPECT_FLOAT_EQ(tf.predict(x).to_vector<float>()[0], 1.0f);
  EXPECT_FLOAT_EQ(theano.predict(x).to_vector<float>()[0], 3.0f);
  EXPECT_EQ(theano.get_layer("c").get_weights()[0].to_vector<float>(),
            (std::vector<float>{3, 2, 1}));
}

// The real convolutional files of shared/keras-models load and predict like the Keras
// that wrote them (RealKerasFiles compares every file whose classes are registered; this
// pins these three as registered and compared).
TEST(ConvConfigs, RealConvolutionalFilesMatchKeras) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  for (const std::string id : {"cnn_mnist_k231", "cnn_xception_gender_k205", "conv1d_nids_tf214"}) {
    SCOPED_TRACE(id);
    Model model = models::load_model(testing::real_models_dir() + "/" + id + ".h5");
    const std::string golden = testing::real_goldens_dir() + "/" + id;
    auto outs = model.predict(testing::load_numbered(golden, "input"));
    auto ys = testing::load_numbered(golden, "output");
    ASSERT_EQ(outs.size(), ys.size());
    ASSERT_FALSE(ys.empty());
    for (std::size_t i = 0; i < ys.size(); ++i) testing::expect_close(outs[i], ys[i], id);
  }
}

// A CNN with BatchNormalization, SeparableConv2D, DepthwiseConv2D, Add, Concatenate and
// Conv2DTranspose built and saved by Keras 3 (tests/reference/make_conv_keras_goldens.py):
// both its .keras and legacy .h5 files predict what Keras predicted.
TEST(ConvConfigs, Keras3CnnWithBatchNormAndMergesMatchesKerasInBothFormats) {
  const std::string base = testing::golden_dir() + "/cnn_bn_merge";
  for (const std::string ext : {".keras", ".h5"}) {
    SCOPED_TRACE(ext);
    Model model = models::load_model(base + ext);
    auto outs = model.predict(testing::load_numbered(base, "input"));
    auto ys = testing::load_numbered(base, "output");
    ASSERT_EQ(outs.size(), 1u);
    ASSERT_EQ(ys.size(), 1u);
    testing::expect_close(outs[0], ys[0], "cnn_bn_merge" + ext);
  }
}

}  // namespace
}  // namespace strata::conv_configs_test
