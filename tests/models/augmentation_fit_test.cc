// The augmentation layers in fit: a model that starts with the seven layers of Keras's
// "image classification from scratch" recipe trains; its augmentations are drawn from the
// seeds and the step (two runs give bit-identical weights, and a fit stopped after an epoch
// and continued draws what the uninterrupted one drew); predict is deterministic; and a
// resampling layer after a layer with weights is refused by name when the gradient is
// built, not trained with a wrong one.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "core/error.h"
#include "strata.h"

using namespace strata;

namespace augmentation_fit_test {

namespace {

Model make_model() {
  set_random_seed(7);
  auto in = Input({10, 9, 1});
  auto x = layers::RandomFlip({.mode = "horizontal"})(in);
  x = layers::RandomRotation(0.1)(x);
  x = layers::RandomZoom(0.1)(x);
  x = layers::RandomTranslation(0.1, 0.1)(x);
  x = layers::RandomContrast(0.2, {.value_range = {0, 1}})(x);
  x = layers::RandomBrightness(0.1, {.value_range = {0, 1}})(x);
  x = layers::RandomCrop(8, 8)(x);
  x = layers::Flatten()(x);
  Model m(in, layers::Dense(3, {.activation = "softmax"})(x));
  m.compile({.optimizer = optimizers::Adam({.learning_rate = 0.01}), .loss = "sparse_categorical_crossentropy"});
  return m;
}

std::pair<Tensor, Tensor> data() {
  Tensor x({48, 10, 9, 1});
  Tensor y({48}, DType::int64);
  std::mt19937 gen(3);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  for (float& v : x.values<float>()) v = u(gen);
  for (std::int64_t i = 0; i < 48; ++i) y.data<std::int64_t>()[i] = i % 3;
  return {x, y};
}

bool bit_identical(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].nbytes() != b[i].nbytes() || std::memcmp(a[i].raw_data(), b[i].raw_data(), a[i].nbytes()) != 0) {
      return false;
    }
  }
  return true;
}

}  // namespace

TEST(AugmentationFit, TrainsReproduciblyAndResumes) {
  const auto [x, y] = data();
  Model a = make_model();
  const auto before = a.get_weights();
  a.fit(x, y, {.batch_size = 16, .epochs = 2, .verbose = 0, .shuffle = false});
  EXPECT_FALSE(bit_identical(a.get_weights(), before));
  Model b = make_model();
  b.fit(x, y, {.batch_size = 16, .epochs = 2, .verbose = 0, .shuffle = false});
  EXPECT_TRUE(bit_identical(b.get_weights(), a.get_weights()));
  // Stopped after the first epoch, continued from the second: the same draws.
  Model c = make_model();
  c.fit(x, y, {.batch_size = 16, .epochs = 1, .verbose = 0, .shuffle = false});
  c.fit(x, y, {.batch_size = 16, .epochs = 2, .verbose = 0, .shuffle = false, .initial_epoch = 1});
  EXPECT_TRUE(bit_identical(c.get_weights(), a.get_weights()));
  // Inference draws nothing: predict twice, the same.
  const Tensor p = a.predict(x, {.verbose = 0});
  EXPECT_EQ(std::memcmp(p.raw_data(), a.predict(x, {.verbose = 0}).raw_data(), p.nbytes()), 0);
}

TEST(AugmentationFit, ResamplingAfterWeightsIsRefusedByName) {
  set_random_seed(7);
  auto in = Input({6, 6, 1});
  auto x = layers::Dense(1)(in);
  x = layers::RandomRotation(0.1)(x);
  Model m(in, layers::Dense(2)(layers::Flatten()(x)));
  try {
    m.compile({.optimizer = "adam", .loss = "mse"});
    m.fit(Tensor::filled({4, 6, 6, 1}, 0.5f), Tensor::filled({4, 2}, 0.f), {.epochs = 1, .verbose = 0});
    ADD_FAILURE() << "trained through a rotation";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("image_affine_transform"), std::string::npos) << e.what();
  }
}

}  // namespace augmentation_fit_test
