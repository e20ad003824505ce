// Issue #39: the Fashion-MNIST tutorial's MLP (examples/fashion_mnist_mlp.cc) trained under
// Keras's mixed_bfloat16 and mixed_float16 policies, as Keras's mixed precision guide
// builds it (the output layer float32), learns what float32 training learns: its test
// accuracy within a point of float32's, as Keras's own mixed-precision training of it is
// (tests/reference/fashion_mnist_mixed_precision_keras.py; docs/precision.md). Trained
// briefly on the real data (Debian's dataset-fashion-mnist, which scripts/install_deps.sh
// installs), evaluated on all 10000 test images: a point is 100 images.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

#include "strata.h"

using namespace strata;

namespace mixed_precision_accuracy_test {

namespace {

// The tutorial's MLP made under `policy`, trained 2 epochs on the first 20000 images:
// its test accuracy.
double accuracy_under(const std::string& policy) {
  set_random_seed(1);
  auto data = datasets::fashion_mnist::load_data();
  const Tensor x_train = (data.x_train / 255.f).slice_rows(0, 20000), y_train = data.y_train.slice_rows(0, 20000);
  set_dtype_policy(policy);
  const layers::Dense logits(10);
  logits.set_dtype_policy("float32");
  Model model = Sequential({Input({28, 28}), layers::Flatten(), layers::Dense(128, {.activation = "relu"}), logits});
  set_dtype_policy("float32");
  model.compile({.optimizer = optimizers::Adam({.learning_rate = 1e-3}),
                 .loss = losses::SparseCategoricalCrossentropy({.from_logits = true}),
                 .metrics = {"accuracy"}});
  model.fit(x_train, y_train, {.batch_size = 32, .epochs = 2, .verbose = 0});
  const double accuracy = model.evaluate(data.x_test / 255.f, data.y_test, {.verbose = 0}).at("accuracy");
  std::printf("test accuracy under %s: %.4f (%s)\n", policy.c_str(), accuracy, model.optimizer().class_name().c_str());
  return accuracy;
}

}  // namespace

TEST(MixedPrecisionAccuracy, TheFashionMnistMlpTrainedUnderTheMixedPoliciesIsWithinAPointOfFloat32) {
  struct Restore {
    ~Restore() { set_dtype_policy("float32"); }
  } restore;
  const double float32 = accuracy_under("float32");
  EXPECT_GT(float32, 0.8) << "the float32 model did not learn: the comparison would say nothing";
  for (const std::string policy : {"mixed_bfloat16", "mixed_float16"}) {
    EXPECT_LE(std::fabs(accuracy_under(policy) - float32), 0.01) << policy;
  }
}

}  // namespace mixed_precision_accuracy_test
