// The inference programs' rewrites (core/inference_rewrite.h): each gives the answer of
// the graph as the layers built it, run in inference mode, within 1e-5; the training
// programs run the graph as built; and the folded weights follow the variables they are
// computed from.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "core/inference_rewrite.h"
#include "tests/core/thread_count.h"
#include "core/ops/fused_activation.h"
#include "models/compiled_model.h"
#include "strata.h"

using namespace strata;

namespace inference_rewrite_test {

namespace {

Tensor random_tensor(const Shape& shape, std::mt19937& rng, float lo, float hi) {
  std::uniform_real_distribution<float> u(lo, hi);
  Tensor t(shape);
  for (float& v : t.values<float>()) v = u(rng);
  return t;
}

// Every weight redrawn: kernels and biases in [-1, 1], BatchNormalization's gamma and
// beta in [-1, 1] and its statistics away from the defaults (variance in [0.5, 2]), so
// that each part of the fold matters.
void randomize_weights(const Model& m, unsigned seed) {
  std::mt19937 rng(seed);
  for (const Layer& layer : m.layers()) {
    std::vector<Tensor> values;
    for (const Variable& v : layer.weights()) {
      const bool variance = v.name() == "moving_variance";
      values.push_back(random_tensor(v.shape(), rng, variance ? 0.5f : -1.f, variance ? 2.f : 1.f));
    }
    if (!values.empty()) layer.set_weights(values);
  }
}

// The model's outputs as its layers build them, in inference mode, with no rewrite: the
// model called on a graph of its own, compiled as it is.
std::vector<Tensor> unrewritten_predict(const Model& m, const Tensor& x) {
  Graph graph;
  const Output in = graph.placeholder({x.shape().with_dim(0, kUnknownDim), DType::float32}, "x");
  const std::vector<Output> out = m.model().call(graph, {in});
  Program program(graph, {in}, out, graph.updates(false));
  return program.run({x}, {.training = false});
}

void expect_close(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape());
  for (std::int64_t i = 0; i < got.size(); ++i) {
    const float g = got.data<float>()[i], w = want.data<float>()[i];
    ASSERT_LE(std::abs(g - w), 1e-5f * std::max(1.f, std::abs(w))) << "element " << i;
  }
}

const CompiledModel& inference_of(const Model& m) {
  const ModelImpl& impl = m.model();
  return impl.compiled ? *impl.compiled : *impl.inference;
}

// How many steps of the program run op `op`.
int steps_of(const Program& program, const Graph& graph, const std::string& op) {
  int count = 0;
  for (int id : program.execution_order()) count += graph.node(id).op == op;
  return count;
}

struct Case {
  const char* name;
  std::function<Model()> build;
  Shape sample;
  InferenceRewrites at_least;  // each count the rewrite must reach
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class InferenceRewrite : public ::testing::TestWithParam<Case> {};

TEST_P(InferenceRewrite, GivesTheUnrewrittenAnswer) {
  const Case& c = GetParam();
  set_random_seed(7);
  Model m = c.build();
  randomize_weights(m, 11);
  std::mt19937 rng(3);
  std::vector<std::int64_t> dims{3};
  for (std::int64_t d : c.sample.dims()) dims.push_back(d);
  const Tensor x = random_tensor(Shape(dims), rng, -2.f, 2.f);
  const Tensor got = m.predict(x);
  expect_close(got, unrewritten_predict(m, x)[0]);

  const InferenceRewrites& did = inference_of(m).inference_rewrites();
  EXPECT_GE(did.modes_resolved, c.at_least.modes_resolved);
  EXPECT_GE(did.affines_folded, c.at_least.affines_folded);
  EXPECT_GE(did.affines_collapsed, c.at_least.affines_collapsed);
  EXPECT_GE(did.activations_fused, c.at_least.activations_fused);
  EXPECT_GE(did.identities_dropped, c.at_least.identities_dropped);
  EXPECT_GE(did.residuals_fused, c.at_least.residuals_fused);
  EXPECT_GE(did.pads_folded, c.at_least.pads_folded);
  EXPECT_GE(did.input_scales_fused, c.at_least.input_scales_fused);
  EXPECT_GE(did.layer_norms_fused, c.at_least.layer_norms_fused);
  const Program& predict = inference_of(m).predict_program();
  const Graph& graph = inference_of(m).graph();
  EXPECT_EQ(steps_of(predict, graph, "training_select"), 0);
  EXPECT_EQ(steps_of(predict, graph, "batch_normalization"), 0) << "the batch statistics are never computed";
  EXPECT_EQ(steps_of(predict, graph, "dropout"), 0);
  EXPECT_EQ(steps_of(predict, graph, "identity"), 0);
  EXPECT_EQ(steps_of(predict, graph, "stop_gradient"), 0);
}

Model conv_bn_relu() {
  auto in = Input({6, 7, 3});
  auto y = layers::Conv2D(4, 3, {.use_bias = false})(in);
  y = layers::BatchNormalization()(y);
  return Model(in, layers::Activation("relu")(y));
}

Model conv_bias_bn() {
  auto in = Input({6, 7, 3});
  auto y = layers::Conv2D(5, 3, {.padding = "same"})(in);
  return Model(in, layers::BatchNormalization({.epsilon = 1e-2})(y));
}

Model depthwise_bias_bn_relu6() {
  auto in = Input({7, 6, 4});
  auto y = layers::DepthwiseConv2D(3, {.strides = 2, .padding = "same"})(in);
  y = layers::BatchNormalization()(y);
  return Model(in, layers::ReLU({.max_value = 6.0})(y));
}

// relu6 fused into the product's epilogue: a 1x1 convolution (one GEMM over the image, the
// epilogue on each tile row of it) and a 3x3 one (im2col blocks), on 16 channels so that
// outputs pass 6 and the clamp matters.
Model pointwise_bn_relu6_conv_relu6() {
  auto in = Input({5, 6, 16});
  auto y = layers::Conv2D(24, 1, {.use_bias = false})(in);
  y = layers::BatchNormalization()(y);
  y = layers::Activation("relu6")(y);
  y = layers::Conv2D(7, 3, {.padding = "same"})(y);
  return Model(in, layers::ReLU({.max_value = 6.0})(y));
}

// silu (Keras's swish) fused into the product's epilogue on the CPU: EfficientNet's
// pointwise Conv2D-BatchNormalization-swish, then a depthwise 5x5 one (the depthwise
// kernel applies it), then a 3x3 Conv2D with activation="swish".
Model conv_bn_swish_depthwise_swish() {
  auto in = Input({6, 7, 8});
  auto y = layers::Conv2D(16, 1, {.use_bias = false})(in);
  y = layers::BatchNormalization()(y);
  y = layers::Activation("swish")(y);
  y = layers::DepthwiseConv2D(5, {.padding = "same", .use_bias = false})(y);
  y = layers::BatchNormalization()(y);
  y = layers::Activation("swish")(y);
  return Model(in, layers::Conv2D(5, 3, {.padding = "same", .activation = "swish"})(y));
}

// Residual blocks: the skip connection's add fused into the last convolution's epilogue
// (before the relu after it): ResNet's identity block (1x1, 3x3 and 1x1 convolutions with
// BatchNormalization, the add, relu), its projection block (the shortcut a convolution
// too: one of the two sums is the residual of the other) and MobileNetV2's block (no
// activation after the add).
Model resnet_blocks() {
  auto in = Input({6, 5, 8});
  auto y = layers::Conv2D(4, 1)(in);
  y = layers::BatchNormalization()(y);
  y = layers::Activation("relu")(y);
  y = layers::Conv2D(4, 3, {.padding = "same"})(y);
  y = layers::BatchNormalization()(y);
  y = layers::Activation("relu")(y);
  y = layers::Conv2D(8, 1)(y);
  y = layers::BatchNormalization()(y);
  auto block = layers::Activation("relu")(layers::Add()({y, in})[0]);
  auto main = layers::BatchNormalization()(layers::Conv2D(12, 3, {.padding = "same"})(block));
  auto shortcut = layers::BatchNormalization()(layers::Conv2D(12, 1)(block));
  auto projected = layers::Activation("relu")(layers::Add()({main, shortcut})[0]);
  auto expanded = layers::Conv2D(12, 1, {.use_bias = false})(projected);
  expanded = layers::BatchNormalization()(expanded);
  return Model(in, layers::Add()({projected, expanded})[0]);
}

Model dense_bn_dropout_dense() {
  auto in = Input({5});
  auto y = layers::Dense(6)(in);
  y = layers::BatchNormalization({.center = false})(y);
  y = layers::Dropout(0.5)(y);
  y = layers::Identity()(y);
  return Model(in, layers::Dense(3, {.activation = "relu"})(y));
}

// ZeroPadding2D before a stride-2 depthwise layer (MobileNetV2's uneven pad) and before a
// 3x3 convolution; and one before a max pooling, which keeps its pad (pooling's padding is
// not zeros).
Model zero_padding_convs() {
  auto in = Input({7, 6, 8});
  auto y = layers::ZeroPadding2D({{0, 1}, {0, 1}})(in);
  y = layers::DepthwiseConv2D(3, {.strides = 2, .padding = "valid"})(y);
  y = layers::ZeroPadding2D(1)(y);
  y = layers::Conv2D(16, 3, {.activation = "relu"})(y);
  y = layers::ZeroPadding2D(1)(y);
  return Model(in, layers::MaxPooling2D(3, {.strides = 2})(y));
}

// int8 Dense layers (model.quantize): each one's bias and relu taken into its dense_int8,
// its custom gradient's stop_gradient and training_select resolved away.
Model int8_dense_relu_dense() {
  auto in = Input({12});
  auto y = layers::Dense(16, {.activation = "relu"})(in);
  Model m(in, layers::Dense(4)(y));
  m.quantize("int8");
  return m;
}

// EfficientNet's block end: the projection, its BatchNormalization, a Dropout whose mask is
// shared by every pixel and channel (noise_shape (None, 1, 1, 1)) and the skip connection;
// then a SpatialDropout2D. In inference both masks are ones: their multiplications go,
// and the add becomes the projection's residual.
Model dropout_masks_before_a_skip() {
  auto in = Input({5, 6, 8});
  auto y = layers::Conv2D(8, 1, {.use_bias = false})(in);
  y = layers::BatchNormalization()(y);
  y = layers::Dropout(0.2, {.noise_shape = Shape{kUnknownDim, 1, 1, 1}})(y);
  y = layers::Add()({y, in})[0];
  y = layers::SpatialDropout2D(0.3)(y);
  return Model(in, layers::Conv2D(4, 3, {.activation = "relu"})(y));
}

// EfficientNet's squeeze-and-excitation: the channels' means through two 1x1 convolutions
// scale the depthwise layer's output per image, which the projection (with its
// BatchNormalization and the block's skip connection) reads. 6x7 pixels, 5 output
// channels: the scale fuses into the projection. A second block at 2x2 pixels, 6 output
// channels, keeps its multiplication (scaling the kernel would cost more).
KerasTensor squeeze_excite(KerasTensor x, std::int64_t out, bool skip) {
  auto y = layers::DepthwiseConv2D(3, {.padding = "same", .activation = "swish"})(x);
  auto s = layers::GlobalAveragePooling2D({.keepdims = true})(y);
  s = layers::Conv2D(2, 1, {.activation = "swish"})(s);
  s = layers::Conv2D(y.shape().dims().back(), 1, {.activation = "sigmoid"})(s);
  y = layers::Multiply()({y, s})[0];
  y = layers::Conv2D(out, 1, {.use_bias = false})(y);
  y = layers::BatchNormalization()(y);
  return skip ? layers::Add()({y, x})[0] : y;
}

Model squeeze_excite_blocks() {
  auto in = Input({6, 7, 5});
  auto y = squeeze_excite(in, 5, true);
  y = layers::MaxPooling2D(3)(y);
  return Model(in, squeeze_excite(y, 6, false));
}

// LayerNormalization as ConvNeXt's blocks and a Transformer use it (the last axis, with γ
// and β), then without β, without γ, and with neither; rms_scaling and a normalization
// over two axes stay composed.
Model layer_norms() {
  auto in = Input({5, 8});
  auto y = layers::Dense(8)(in);
  y = layers::LayerNormalization({.epsilon = 1e-6})(y);
  y = layers::LayerNormalization({.center = false})(layers::Dense(8)(y));
  y = layers::LayerNormalization({.scale = false})(y);
  y = layers::LayerNormalization({.center = false, .scale = false})(y);
  y = layers::LayerNormalization({.rms_scaling = true})(y);
  return Model(in, layers::LayerNormalization({.axis = {-2, -1}})(y));
}

Model bn_after_add() {
  auto in = Input({4, 4, 3});
  auto a = layers::Conv2D(3, 1)(in);
  auto y = layers::Add()({a, in});
  return Model(in, layers::BatchNormalization({.scale = false})(y));
}

INSTANTIATE_TEST_SUITE_P(
    Models, InferenceRewrite,
    ::testing::Values(
        Case{"Conv2D_BatchNormalization_relu", conv_bn_relu, Shape{6, 7, 3},
             {.modes_resolved = 1, .affines_folded = 1, .activations_fused = 1}},
        Case{"Conv2D_with_bias_BatchNormalization", conv_bias_bn, Shape{6, 7, 3},
             {.modes_resolved = 1, .affines_folded = 1}},
        // The depthwise layer's own bias (an add after the product) and the normalization
        // both fold into the product's kernel and bias.
        Case{"DepthwiseConv2D_BatchNormalization_relu6", depthwise_bias_bn_relu6, Shape{7, 6, 4},
             {.modes_resolved = 1, .affines_folded = 2, .activations_fused = 1}},
        Case{"Conv2D_1x1_BatchNormalization_relu6_Conv2D_3x3_relu6", pointwise_bn_relu6_conv_relu6, Shape{5, 6, 16},
             {.modes_resolved = 1, .affines_folded = 1, .activations_fused = 2}},
        Case{"Conv2D_BatchNormalization_swish_DepthwiseConv2D_swish_Conv2D_swish", conv_bn_swish_depthwise_swish,
             Shape{6, 7, 8}, {.modes_resolved = 2, .affines_folded = 2, .activations_fused = 3}},
        Case{"Residual_blocks_of_ResNet_and_MobileNetV2", resnet_blocks, Shape{6, 5, 8},
             {.modes_resolved = 3, .affines_folded = 6, .activations_fused = 4, .residuals_fused = 3}},
        Case{"Dense_BatchNormalization_Dropout_Identity_Dense", dense_bn_dropout_dense, Shape{5},
             {.modes_resolved = 2, .affines_folded = 1, .identities_dropped = 1}},
        Case{"Dropout_masks_before_a_skip_connection", dropout_masks_before_a_skip, Shape{5, 6, 8},
             {.modes_resolved = 3, .affines_folded = 1, .identities_dropped = 2, .residuals_fused = 1}},
        Case{"Squeeze_and_excitation_blocks", squeeze_excite_blocks, Shape{6, 7, 5},
             {.modes_resolved = 2, .affines_folded = 2, .residuals_fused = 1, .input_scales_fused = 1}},
        Case{"LayerNormalizations", layer_norms, Shape{5, 8}, {.layer_norms_fused = 4}},
        Case{"Add_BatchNormalization", bn_after_add, Shape{4, 4, 3}, {.modes_resolved = 1, .affines_collapsed = 1}},
        Case{"ZeroPadding2D_into_convolutions", zero_padding_convs, Shape{7, 6, 8}, {.pads_folded = 2}},
        Case{"int8_Dense_relu_int8_Dense", int8_dense_relu_dense, Shape{12},
             {.modes_resolved = 2, .affines_folded = 2, .activations_fused = 1, .identities_dropped = 2}}),
    [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

TEST(InferenceRewriteGraph, DropsDropoutMasksAndFusesTheSkipTheyHid) {
  set_random_seed(7);
  Model m = dropout_masks_before_a_skip();
  const Tensor x = Tensor::filled({2, 5, 6, 8}, 0.5f);
  for (int i = 0; i < 3; ++i) m.predict(x);
  const Program& predict = inference_of(m).predict_program();
  const Graph& graph = inference_of(m).graph();
  // The steps every prediction runs (the folded kernel's are computed once).
  std::map<std::string, int> every_run;
  for (int id : predict.execution_order()) {
    if (predict.executions(id) == 3) ++every_run[graph.node(id).op];
  }
  const std::map<std::string, int> want{{"conv2d", 2}};
  EXPECT_EQ(every_run, want) << "the projection with its residual, then the 3x3; no mask, multiplication or add";
  const Node* projection = nullptr;
  for (int id : predict.execution_order()) {
    if (graph.node(id).op == "conv2d" && !projection) projection = &graph.node(id);
  }
  ASSERT_NE(projection, nullptr);
  EXPECT_TRUE(projection->attrs.get_or<bool>("residual", false));
}

// The first block's scale goes into its projection, with the skip connection; the second
// block's 2x2 pixels are fewer than its 6 output channels: its multiplication stays.
TEST(InferenceRewriteGraph, FusesASqueezeAndExcitationScaleWhereItSavesWork) {
  set_random_seed(7);
  Model m = squeeze_excite_blocks();
  m.predict(Tensor::filled({2, 6, 7, 5}, 0.5f));
  const CompiledModel& c = inference_of(m);
  EXPECT_EQ(c.inference_rewrites().input_scales_fused, 1);
  const Program& predict = c.predict_program();
  const Graph& graph = c.graph();
  int activation_muls = 0;  // multiplications of activations (batch None), not of folded kernels
  for (int id : predict.execution_order()) {
    const Node& n = graph.node(id);
    activation_muls += n.op == "mul" && n.outputs[0].shape.rank() == 4 && n.outputs[0].shape.dims()[0] == kUnknownDim;
  }
  EXPECT_EQ(activation_muls, 1) << "the second block's";
  int scaled = 0;
  for (int id : predict.execution_order()) {
    const Node& n = graph.node(id);
    if (n.op != "conv2d" || !n.attrs.get_or<bool>("input_scale", false)) continue;
    ++scaled;
    EXPECT_TRUE(n.attrs.get_or<bool>("residual", false)) << "the skip connection fused too";
    EXPECT_EQ(n.inputs.size(), 5u) << "x, the folded kernel and bias, the scale, the residual";
  }
  EXPECT_EQ(scaled, 1);
}

// Ones made from another tensor broadcast x to that tensor's run-time shape: the
// multiplication stays (only ones made from x itself are dropped).
TEST(InferenceRewriteGraph, KeepsAMultiplicationByAnotherTensorsOnes) {
  Graph graph;
  const Output x = graph.placeholder({Shape{kUnknownDim, 4}, DType::float32}, "x");
  const Output y = graph.placeholder({Shape{kUnknownDim, 4}, DType::float32}, "y");
  const std::vector<Output> roots{ops::relu(ops::mul(x, ops::ones_like(y)))};
  InferenceRewrites did;
  const std::vector<Output> out = rewrite_for_inference(graph, roots, &did, {.cpu_program = true});
  EXPECT_EQ(did.identities_dropped, 0);
  const Tensor got = Program(graph, {x, y}, out).run({Tensor::filled({1, 4}, 2.f), Tensor::filled({3, 4}, 5.f)})[0];
  EXPECT_EQ(got.shape(), (Shape{3, 4}));
}

// The fused input scale broadcasts the batch as the multiplication did: x and s of the same
// batch, s of one image (one scaled kernel for every image), x of one image against s of
// three; on one thread and on two (an image a thread).
TEST(InferenceRewriteGraph, AnInputScaleBroadcastsAsTheMultiplication) {
  std::mt19937 rng(8);
  Graph graph;
  const Output x = graph.placeholder({Shape{kUnknownDim, 5, 6, 8}, DType::float32}, "x");
  const Output s = graph.placeholder({Shape{kUnknownDim, 1, 1, 8}, DType::float32}, "s");
  const Output k = graph.variable(Variable("k", random_tensor(Shape{1, 1, 8, 3}, rng, -1.f, 1.f)));
  const Output b = graph.variable(Variable("b", random_tensor(Shape{3}, rng, -1.f, 1.f)));
  const std::vector<Output> roots{ops::relu(ops::add(ops::conv2d(ops::mul(x, s), k, {}), b))};
  InferenceRewrites did;
  const std::vector<Output> out = rewrite_for_inference(graph, roots, &did, {.cpu_program = true});
  EXPECT_EQ(did.input_scales_fused, 1);
  Program rewritten(graph, {x, s}, out);
  Program plain(graph, {x, s}, roots);
  for (const auto& [x_images, s_images] : std::vector<std::pair<std::int64_t, std::int64_t>>{{3, 3}, {3, 1}, {1, 3}, {1, 1}}) {
    for (int threads : {1, 2}) {
      strata::testing::ThreadCount count(threads);
      const Tensor xv = random_tensor(Shape{x_images, 5, 6, 8}, rng, -2.f, 2.f);
      const Tensor sv = random_tensor(Shape{s_images, 1, 1, 8}, rng, 0.f, 1.f);
      const Tensor got = rewritten.run({xv, sv})[0];
      ASSERT_EQ(got.shape(), (Shape{std::max(x_images, s_images), 5, 6, 3}));
      expect_close(got, plain.run({xv, sv})[0]);
    }
  }
}

// Four of the six normalizations become one op each; the two that rms_scaling and two axes
// compose keep their reductions (the mean and the variance each).
TEST(InferenceRewriteGraph, MakesEachLastAxisLayerNormalizationOneOp) {
  set_random_seed(7);
  Model m = layer_norms();
  m.predict(Tensor::filled({2, 5, 8}, 0.5f));
  const CompiledModel& c = inference_of(m);
  EXPECT_EQ(c.inference_rewrites().layer_norms_fused, 4);
  EXPECT_EQ(steps_of(c.predict_program(), c.graph(), "layer_normalization_inference"), 4);
  EXPECT_EQ(steps_of(c.predict_program(), c.graph(), "reduce_mean"), 4) << "rms_scaling's and the two-axis one's";
}

TEST(InferenceRewriteGraph, FoldsZeroPaddingIntoConvolutionsButNotPooling) {
  set_random_seed(7);
  Model m = zero_padding_convs();
  randomize_weights(m, 11);
  std::mt19937 rng(3);
  m.predict(random_tensor(Shape{2, 7, 6, 8}, rng, -2.f, 2.f));
  const CompiledModel& c = inference_of(m);
  EXPECT_EQ(c.inference_rewrites().pads_folded, 2);
  EXPECT_EQ(steps_of(c.predict_program(), c.graph(), "pad"), 1) << "the pad before the max pooling stays";
}

TEST(InferenceRewriteTraining, TrainingProgramsRunTheGraphAsBuilt) {
  set_random_seed(5);
  Model m = conv_bn_relu();
  randomize_weights(m, 12);
  m.compile({.optimizer = "sgd", .loss = "mse"});
  const CompiledModel& c = *m.model().compiled;
  ASSERT_NE(c.train_program(), nullptr);
  EXPECT_EQ(steps_of(*c.train_program(), c.graph(), "batch_normalization"), 1)
      << "training normalizes with the batch's statistics in the op that reads the mode";
  EXPECT_EQ(steps_of(*c.train_program(), c.graph(), "batch_normalization_grad"), 1);
  EXPECT_EQ(steps_of(c.predict_program(), c.graph(), "batch_normalization"), 0);
  EXPECT_EQ(c.train_program()->num_invariant_steps(), 0) << "a program that writes variables caches nothing";

  // A training step still normalizes with the batch's statistics and moves the moving ones.
  const Variable moving_mean = m.get_layer(2).weights()[2];
  ASSERT_EQ(moving_mean.name(), "moving_mean");
  const Tensor before = moving_mean.value().clone();
  std::mt19937 rng(4);
  const Tensor x = random_tensor(Shape{8, 6, 7, 3}, rng, -1.f, 1.f);
  const Tensor y = random_tensor(Shape{8, 4, 5, 4}, rng, 0.f, 1.f);
  m.train_on_batch(x, y);
  bool moved = false;
  for (std::int64_t i = 0; i < before.size(); ++i) {
    moved = moved || moving_mean.value().data<float>()[i] != before.data<float>()[i];
  }
  EXPECT_TRUE(moved);
  // And evaluate, an inference program, agrees with predict after the step.
  expect_close(m.predict(x), unrewritten_predict(m, x)[0]);
}

TEST(InferenceRewriteInvariants, FoldedWeightsFollowTheVariables) {
  set_random_seed(9);
  Model m = conv_bn_relu();
  randomize_weights(m, 13);
  std::mt19937 rng(6);
  const Tensor x = random_tensor(Shape{2, 6, 7, 3}, rng, -1.f, 1.f);
  m.predict(x);
  const CompiledModel& c = inference_of(m);
  const Program& predict = c.predict_program();
  ASSERT_GT(predict.num_invariant_steps(), 0) << "the folded kernel and bias are computed from variables alone";
  // The folded kernel: a mul of the conv's kernel variable, which runs once for many predictions.
  int folded = -1;
  for (int id : predict.execution_order()) {
    const Node& node = c.graph().node(id);
    if (node.op == "mul" && c.graph().node(node.inputs[0].node).op == "variable") folded = id;
  }
  ASSERT_GE(folded, 0);
  m.predict(x);
  m.predict(x);
  EXPECT_EQ(predict.executions(folded), 1);

  // A weight changed (a new kernel, then new statistics): the next prediction uses it.
  randomize_weights(m, 14);
  expect_close(m.predict(x), unrewritten_predict(m, x)[0]);
  EXPECT_EQ(predict.executions(folded), 2);
  Variable moving_variance = m.get_layer(2).weights()[3];
  ASSERT_EQ(moving_variance.name(), "moving_variance");
  moving_variance.value().data<float>()[1] = 3.5f;  // written in place: its version moves
  expect_close(m.predict(x), unrewritten_predict(m, x)[0]);
  EXPECT_EQ(predict.executions(folded), 3);
}

// Weights packed for the GEMM from the second prediction on (core/cpu/kernels/
// packed_kernel.h) give the bits the unpacked first prediction gave: 1x1 and 3x3
// convolutions and Dense layers on many rows, with products split over threads by rows
// and by columns, and a one-unit Dense (the matrix-vector kernel's, never packed).
TEST(InferenceRewriteInvariants, RepeatedPredictionsAreBitIdentical) {
  set_random_seed(3);
  auto in = Input({4, 5, 8});
  auto y = layers::Conv2D(64, 1)(in);
  y = layers::Conv2D(40, 3, {.padding = "same", .activation = "relu"})(y);
  y = layers::Dense(48)(y);
  auto wide = layers::Dense(1)(layers::Flatten()(y));
  Model m(in, {y, wide});
  randomize_weights(m, 15);
  std::mt19937 rng(8);
  for (std::int64_t batch : {1, 3}) {
    const Tensor x = random_tensor(Shape{batch, 4, 5, 8}, rng, -1.f, 1.f);
    const std::vector<Tensor> first = m.predict(std::vector<Tensor>{x});
    for (int run = 0; run < 3; ++run) {
      const std::vector<Tensor> again = m.predict(std::vector<Tensor>{x});
      ASSERT_EQ(again.size(), first.size());
      for (std::size_t o = 0; o < first.size(); ++o) {
        ASSERT_EQ(again[o].to_vector<float>(), first[o].to_vector<float>()) << "batch " << batch << ", output " << o;
      }
    }
  }
}

// relu6 joins the conv2d before it only where the options allow it (a Program on the CPU):
// a Program for a GPU keeps the relu6 op, whose CUDA kernel exists, and its conv2d keeps
// no activation (the CUDA conv2d refuses a fused relu6).
TEST(InferenceRewriteGraph, FusesRelu6IntoAConvolutionOnlyWhereAsked) {
  for (const bool fuse : {true, false}) {
    Graph graph;
    const Output in = graph.placeholder({Shape{1, 4, 4, 2}, DType::float32}, "x");
    const Output kernel = graph.placeholder({Shape{1, 1, 2, 3}, DType::float32}, "k");
    const Output y = ops::relu6(ops::conv2d_bias_activation(in, kernel, Output{}, "", ops::Conv2DParams{}));
    InferenceRewrites did;
    const std::vector<Output> out = rewrite_for_inference(graph, {y}, &did, {.cpu_program = fuse});
    const Node& last = graph.node(out[0].node);
    EXPECT_EQ(did.activations_fused, fuse ? 1 : 0);
    EXPECT_EQ(last.op, fuse ? "conv2d" : "relu6");
    if (fuse) EXPECT_EQ(ops::fused_activation(last), ops::FusedActivation::relu6);
  }
}

// A product that rounds its own output (an emulated bfloat16 or float16 layer's,
// core/graph.h output_rounding) takes nothing folded into it: a bias added after a float16
// scope's conv2d, a relu, a residual and a per-channel scale after a fused bfloat16 conv2d
// would each be rounded with the product, where the graph rounds the product first. The
// rewritten graph predicts the unrewritten one's bits.
TEST(InferenceRewriteGraph, FoldsNothingIntoAProductThatRoundsItsOutput) {
  // One product per rewrite, each read once (as the rewrites ask), weights as variables.
  std::mt19937 rng(3);
  const auto weight = [&](const char* name, Shape shape) {
    return Variable(name, random_tensor(std::move(shape), rng, -1.f, 1.f));
  };
  const Variable k1 = weight("k1", Shape{3, 3, 4, 4}), k2 = weight("k2", Shape{3, 3, 4, 4}),
                 k3 = weight("k3", Shape{3, 3, 4, 4}), k4 = weight("k4", Shape{3, 3, 4, 4}),
                 b = weight("b", Shape{4}), s = weight("s", Shape{4}), t = weight("t", Shape{4});
  const ops::Conv2DParams same{.pads = {1, 1, 1, 1}};
  Graph graph;
  const Output in = graph.placeholder({Shape{2, 6, 6, 4}, DType::float32}, "x");
  Output float16_sum;
  {
    PrecisionScope float16(graph, ComputePrecision::float16);
    float16_sum = ops::add(ops::conv2d(in, graph.variable(k1), same), graph.variable(b));
  }
  const Output x = ops::round_to_bfloat16(in);
  const auto fused = [&](const Variable& k) {
    return ops::conv2d_bias_activation(x, ops::round_to_bfloat16(graph.variable(k)), Output{}, "", same,
                                       ComputePrecision::bfloat16);
  };
  const Output relu = ops::relu(fused(k2));
  const Output residual = ops::add(fused(k3), in);
  const Output scaled = ops::add(ops::mul(fused(k4), graph.variable(s)), graph.variable(t));
  const Variable k5 = weight("k5", Shape{1, 1, 4, 2}), u = weight("u", Shape{1, 1, 1, 4});
  const Output input_scaled = ops::conv2d_bias_activation(ops::mul(x, graph.variable(u)),
                                                          ops::round_to_bfloat16(graph.variable(k5)), Output{}, "",
                                                          {}, ComputePrecision::bfloat16);
  const std::vector<Output> roots{float16_sum, relu, residual, scaled, input_scaled};
  InferenceRewrites did;
  const std::vector<Output> out = rewrite_for_inference(graph, roots, &did, {.cpu_program = true});
  EXPECT_EQ(did.affines_folded, 0);
  EXPECT_EQ(did.activations_fused, 0);
  EXPECT_EQ(did.residuals_fused, 0);
  EXPECT_EQ(did.input_scales_fused, 0);
  const Tensor feed = random_tensor(Shape{2, 6, 6, 4}, rng, -2.f, 2.f);
  Program rewritten(graph, {in}, out);
  Program plain(graph, {in}, roots);
  const auto got = rewritten.run({feed}), want = plain.run({feed});
  for (std::size_t i = 0; i < roots.size(); ++i) {
    EXPECT_EQ(got[i].to_vector<float>(), want[i].to_vector<float>()) << "root " << i;
  }
}

// An emulated bfloat16 Dense (layers/dtype_policy.h): its product of rounded operands is
// marked for the bfloat16 GEMM (core/ops/matmul.cc) and stays marked through the
// rewrites, its rounded kernel is computed once for many predictions, and the answer is
// the unrewritten one within one bfloat16 unit (the same exact products summed in another
// order, the output rounded to bfloat16).
TEST(InferenceRewriteGraph, MarksBfloat16ProductsForTheBfloat16Gemm) {
  set_random_seed(5);
  set_dtype_policy("mixed_bfloat16");
  const KerasTensor in = Input({64});
  const KerasTensor out = layers::Dense(32, {.activation = "relu"})(in);
  set_dtype_policy("float32");
  Model m(in, out);
  std::mt19937 rng(8);
  const Tensor x = random_tensor(Shape{8, 64}, rng, -2.f, 2.f);
  const Tensor got = m.predict(x);
  const CompiledModel& c = inference_of(m);
  int marked = 0;
  for (int id : c.predict_program().execution_order()) {
    const std::string* operands = c.graph().node(id).attrs.find<std::string>("operands");
    marked += c.graph().node(id).op == "dense" && operands && *operands == "bfloat16";
  }
  EXPECT_EQ(marked, 1);
  const auto a = got.to_vector<float>(), b = unrewritten_predict(m, x)[0].to_vector<float>();
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], std::fabs(b[i]) * 0x1p-8f) << i;
  int rounded_kernel = -1;
  for (int id : c.predict_program().execution_order()) {
    const Node& node = c.graph().node(id);
    if (node.op == "round_to_bfloat16" && c.graph().node(node.inputs[0].node).op == "variable" &&
        node.inputs[0].shape().rank() == 2) {
      rounded_kernel = id;
    }
  }
  ASSERT_GE(rounded_kernel, 0);
  m.predict(x);
  m.predict(x);
  EXPECT_EQ(c.predict_program().executions(rounded_kernel), 1) << "the kernel is rounded once for many predictions";
}

// An update is a root with no outputs; its copy onto rewritten inputs must stand for it,
// or every pass finds the old graph's patterns again (a bias add after a convolution
// that feeds a stateful layer's carried state looped forever).
TEST(InferenceRewriteGraph, RewritesTheValuesUpdatesWrite) {
  Graph graph;
  const Output in = graph.placeholder({Shape{2, 3, 3, 1}, DType::float32}, "x");
  const Output kernel = graph.variable(Variable("kernel", Tensor::filled(Shape{1, 1, 1, 2}, 0.5f)));
  const Output bias = graph.variable(Variable("bias", Tensor::filled(Shape{2}, 0.25f)));
  const Variable state("state", Tensor(Shape{2, 3, 3, 2}), false);
  const Output y = ops::add(ops::conv2d(in, kernel, {}), bias);
  graph.add_update(ops::assign(graph.variable(state), y), Graph::UpdateMode::always);
  InferenceRewrites did;
  const std::vector<Output> out = rewrite_for_inference(graph, {y, graph.updates(false).at(0)}, &did);
  EXPECT_EQ(did.affines_folded, 1);
  ASSERT_EQ(out.size(), 2u);
  const Node& update = graph.node(out[1].node);
  EXPECT_EQ(update.op, "assign");
  EXPECT_EQ(graph.node(update.inputs[1].node).op, "conv2d") << "the update writes the folded convolution";
  Program program(graph, {in}, {out[0]}, {out[1]});
  program.run({Tensor::filled(Shape{2, 3, 3, 1}, 2.0f)});
  EXPECT_FLOAT_EQ(state.value().item(0), 1.25f);
}

TEST(InferenceRewriteGraph, RefusesAFinalizedGraph) {
  Graph graph;
  const Output in = graph.placeholder({Shape{2}, DType::float32}, "x");
  const Output y = ops::relu(in);
  Program program(graph, {in}, {y});
  EXPECT_THROW(rewrite_for_inference(graph, {y}), Error);
}

}  // namespace

}  // namespace inference_rewrite_test
