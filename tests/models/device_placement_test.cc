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

using namespace strata;

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
      EXPECT_FALSE(OpRegistry::global().get(op).cuda_kernel) << "op '" << op << "' has a CUDA kernel: " << msg;
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
    Model cpu = regression_mlp(), gpu = regression_mlp();
    gpu.set_weights(cpu.get_weights());
    cpu.compile({.optimizer = optimizers::get(optimizer), .loss = "mse"});
    gpu.compile({.optimizer = optimizers::get(optimizer), .loss = "mse", .device = "cuda:0"});
    for (const Variable& v : gpu.weights()) ASSERT_TRUE(v.value().is_on(parse_device("cuda:0"))) << v.path();
    for (const Tensor& w : gpu.get_weights()) ASSERT_TRUE(w.on_cpu());
    for (int step = 0; step < 50; ++step) {
      const float expected = cpu.train_on_batch(inputs, targets).at("loss");
      const float actual = gpu.train_on_batch(inputs, targets).at("loss");
      ASSERT_LE(std::fabs(actual - expected), 1e-4f * std::fabs(expected)) << optimizer << ", step " << step;
    }
    expect_weights_near(cpu, gpu, optimizer);
    EXPECT_EQ(gpu.optimizer().iterations(), 50);
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
    Model cpu = dropout_classifier(), gpu = dropout_classifier();
    gpu.set_weights(cpu.get_weights());
    cpu.compile({.optimizer = optimizers::get(optimizer), .loss = "sparse_categorical_crossentropy",
                 .metrics = {"accuracy"}});
    gpu.compile({.optimizer = optimizers::get(optimizer), .loss = "sparse_categorical_crossentropy",
                 .metrics = {"accuracy"}, .device = "cuda:0"});
    for (const Variable& v : gpu.weights()) ASSERT_TRUE(v.value().is_on(parse_device("cuda:0"))) << v.path();
    for (int step = 0; step < 50; ++step) {
      const std::map<std::string, float> expected = cpu.train_on_batch(inputs, labels);
      const std::map<std::string, float> actual = gpu.train_on_batch(inputs, labels);
      ASSERT_LE(std::fabs(actual.at("loss") - expected.at("loss")), 1e-4f * std::fabs(expected.at("loss")))
          << optimizer << ", step " << step;
      EXPECT_NEAR(actual.at("accuracy"), expected.at("accuracy"), 1.0f / kBatch + 1e-6f) << optimizer << ", step " << step;
    }
    expect_weights_near(cpu, gpu, optimizer);
    EXPECT_EQ(gpu.optimizer().iterations(), 50);
  }
}
