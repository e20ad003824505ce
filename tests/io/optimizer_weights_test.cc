// The optimizer state of full-model .h5 files (root group `optimizer_weights`): restored
// from a real Keras 2.1.4 file and from Strata's own files, and skipped with a warning
// when it does not fit the compiled optimizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "io/hdf5.h"
#include "io/saving.h"
#include "keras_test_util.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "models/compiled_model.h"
#include "models/sequential.h"
#include "optimizers/optimizers.h"
#include "test_util.h"

namespace strata::optimizer_weights_test {
namespace {

Tensor ramp(Shape shape) {
  Tensor t(shape);
  auto v = t.values<float>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = 0.05f * static_cast<float>(i % 23) - 0.5f;
  return t;
}

Tensor one_hot_rows(int rows, int classes) {
  Tensor t(Shape{rows, classes});
  auto v = t.values<float>();
  for (int r = 0; r < rows; ++r) v[r * classes + r % classes] = 1.f;
  return t;
}

// The slots of `opt` kind by kind (every momentum, then every velocity).
std::vector<Variable> slots_by_kind(const optimizers::Optimizer& opt) {
  std::vector<Variable> out;
  for (const char* kind : {"momentum", "velocity"}) {
    for (const auto& s : opt.impl().slot_variables()) {
      if (s.slot_name == kind) out.push_back(s.slot);
    }
  }
  return out;
}

void expect_equal(const Tensor& a, const Tensor& b, const std::string& what) {
  testing::expect_close(a, b, what, 0, 0);
}

TEST(OptimizerWeights, Keras214AdamStateIsRestored) {
  STRATA_SKIP_WITHOUT_REAL_MODELS();
  const std::string path = testing::real_models_dir() + "/mlp_iris_k214.h5";
  ::testing::internal::CaptureStderr();
  Model m = models::load_model(path);
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(err, "");
  ASSERT_TRUE(m.compiled());
  optimizers::Optimizer opt = m.optimizer();
  EXPECT_EQ(opt.iterations(), 900);

  io::h5::File f(path, io::h5::File::Mode::read);
  const io::h5::Group g = f.open_group("optimizer_weights");
  const auto slots = slots_by_kind(opt);
  ASSERT_EQ(slots.size(), 8u);  // m and v for two Dense layers' kernel and bias
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const std::string name =
        "training/Adam/Variable" + (i == 0 ? std::string() : "_" + std::to_string(i)) + ":0";
    expect_equal(slots[i].value(), g.open_dataset(name).read(DType::float32), name);
  }

  // One more step from the restored state differs from one from fresh slots.
  Model fresh = models::load_model(path, {.compile = false});
  fresh.compile({.optimizer = optimizers::Adam({.learning_rate = 0.001, .epsilon = 1e-7}),
                 .loss = "categorical_crossentropy"});
  expect_equal(m.predict(ramp({5, 4})), fresh.predict(ramp({5, 4})), "before the step");
  const Tensor x = ramp({5, 4}), y = one_hot_rows(5, 3);
  m.train_on_batch(x, y);
  fresh.train_on_batch(x, y);
  EXPECT_EQ(m.optimizer().iterations(), 901);
  const auto p = m.predict(x).to_vector<float>(), q = fresh.predict(x).to_vector<float>();
  float diff = 0;
  for (std::size_t i = 0; i < p.size(); ++i) diff = std::max(diff, std::fabs(p[i] - q[i]));
  EXPECT_GT(diff, 1e-6f);
}

Sequential trained_model() {
  Sequential m({Input({3}), layers::Dense(4, {.activation = "tanh", .name = "hidden"}),
                layers::Dense(2, {.name = "out"})});
  m.compile({.optimizer = optimizers::Adam({.learning_rate = 0.05}), .loss = "mse"});
  const Tensor x = ramp({6, 3}), y = ramp({6, 2});
  for (int i = 0; i < 3; ++i) m.train_on_batch(x, y);
  return m;
}

TEST(OptimizerWeights, StrataH5RoundTripsTheOptimizerState) {
  testing::ScratchDir dir;
  Sequential m = trained_model();
  m.save(dir.file("m.h5"));
  {
    io::h5::File f(dir.file("m.h5"), io::h5::File::Mode::read);
    const auto names = f.open_group("optimizer_weights").read_string_list_attribute("weight_names");
    ASSERT_EQ(names.size(), 9u);
    EXPECT_EQ(names[0], "Adam/iter:0");
    EXPECT_EQ(names[1], "Adam/hidden/kernel/m:0");
    EXPECT_EQ(names[5], "Adam/hidden/kernel/v:0");
  }
  ::testing::internal::CaptureStderr();
  Model again = models::load_model(dir.file("m.h5"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  ASSERT_TRUE(again.compiled());
  EXPECT_EQ(again.optimizer().iterations(), 3);
  const auto a = slots_by_kind(m.optimizer()), b = slots_by_kind(again.optimizer());
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) expect_equal(b[i].value(), a[i].value(), a[i].path());
  // Training resumes exactly where it stopped.
  const Tensor x = ramp({6, 3}), y = ramp({6, 2});
  m.train_on_batch(x, y);
  again.train_on_batch(x, y);
  expect_equal(again.predict(x), m.predict(x), "after one more step");
}

// Copies a Strata-written full-model file to `dst`, with `optimizer_weights` replaced by
// the given names and values.
void copy_with_optimizer_weights(const std::string& src, const std::string& dst,
                                 const std::vector<std::string>& names,
                                 const std::vector<Tensor>& values) {
  io::h5::File in(src, io::h5::File::Mode::read);
  io::h5::File out(dst, io::h5::File::Mode::truncate);
  for (const char* a : {"keras_version", "backend", "model_config", "training_config"})
    out.write_string_attribute(a, in.read_string_attribute(a));
  const io::h5::Group mw = in.open_group("model_weights");
  io::h5::Group omw = out.create_group("model_weights");
  const auto layers = mw.read_string_list_attribute("layer_names");
  omw.write_string_list_attribute("layer_names", layers);
  for (const char* a : {"backend", "keras_version"})
    omw.write_string_attribute(a, mw.read_string_attribute(a));
  for (const auto& l : layers) {
    const io::h5::Group lg = mw.open_group(l);
    io::h5::Group olg = omw.create_group(l);
    const auto weights = lg.read_string_list_attribute("weight_names");
    olg.write_string_list_attribute("weight_names", weights);
    for (const auto& w : weights) olg.create_dataset(w, lg.open_dataset(w).read(DType::float32));
  }
  io::h5::Group ow = out.create_group("optimizer_weights");
  ow.write_string_list_attribute("weight_names", names);
  for (std::size_t i = 0; i < names.size(); ++i) ow.create_dataset(names[i], values[i]);
  out.close();
}

TEST(OptimizerWeights, DamagedStateWarnsAndTheModelStillLoads) {
  testing::ScratchDir dir;
  Sequential m = trained_model();
  m.save(dir.file("m.h5"));
  std::vector<std::string> names;
  std::vector<Tensor> values;
  {
    io::h5::File f(dir.file("m.h5"), io::h5::File::Mode::read);
    const io::h5::Group g = f.open_group("optimizer_weights");
    names = g.read_string_list_attribute("weight_names");
    for (const auto& n : names) {
      const io::h5::Dataset d = g.open_dataset(n);
      values.push_back(d.read(d.shape().rank() == 0 ? DType::int64 : DType::float32));
    }
  }
  values[1] = ramp({4, 5});  // hidden/kernel/m is 3x4
  copy_with_optimizer_weights(dir.file("m.h5"), dir.file("bad.h5"), names, values);
  ::testing::internal::CaptureStderr();
  Model again = models::load_model(dir.file("bad.h5"));
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("Error in loading the saved optimizer state"), std::string::npos) << err;
  EXPECT_NE(err.find("shape"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
  ASSERT_TRUE(again.compiled());
  EXPECT_EQ(again.optimizer().iterations(), 0);  // nothing of the bad state was assigned
  for (const auto& s : slots_by_kind(again.optimizer()))
    expect_equal(s.value(), Tensor::filled(s.shape(), 0.f), s.path());
  expect_equal(again.predict(ramp({2, 3})), m.predict(ramp({2, 3})), "weights");
}

TEST(OptimizerWeights, Keras211SlotsVariableByVariableAreRestored) {
  // Keras 2.11+ (tf 2.11-2.15) writes "iteration:0", then "Adam/m/<path>:0",
  // "Adam/v/<path>:0" for each variable in turn.
  testing::ScratchDir dir;
  Sequential m = trained_model();
  m.save(dir.file("m.h5"));
  std::vector<std::string> names{"iteration:0"};
  std::vector<Tensor> values{m.optimizer().impl().iterations().value()};
  for (const auto& s : m.optimizer().impl().slot_variables()) {
    names.push_back(std::string("Adam/") + (s.slot_name == "momentum" ? "m" : "v") + "/" +
                    s.variable.path() + ":0");
    values.push_back(s.slot.value());
  }
  ASSERT_EQ(names[2], "Adam/v/hidden/kernel:0");
  copy_with_optimizer_weights(dir.file("m.h5"), dir.file("k211.h5"), names, values);
  ::testing::internal::CaptureStderr();
  Model again = models::load_model(dir.file("k211.h5"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(again.optimizer().iterations(), 3);
  const auto a = slots_by_kind(m.optimizer()), b = slots_by_kind(again.optimizer());
  ASSERT_EQ(b.size(), a.size());
  for (std::size_t i = 0; i < a.size(); ++i) expect_equal(b[i].value(), a[i].value(), a[i].path());
}

}  // namespace
}  // namespace strata::optimizer_weights_test
