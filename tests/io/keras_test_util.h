// Helpers for tests that compare Strata's predictions with goldens from real Keras.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "io/npy.h"
#include "io/saving.h"
#include "losses/losses.h"
#include "models/model.h"
#include "optimizers/optimizers.h"
#include "test_util.h"

namespace strata::testing {

inline std::string golden_dir() { return std::string(STRATA_TEST_DATA) + "/keras_golden"; }
inline std::string real_models_dir() { return STRATA_SHARED_DIR "/keras-models"; }
inline std::string real_goldens_dir() { return STRATA_TEST_DATA "/keras_models"; }
// The real-world files (shared/keras-models) sit beside the checkout on the development
// machines and CI, not wherever the suite runs (a GPU machine gets the checkout alone):
// a test that reads them skips without them, saying so.
#define STRATA_SKIP_WITHOUT_REAL_MODELS()                                                          \
  do {                                                                                             \
    if (!std::filesystem::is_directory(::strata::testing::real_models_dir())) {                    \
      GTEST_SKIP() << "no " << ::strata::testing::real_models_dir();                               \
    }                                                                                              \
  } while (0)

// base + ".input0.npy", ".input1.npy", ... (or ".output<i>.npy") while they exist.
inline std::vector<Tensor> load_numbered(const std::string& base, const std::string& kind) {
  std::vector<Tensor> out;
  for (int i = 0;; ++i) {
    const std::string p = base + "." + kind + std::to_string(i) + ".npy";
    if (!std::filesystem::exists(p)) break;
    out.push_back(io::load_npy(p));
  }
  return out;
}

// |a - b| <= atol + rtol * |b| everywhere (Keras's goldens in b).
inline void expect_close(const Tensor& a, const Tensor& b, const std::string& what,
                         float atol = 1e-5f, float rtol = 1e-4f) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  auto x = a.to_vector<float>();
  auto y = b.to_vector<float>();
  int bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (!(std::fabs(x[i] - y[i]) <= atol + rtol * std::fabs(y[i]))) {
      if (++bad <= 3)
        ADD_FAILURE() << what << ": element " << i << " is " << x[i] << ", Keras gives " << y[i];
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << x.size() << " elements differ";
}

// Predicts base's ".input<i>.npy" arrays and compares every output with base's
// ".output<i>.npy" (what Keras predicted for them).
inline void expect_predicts_golden(Model& model, const std::string& base, const std::string& what) {
  auto xs = load_numbered(base, "input");
  auto ys = load_numbered(base, "output");
  ASSERT_FALSE(xs.empty()) << "no " << base << ".input0.npy";
  auto outs = model.predict(xs);
  ASSERT_EQ(outs.size(), ys.size()) << what;
  for (std::size_t i = 0; i < ys.size(); ++i) expect_close(outs[i], ys[i], what + " output " + std::to_string(i));
}

// Keras's files `dir + name` + ".keras" and ".h5" load and predict what Keras predicted.
inline void expect_keras_files_predict_golden(const std::string& dir, const std::string& name) {
  for (const std::string ext : {".keras", ".h5"}) {
    Model model = models::load_model(dir + name + ext);
    expect_predicts_golden(model, dir + name, name + ext);
  }
}

// Each of Keras's files `dir + name` + `sources`, loaded and saved again by Strata as each of
// `formats`, loads back and predicts what Keras predicted.
inline void expect_resaved_files_predict_golden(const std::string& dir, const std::string& name,
                                                const std::vector<std::string>& sources = {".keras", ".h5"},
                                                const std::vector<std::string>& formats = {".keras", ".h5"}) {
  ScratchDir scratch;
  for (const auto& from : sources) {
    Model model = models::load_model(dir + name + from);
    for (const std::string& ext : formats) {
      model.save(scratch.file("again" + ext));
      Model again = models::load_model(scratch.file("again" + ext));
      expect_predicts_golden(again, dir + name, "Strata's " + name + ext + " (from " + from + ")");
    }
  }
}

// One step of Keras's train_on_batch (SGD at `learning_rate`, mean squared error, the whole
// batch) on base's ".input0.npy" and ".target0.npy": the loss and every weight after it equal
// base's ".after.json" ({"loss", "weights": {path: array}}), which Keras wrote after the same step.
inline void expect_sgd_step_matches_keras(Model& model, const std::string& base, double learning_rate,
                                          const std::string& what) {
  std::ifstream in(base + ".after.json");
  ASSERT_TRUE(in) << base << ".after.json";
  const nlohmann::json after = nlohmann::json::parse(in);
  model.compile({.optimizer = optimizers::SGD({.learning_rate = learning_rate}), .loss = losses::MeanSquaredError()});
  const Tensor x = io::load_npy(base + ".input0.npy"), target = io::load_npy(base + ".target0.npy");
  History h = model.fit(x, target, {.batch_size = x.shape()[0], .epochs = 1, .verbose = 0, .shuffle = false});
  EXPECT_NEAR(h.history.at("loss").at(0), after.at("loss").get<double>(), 1e-5) << what;
  const auto& expected = after.at("weights");
  ASSERT_EQ(model.weights().size(), expected.size()) << what;
  for (const Variable& w : model.weights()) {
    ASSERT_TRUE(expected.contains(w.path())) << what << ": Keras has no weight " << w.path();
    const auto& e = expected.at(w.path());
    const Tensor keras = Tensor::from_vector<float>(Shape(e.at("shape").get<std::vector<std::int64_t>>()),
                                                    e.at("values").get<std::vector<float>>());
    expect_close(w.value(), keras, what + " " + w.path() + " after one step", 1e-5f, 1e-5f);
  }
}

}  // namespace strata::testing
