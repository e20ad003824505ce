// compile's device: "cpu" explicitly or by default; a device the model's ops have no
// kernels for is refused by compile itself, naming the op, the layer and the device.
#include <gtest/gtest.h>

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
  Model m = small_classifier();
  try {
    m.compile({.optimizer = optimizers::get("sgd"), .loss = "sparse_categorical_crossentropy", .device = "cuda:0"});
    ADD_FAILURE() << "compiled for cuda:0 although softmax and the loss have no CUDA kernel yet";
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
