// compile's device: "cpu" explicitly or by default; a device the model's ops have no
// kernels for is refused by compile itself, naming the op, the layer and the device; on a
// GPU, compile places the variables there and a model trains as on the CPU.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "strata.h"
#include "test_data.h"
#include "tests/scoped_env.h"

using namespace strata;

namespace device_placement_test {

namespace {

Model small_classifier() {
  auto in = Input({4});
  auto h = layers::Dense(8, {.activation = "relu", .name = "hidden"})(in);
  auto out = layers::Dense(3, {.activation = "softmax"})(h);
  return Model(in, out);
}

// A classifier that hashes its integer inputs into bins first: hashing runs on the CPU
// only (TensorFlow's string hashes of the numbers' text), so compile refuses the model
// for a GPU whichever of its other layers have CUDA kernels (docs/gpu.md). Its
// embedding and convolution have them (the convolution in a build with cuDNN).
Model conv_classifier() {
  auto in = Input({6}, {.dtype = DType::int64});
  auto bins = layers::Hashing(10, {.name = "bins"})(in);
  auto e = layers::Embedding(10, 6, {.name = "embed"})(bins);
  auto h = layers::Conv2D(2, {3, 3}, {.name = "conv"})(layers::Reshape({6, 6, 1})(e));
  auto out = layers::Dense(3, {.activation = "softmax"})(layers::Flatten()(h));
  return Model(in, out);
}

// The devices a model's weights live on.
std::vector<Device> weight_devices(const Model& m) {
  std::vector<Device> devices;
  for (const Layer& layer : m.layers()) {
    for (const Variable& v : layer.weights()) devices.push_back(v.value().device());
  }
  return devices;
}

}  // namespace

TEST(DevicePlacement, CompileOnTheCpuByNameTrainsAsByDefault) {
  auto [x, y] = test_data::blobs(32);
  Model a = small_classifier(), b = small_classifier();
  b.set_weights(a.get_weights());
  a.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy"});
  b.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy", .device = "cpu"});
  auto ha = a.fit(x, y, {.epochs = 2, .verbose = 0, .shuffle = false});
  auto hb = b.fit(x, y, {.epochs = 2, .verbose = 0, .shuffle = false});
  EXPECT_EQ(ha.history.at("loss"), hb.history.at("loss"));
}

// compile without a device places the model as TensorFlow does: on the first GPU when
// the process has one (here: whatever this machine lists), else on the CPU; so does a
// model that only predicts. The suite itself runs with STRATA_DEFAULT_DEVICE=cpu
// (tests/CMakeLists.txt), which this test lifts.
TEST(DevicePlacement, CompileWithoutADeviceRunsOnTheFirstGpuElseTheCpu) {
  strata::testing::ScopedEnv unset("STRATA_DEFAULT_DEVICE", nullptr);
  const Device expected = default_device(available_devices(), "");
  EXPECT_EQ(expected.type, has_cuda_device() ? DeviceType::cuda : DeviceType::cpu);
  Model trained = small_classifier();
  trained.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy"});
  for (const Device& d : weight_devices(trained)) EXPECT_EQ(d, expected) << to_string(d);
  auto [x, y] = test_data::blobs(16);
  EXPECT_TRUE(std::isfinite(trained.train_on_batch(x, y).at("loss")));

  Model predicting = small_classifier();
  Tensor p = predicting.predict_on_batch(x);
  EXPECT_TRUE(p.on_cpu());  // fetches come back to the host
  for (const Device& d : weight_devices(predicting)) EXPECT_EQ(d, expected) << to_string(d);
}

TEST(DevicePlacement, StrataDefaultDeviceOverridesTheDefaultAndMustNameADevice) {
  {
    strata::testing::ScopedEnv cpu("STRATA_DEFAULT_DEVICE", "cpu");
    Model m = small_classifier();
    m.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy"});
    for (const Device& d : weight_devices(m)) EXPECT_EQ(d.type, DeviceType::cpu) << to_string(d);
  }
  strata::testing::ScopedEnv bogus("STRATA_DEFAULT_DEVICE", "tpu:0");
  Model m = small_classifier();
  try {
    m.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy"});
    ADD_FAILURE() << "compiled although STRATA_DEFAULT_DEVICE names no device";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("STRATA_DEFAULT_DEVICE"), std::string::npos) << e.what();
  }
  // An explicit device does not read the variable.
  EXPECT_NO_THROW(m.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy",
                             .device = "cpu"}));
}

// Which ops lack a CUDA kernel changes as kernels are written (and every op lacks one in
// a build without CUDA): the message must name ops that truly lack one, and their layers.
TEST(DevicePlacement, CompileForADeviceWithoutKernelsNamesOpLayerAndDevice) {
  Model m = conv_classifier();
  try {
    m.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy", .device = "cuda:0"});
    ADD_FAILURE() << "compiled for cuda:0 although hash_bucket has no CUDA kernel";
  } catch (const NotImplementedError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("cuda:0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("layer '"), std::string::npos) << msg;
    int named = 0;
    for (auto at = msg.find("op '"); at != std::string::npos; at = msg.find("op '", at + 1)) {
      const std::string op = msg.substr(at + 4, msg.find('\'', at + 4) - at - 4);
      EXPECT_FALSE(OpRegistry::global().get(op).kernel(DeviceType::cuda)) << "op '" << op << "' has a CUDA kernel: " << msg;
      ++named;
    }
    EXPECT_GT(named, 0) << msg;
  }
  EXPECT_FALSE(m.compiled()) << "a compile that throws leaves the model as it was";
  EXPECT_THROW(m.compile({.optimizer = optimizers::get("sgd"), .loss = "mse", .device = "tpu:0"}), ValueError);
}

namespace {

Model regression_mlp() {
  auto in = Input({4});
  auto h = layers::Dense(16, {.activation = "relu"})(in);
  return Model(in, layers::Dense(3)(h));
}

// The GPU model's weights equal the CPU model's within 1e-4 relative, read back to the host.
void expect_weights_near(const Model& cpu, const Model& gpu, const std::string& label) {
  const std::vector<Tensor> a = cpu.get_weights(), b = gpu.get_weights();
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::int64_t j = 0; j < a[i].size(); ++j) {
      EXPECT_NEAR(b[i].item(j), a[i].item(j), 1e-4f * (1 + std::fabs(a[i].item(j)))) << label << ", weight " << i;
    }
  }
}


// Two models from `make`, the second given the first's weights, compiled alike (each
// with an optimizer of its own) on `loss` with `metrics`, the second for cuda:0: its
// variables must then live there.
std::pair<Model, Model> cpu_and_gpu_models(Model (*make)(), const char* optimizer, const std::string& loss,
                                           const std::vector<std::string>& metrics) {
  Model cpu = make(), gpu = make();
  gpu.set_weights(cpu.get_weights());
  cpu.compile({.optimizer = optimizers::get(optimizer), .loss = loss, .metrics = metrics});
  gpu.compile({.optimizer = optimizers::get(optimizer), .loss = loss, .metrics = metrics, .device = "cuda:0"});
  for (const Variable& v : gpu.weights()) EXPECT_TRUE(v.value().is_on(parse_device("cuda:0"))) << v.path();
  return {cpu, gpu};
}

// Trains the two models (the same weights, compiled alike, the second for the GPU) side
// by side for 50 steps of train_on_batch: every step's GPU loss within 1e-4 relative of
// the CPU's, its accuracy (where compiled with it) the CPU's up to one sample of the
// batch, then equal weights and 50 iterations.
void expect_trains_as_on_the_cpu(Model& cpu, Model& gpu, const Tensor& x, const Tensor& y, const std::string& label) {
  const float one_sample = 1.0f / static_cast<float>(x.shape()[0]);
  for (int step = 0; step < 50; ++step) {
    const std::map<std::string, float> expected = cpu.train_on_batch(x, y);
    const std::map<std::string, float> actual = gpu.train_on_batch(x, y);
    ASSERT_LE(std::fabs(actual.at("loss") - expected.at("loss")), 1e-4f * std::fabs(expected.at("loss")))
        << label << ", step " << step;
    if (expected.count("accuracy")) {
      EXPECT_NEAR(actual.at("accuracy"), expected.at("accuracy"), one_sample + 1e-6f) << label << ", step " << step;
    }
  }
  expect_weights_near(cpu, gpu, label);
  EXPECT_EQ(gpu.optimizer().iterations(), 50) << label;
}

}  // namespace

// An MLP (Dense, relu, mean squared error) trains 50 steps on the GPU with the CPU's
// losses, for plain SGD and Adam; its variables live on the GPU meanwhile, and
// get_weights returns host copies equal to the CPU model's. Every op of its training
// graph has a CUDA kernel: compile must accept it.
TEST(DevicePlacement, AnMlpTrainsFiftyStepsOnTheGpuWithTheCpusLosses) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  for (const char* optimizer : {"sgd", "adam"}) {
    auto [inputs, labels] = test_data::blobs(16);
    const Tensor targets = Tensor::filled({16, 3}, 0.5f);
    auto [cpu, gpu] = cpu_and_gpu_models(regression_mlp, optimizer, "mse", {});
    for (const Tensor& w : gpu.get_weights()) ASSERT_TRUE(w.on_cpu());
    expect_trains_as_on_the_cpu(cpu, gpu, inputs, targets, optimizer);
  }
}

namespace {

// A softmax classifier with dropout: its seed given, so that two such models draw the
// same masks.
Model dropout_classifier() {
  auto in = Input({4});
  auto h = layers::Dense(16, {.activation = "relu"})(in);
  h = layers::Dropout(0.25, {.seed = 7})(h);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

}  // namespace

// A softmax classifier with dropout trains 50 steps on the GPU on sparse categorical
// cross-entropy, with accuracy as its metric, with the CPU's losses, for plain SGD and
// Adam: the GPU's dropout masks are the CPU's, bit for bit (another mask would change
// the losses far beyond 1e-4). Its accuracy is the CPU's up to a sample whose two top
// probabilities round the other way. Every op of its Programs has a CUDA kernel: compile
// must accept it.
TEST(DevicePlacement, ASoftmaxClassifierWithDropoutTrainsFiftyStepsOnTheGpuWithTheCpusLosses) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  constexpr std::int64_t kBatch = 32;
  for (const char* optimizer : {"sgd", "adam"}) {
    auto [inputs, labels] = test_data::blobs(kBatch);
    auto [cpu, gpu] =
        cpu_and_gpu_models(dropout_classifier, optimizer, "sparse_categorical_crossentropy", {"accuracy"});
    expect_trains_as_on_the_cpu(cpu, gpu, inputs, labels, optimizer);
  }
}

namespace {

constexpr std::int64_t kVocabulary = 50, kTokens = 12;

// Embedding, GlobalAveragePooling1D and a softmax Dense: every op of its Programs has a
// CUDA kernel (the embedding's gradient among them).
Model embedding_classifier() {
  auto in = Input({kTokens}, {.dtype = DType::int32});
  // Named, so that the twins' errors name the same layer (default names count up).
  auto x = layers::Embedding(kVocabulary, 8, {.name = "tokens"})(in);
  x = layers::GlobalAveragePooling1D()(x);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(x));
}

// (samples, kTokens) token ids in [0, kVocabulary), each sample naming some ids twice
// (the gradient adds their rows up); or, with `bad_at`, that element set to kVocabulary.
Tensor token_ids(std::int64_t samples, std::int64_t bad_at = -1) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(samples * kTokens));
  for (std::size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<std::int32_t>((i * 7 + i / 5) % kVocabulary);
  if (bad_at >= 0) ids[static_cast<std::size_t>(bad_at)] = static_cast<std::int32_t>(kVocabulary);
  return Tensor::from_vector(Shape{samples, kTokens}, ids);
}

Tensor class_ids(std::int64_t samples) {
  std::vector<std::int32_t> labels(static_cast<std::size_t>(samples));
  for (std::size_t i = 0; i < labels.size(); ++i) labels[i] = static_cast<std::int32_t>(i % 3);
  return Tensor::from_vector(Shape{samples}, labels);
}

}  // namespace

// An embedding classifier trains 50 steps on the GPU with the CPU's losses, for plain
// SGD and Adam. Its embedding's gradient sums each row's ids in the CPU's order, so only
// the dense layer's products and the reductions round differently.
TEST(DevicePlacement, AnEmbeddingClassifierTrainsFiftyStepsOnTheGpuWithTheCpusLosses) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  constexpr std::int64_t kBatch = 32;
  const Tensor ids = token_ids(kBatch), labels = class_ids(kBatch);
  for (const char* optimizer : {"sgd", "adam"}) {
    auto [cpu, gpu] =
        cpu_and_gpu_models(embedding_classifier, optimizer, "sparse_categorical_crossentropy", {"accuracy"});
    expect_trains_as_on_the_cpu(cpu, gpu, ids, labels, optimizer);
  }
}

namespace {

// Embedding(mask_zero), a BatchNormalization whose training moments are the masked ones
// (composed from elementwise ops and reductions, layers/normalization/batch_normalization.h),
// GlobalAveragePooling1D over the kept steps and a softmax Dense.
Model masked_batch_norm_classifier() {
  auto in = Input({kTokens}, {.dtype = DType::int32});
  auto x = layers::Embedding(kVocabulary, 8, {.mask_zero = true, .name = "tokens"})(in);
  x = layers::BatchNormalization({.momentum = 0.9})(x);
  x = layers::GlobalAveragePooling1D()(x);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(x));
}

}  // namespace

// The masked BatchNormalization's ops all have CUDA kernels: compile accepts the model for
// the GPU, which trains 50 steps with the CPU's losses and moves the moving statistics as
// the CPU does (expect_weights_near compares them too).
TEST(DevicePlacement, AMaskedBatchNormalizationTrainsFiftyStepsOnTheGpuWithTheCpusLosses) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  constexpr std::int64_t kBatch = 32;
  const Tensor ids = token_ids(kBatch), labels = class_ids(kBatch);
  auto [cpu, gpu] =
      cpu_and_gpu_models(masked_batch_norm_classifier, "adam", "sparse_categorical_crossentropy", {"accuracy"});
  expect_trains_as_on_the_cpu(cpu, gpu, ids, labels, "adam");
}

// A token id outside [0, input_dim) in a training step on the GPU: the CPU's ValueError,
// with the CPU's message, raised before the step writes any variable (the embedding's
// kernel reports it and the run throws when it waits for its stream, before the first
// update); the model then trains on good ids as the CPU model does.
TEST(DevicePlacement, AnOutOfRangeTokenIdOnTheGpuIsTheCpusErrorAndWritesNoWeight) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  constexpr std::int64_t kBatch = 8;
  const Tensor bad = token_ids(kBatch, 29), good = token_ids(kBatch), labels = class_ids(kBatch);
  auto [cpu, gpu] = cpu_and_gpu_models(embedding_classifier, "sgd", "sparse_categorical_crossentropy", {});
  const std::vector<Tensor> before = gpu.get_weights();
  std::string expected = "no exception", actual = "no exception";
  try {
    cpu.train_on_batch(bad, labels);
  } catch (const ValueError& e) {
    expected = e.what();
  }
  try {
    gpu.train_on_batch(bad, labels);
  } catch (const ValueError& e) {
    actual = e.what();
  }
  EXPECT_NE(expected.find("token id 50 at index 29 is out of range [0, 50)"), std::string::npos) << expected;
  EXPECT_EQ(actual, expected);
  const std::vector<Tensor> after = gpu.get_weights();
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].to_vector<float>(), before[i].to_vector<float>()) << "weight " << i << " was written";
  }
  EXPECT_EQ(gpu.optimizer().iterations(), 0);
  const float expected_loss = cpu.train_on_batch(good, labels).at("loss");
  EXPECT_NEAR(gpu.train_on_batch(good, labels).at("loss"), expected_loss, 1e-4f * std::fabs(expected_loss));
}

namespace {

// A small image classifier: every layer kind of a first CNN, with a convolution, a pool
// and a flatten between its dense layers.
Model small_cnn() {
  auto in = Input({8, 8, 1});
  auto h = layers::Conv2D(4, {3, 3}, {.activation = "relu"})(in);
  h = layers::MaxPooling2D({2, 2})(h);
  h = layers::Flatten()(h);
  h = layers::Dense(16, {.activation = "relu"})(h);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

}  // namespace

// The CNN trains 50 steps on the GPU on sparse categorical cross-entropy, with accuracy
// as its metric, with the CPU's losses, for plain SGD and Adam: the convolution and its
// kernel's gradient through cuDNN (a first layer needs no input gradient), the pool and
// its gradient through the relu (with the bias's), the flatten and its gradient as
// reshapes (reshape, reshape_like). Its accuracy is the CPU's up to a sample whose two
// top probabilities round the other way. Every op of its Programs has a CUDA kernel (in
// a build with cuDNN): compile must accept it.
TEST(DevicePlacement, ACnnTrainsFiftyStepsOnTheGpuWithTheCpusLosses) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  if (!built_with_cudnn()) GTEST_SKIP() << "Strata was built without cuDNN, on which conv2d's CUDA kernel is written";
  constexpr std::int64_t kBatch = 32;
  for (const char* optimizer : {"sgd", "adam"}) {
    auto [features, labels] = test_data::blobs(kBatch, 64);
    const Tensor images = features.reshaped({kBatch, 8, 8, 1});
    auto [cpu, gpu] = cpu_and_gpu_models(small_cnn, optimizer, "sparse_categorical_crossentropy", {"accuracy"});
    expect_trains_as_on_the_cpu(cpu, gpu, images, labels, optimizer);
  }
}

namespace {

constexpr std::int64_t kSteps = 6, kStepFeatures = 4;

// (samples, kSteps, kStepFeatures) sequences of three classes: blobs' features read as
// steps, so the classes differ at every step.
std::pair<Tensor, Tensor> sequence_blobs(std::int64_t samples) {
  auto [features, labels] = test_data::blobs(samples, kSteps * kStepFeatures);
  return {features.reshaped({samples, kSteps, kStepFeatures}), labels};
}

// An LSTM's last output into a softmax Dense: rnn_zero_state, rnn_sequence and its
// gradient on the GPU.
Model lstm_classifier() {
  auto in = Input({kSteps, kStepFeatures});
  auto h = layers::LSTM(8)(in);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

// The same with input and recurrent dropout, seeded so that two such models draw the same
// masks (the GPU must draw the CPU's).
Model lstm_classifier_with_dropout() {
  auto in = Input({kSteps, kStepFeatures});
  auto h = layers::LSTM(8, {.dropout = 0.2, .recurrent_dropout = 0.25, .seed = 11})(in);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

// A bidirectional GRU (reset_after, Keras's default) returning sequences, averaged over
// the steps: the backward layer runs go_backwards and its outputs are reversed back.
Model bidirectional_gru_classifier() {
  auto in = Input({kSteps, kStepFeatures});
  auto h = layers::Bidirectional(layers::GRU(6, {.return_sequences = true}))(in);
  h = layers::GlobalAveragePooling1D()(h);
  return Model(in, layers::Dense(3, {.activation = "softmax"})(h));
}

}  // namespace

// An LSTM classifier trains 50 steps on the GPU with the CPU's losses, for plain SGD and
// Adam, and with dropout and recurrent dropout under Adam (the CPU's masks on the GPU):
// the time loop's products are cuBLAS's, its gate math our kernels' (core/cuda/rnn.cu).
// Every op of its Programs has a CUDA kernel: compile must accept it.
TEST(DevicePlacement, AnLstmTrainsFiftyStepsOnTheGpuWithTheCpusLosses) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  constexpr std::int64_t kBatch = 32;
  auto [sequences, labels] = sequence_blobs(kBatch);
  for (const char* optimizer : {"sgd", "adam"}) {
    auto [cpu, gpu] = cpu_and_gpu_models(lstm_classifier, optimizer, "sparse_categorical_crossentropy", {"accuracy"});
    expect_trains_as_on_the_cpu(cpu, gpu, sequences, labels, optimizer);
  }
  auto [cpu, gpu] =
      cpu_and_gpu_models(lstm_classifier_with_dropout, "adam", "sparse_categorical_crossentropy", {"accuracy"});
  expect_trains_as_on_the_cpu(cpu, gpu, sequences, labels, "adam, dropout and recurrent_dropout");
}

// A bidirectional GRU classifier trains 50 steps on the GPU with the CPU's losses, for
// plain SGD and Adam. Every op of its Programs has a CUDA kernel: compile must accept it.
TEST(DevicePlacement, ABidirectionalGruTrainsFiftyStepsOnTheGpuWithTheCpusLosses) {
  if (!has_cuda_device()) GTEST_SKIP() << "no CUDA device on this machine (or Strata built without CUDA)";
  constexpr std::int64_t kBatch = 32;
  auto [sequences, labels] = sequence_blobs(kBatch);
  for (const char* optimizer : {"sgd", "adam"}) {
    auto [cpu, gpu] =
        cpu_and_gpu_models(bidirectional_gru_classifier, optimizer, "sparse_categorical_crossentropy", {"accuracy"});
    expect_trains_as_on_the_cpu(cpu, gpu, sequences, labels, optimizer);
  }
}

}  // namespace device_placement_test
