// Optimizers and learning-rate schedules save and load by Keras class with their whole
// config: files from Keras 3 and tf.keras (tests/data/optimizer_configs, made by
// tests/reference/make_optimizer_config_goldens.py) load with the class and config Keras
// wrote; Strata's own files round-trip every optimizer and schedule; configs Strata
// cannot honour are errors naming the file and the key.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "io/hdf5.h"
#include "io/optimizer_config.h"
#include "io/saving.h"
#include "io/zip.h"
#include "layers/core/dense.h"
#include "layers/core/input_layer.h"
#include "models/sequential.h"
#include "optimizers/optimizers.h"
#include "test_util.h"

namespace strata::optimizer_config_test {
namespace {

using io::json;
namespace opt = optimizers;
namespace sched = optimizers::schedules;

std::string data_dir() { return std::string(STRATA_TEST_DATA) + "/optimizer_configs"; }

json expected_files() {
  std::ifstream in(data_dir() + "/expected.json");
  return json::parse(in).at("files");
}

Model tiny_model(const opt::Optimizer& optimizer) {
  Sequential m({Input({3}), layers::Dense(2)});
  m.compile({.optimizer = optimizer, .loss = "mse"});
  return m;
}

// Every key of `expected` is in `actual` with the same value (numbers to float32
// precision); "module" and "registered_name" of a schedule object are not compared.
void expect_config(const json& actual, const json& expected, const std::string& where) {
  if (expected.is_object()) {
    ASSERT_TRUE(actual.is_object()) << where << ": " << actual.dump();
    for (const auto& [k, v] : expected.items()) {
      if (k == "module" || k == "registered_name") continue;
      ASSERT_TRUE(actual.contains(k)) << where << ": no key '" << k << "' in " << actual.dump();
      expect_config(actual[k], v, where + "." + k);
    }
  } else if (expected.is_number() && !expected.is_boolean()) {
    ASSERT_TRUE(actual.is_number()) << where << ": " << actual.dump();
    const double a = actual.get<double>(), e = expected.get<double>();
    EXPECT_LE(std::fabs(a - e), 1e-6 * std::fabs(e)) << where << ": " << a << ", Keras " << e;
  } else {
    EXPECT_EQ(actual, expected) << where;
  }
}

// The optimizer's rate at `step`, as fit sets it before a step.
float rate_at(const opt::Optimizer& o, std::int64_t step) {
  o.impl().iterations().value().data<std::int64_t>()[0] = step;
  o.impl().update_learning_rate();
  return o.learning_rate();
}

TEST(OptimizerConfigs, KerasFilesLoadByClassWithTheirWholeConfig) {
  const json files = expected_files();
  ASSERT_GE(files.size(), 40u);
  for (const auto& [file, e] : files.items()) {
    SCOPED_TRACE(file + " (" + e.at("writer").get<std::string>() + ")");
    Model m = models::load_model(data_dir() + "/" + file);
    ASSERT_TRUE(m.compiled());
    const opt::Optimizer o = m.optimizer();
    EXPECT_EQ(o.class_name(), e.at("class_name").get<std::string>());
    expect_config(io::optimizer_config(o).at("config"), e.at("config"), file);
    if (!e.contains("lr_steps")) continue;
    const auto steps = e.at("lr_steps").get<std::vector<std::int64_t>>();
    const auto values = e.at("lr_values").get<std::vector<double>>();
    for (std::size_t i = 0; i < steps.size(); ++i) {
      // Keras computes in float32, Strata in double: near cos(π) Keras's rate keeps
      // float32 precision of the schedule's scale (values[0]), not of itself.
      EXPECT_NEAR(rate_at(o, steps[i]), values[i], 1e-6 * (values[i] + values[0])) << "step " << steps[i];
    }
  }
}

std::vector<std::pair<std::string, opt::Optimizer>> every_optimizer_and_schedule() {
  return {
      {"sgd", opt::SGD({.learning_rate = 0.05, .momentum = 0.9, .nesterov = true, .clipnorm = 1.0})},
      {"adam", opt::Adam({.learning_rate = 0.002, .beta_1 = 0.8, .amsgrad = true, .global_clipnorm = 2.0})},
      {"adamw", opt::AdamW({.weight_decay = 0.1, .epsilon = 1e-6})},
      {"rmsprop", opt::RMSprop({.rho = 0.8, .momentum = 0.5, .centered = true, .clipvalue = 0.5})},
      {"adagrad", opt::Adagrad({.initial_accumulator_value = 0.2, .weight_decay = 0.01})},
      {"adadelta", opt::Adadelta({.learning_rate = 1.0, .rho = 0.9})},
      {"adamax", opt::Adamax({.beta_1 = 0.85})},
      {"nadam", opt::Nadam({.beta_2 = 0.98, .name = "my_nadam"})},
      {"lion", opt::Lion({.learning_rate = 1e-4, .beta_1 = 0.95})},
      {"exponential", opt::Adam({.learning_rate = sched::ExponentialDecay({.initial_learning_rate = 0.1,
                                                                           .decay_steps = 10,
                                                                           .decay_rate = 0.5,
                                                                           .staircase = true})})},
      {"piecewise", opt::SGD({.learning_rate = sched::PiecewiseConstantDecay({10, 20}, {0.1, 0.01, 0.001})})},
      {"polynomial", opt::RMSprop({.learning_rate = sched::PolynomialDecay({.decay_steps = 100, .power = 2.0,
                                                                            .cycle = true})})},
      {"inverse_time", opt::Adagrad({.learning_rate = sched::InverseTimeDecay({.decay_steps = 10})})},
      {"cosine", opt::AdamW({.learning_rate = sched::CosineDecay({.initial_learning_rate = 0.01,
                                                                  .decay_steps = 100,
                                                                  .alpha = 0.1,
                                                                  .warmup_target = 0.1,
                                                                  .warmup_steps = 10})})},
      {"restarts", opt::Nadam({.learning_rate = sched::CosineDecayRestarts({.first_decay_steps = 20,
                                                                            .m_mul = 0.5})})},
  };
}

TEST(OptimizerConfigs, EveryOptimizerAndScheduleRoundTripsThroughKerasAndH5) {
  testing::ScratchDir dir;
  for (const char* ext : {".keras", ".h5"}) {
    for (const auto& [name, o] : every_optimizer_and_schedule()) {  // fresh optimizers per model
      SCOPED_TRACE(name + ext);
      ::testing::internal::CaptureStderr();
      tiny_model(o).save(dir.file(name + ext));
      Model again = models::load_model(dir.file(name + ext));
      EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");  // the optimizer state fits too
      ASSERT_TRUE(again.compiled());
      EXPECT_EQ(io::optimizer_config(again.optimizer()), io::optimizer_config(o));
      for (std::int64_t step : {0, 7, 25, 130}) EXPECT_EQ(rate_at(again.optimizer(), step), rate_at(o, step));
    }
  }
}

TEST(OptimizerConfigs, AdamWIsSavedAsAdamWWithItsWeightDecay) {
  testing::ScratchDir dir;
  Model m = tiny_model(opt::AdamW({.weight_decay = 0.1}));
  m.save(dir.file("m.keras"));
  m.save(dir.file("m.h5"));
  const json cc = json::parse(io::ZipReader(dir.file("m.keras")).read("config.json")).at("compile_config");
  const json& k3 = cc.at("optimizer");
  EXPECT_EQ(k3.at("module"), "keras.optimizers");
  EXPECT_EQ(k3.at("class_name"), "AdamW");
  EXPECT_EQ(k3.at("registered_name"), nullptr);
  EXPECT_EQ(k3.at("config").at("weight_decay"), 0.1);
  // Keras 3.15's get_config keys, in its order.
  std::vector<std::string> keys;
  for (const auto& [k, v] : k3.at("config").items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "learning_rate", "weight_decay", "clipnorm", "global_clipnorm",
                                            "clipvalue", "use_ema", "ema_momentum", "ema_overwrite_frequency",
                                            "loss_scale_factor", "gradient_accumulation_steps", "beta_1", "beta_2",
                                            "epsilon", "amsgrad"}));
  io::h5::File f(dir.file("m.h5"), io::h5::File::Mode::read);
  const json tc = json::parse(f.read_string_attribute("training_config"));
  EXPECT_EQ(tc.at("optimizer_config").at("class_name"), "AdamW");
  EXPECT_EQ(tc.at("optimizer_config").at("config"), k3.at("config"));
}

TEST(OptimizerConfigs, MalformedOrUnsupportedConfigsAreErrorsNamingWhereAndWhat) {
  const std::string where = "'m.keras' compile_config";
  auto adam = [](json config) { return json{{"class_name", "Adam"}, {"config", std::move(config)}}; };
  EXPECT_THROW_WITH(io::optimizer_from_config(adam({{"beta_1", "high"}}), where), ValueError, where, "beta_1",
                    "a number", "\"high\"", "{.compile = false}");
  EXPECT_THROW_WITH(io::optimizer_from_config(adam({{"amsgrad", 1.5}}), where), ValueError, "amsgrad");
  EXPECT_THROW_WITH(io::optimizer_from_config(adam({{"betta_1", 0.9}}), where), ValueError, "unknown key 'betta_1'");
  EXPECT_THROW_WITH(io::optimizer_from_config(adam({{"use_ema", true}}), where), NotImplementedError, where,
                    "use_ema=true");
  EXPECT_THROW_WITH(io::optimizer_from_config(adam({{"gradient_accumulation_steps", 4}}), where),
                    NotImplementedError, "gradient_accumulation_steps=4");
  EXPECT_THROW_WITH(io::optimizer_from_config(adam({{"clipnorm", 1.0}, {"clipvalue", 1.0}}), where), ValueError,
                    where, "only one of");
  EXPECT_THROW_WITH(io::optimizer_from_config(json{{"class_name", "Ftrl"}, {"config", json::object()}}, where),
                    NotImplementedError, where, "'Ftrl'", "Adam, AdamW");
  EXPECT_THROW_WITH(io::optimizer_from_config(json{{"config", json::object()}}, where), ValueError, where,
                    "class_name");
  EXPECT_THROW_WITH(io::optimizer_from_config(json{{"class_name", "Adam"}, {"config", 3}}, where), ValueError,
                    "\"config\"");
  EXPECT_THROW_WITH(
      io::optimizer_from_config(adam({{"learning_rate", {{"class_name", "WarmUp"}, {"config", json::object()}}}}),
                                where),
      NotImplementedError, "'WarmUp'", "ExponentialDecay");
  EXPECT_THROW_WITH(io::optimizer_from_config(
                        adam({{"learning_rate",
                               {{"class_name", "ExponentialDecay"}, {"config", {{"decay_steps", "ten"}}}}}}),
                        where),
                    ValueError, where, "learning_rate", "decay_steps");
  EXPECT_THROW_WITH(io::optimizer_from_config(
                        adam({{"learning_rate",
                               {{"class_name", "PiecewiseConstantDecay"}, {"config", {{"values", {0.1, 0.2}}}}}}}),
                        where),
                    ValueError, where, "length of boundaries");
}

TEST(OptimizerConfigs, LossScaleOptimizerConfigsReadWithTheirInnerOptimizerAndWriteBackAsKerasDoes) {
  // Keras 3's get_config (name, inner_optimizer serialized, initial_scale,
  // dynamic_growth_steps), and tf.keras's with "dynamic": true, which Keras 3 accepts.
  const std::string where = "'m.keras' compile_config";
  const json inner = io::keras3_optimizer_object(opt::Adam({.learning_rate = 0.01}));
  const json keras3{{"class_name", "LossScaleOptimizer"},
                    {"config",
                     {{"name", "scaled"}, {"inner_optimizer", inner}, {"initial_scale", 1024.0},
                      {"dynamic_growth_steps", 7}}}};
  const opt::Optimizer read = io::optimizer_from_config(keras3, where);
  ASSERT_TRUE(opt::is_loss_scale_optimizer(read));
  const auto scaled = opt::LossScaleOptimizer::from(read);
  EXPECT_EQ(scaled.name(), "scaled");
  EXPECT_EQ(scaled.options().initial_scale, 1024.0);
  EXPECT_EQ(scaled.options().dynamic_growth_steps, 7);
  EXPECT_EQ(scaled.inner_optimizer().class_name(), "Adam");
  EXPECT_FLOAT_EQ(scaled.inner_optimizer().learning_rate(), 0.01f);
  EXPECT_FLOAT_EQ(read.learning_rate(), 0.01f) << "its learning rate is the inner optimizer's, as Keras's property";
  const json written = io::optimizer_config(read);
  EXPECT_EQ(written["class_name"], "LossScaleOptimizer");
  std::vector<std::string> keys;
  for (const auto& [key, value] : written["config"].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"name", "inner_optimizer", "initial_scale", "dynamic_growth_steps"}));
  EXPECT_EQ(written["config"]["inner_optimizer"]["class_name"], "Adam");
  json tf_keras = keras3;
  tf_keras["config"]["dynamic"] = true;
  EXPECT_TRUE(opt::is_loss_scale_optimizer(io::optimizer_from_config(tf_keras, where)));
  // Errors name the file and the key.
  tf_keras["config"]["dynamic"] = false;
  EXPECT_THROW_WITH(io::optimizer_from_config(tf_keras, where), NotImplementedError, where, "\"dynamic\": false");
  json no_inner = keras3;
  no_inner["config"].erase("inner_optimizer");
  EXPECT_THROW_WITH(io::optimizer_from_config(no_inner, where), ValueError, where, "inner_optimizer");
  json unknown = keras3;
  unknown["config"]["loss_scale"] = 2.0;
  EXPECT_THROW_WITH(io::optimizer_from_config(unknown, where), ValueError, "unknown key 'loss_scale'");
  json negative = keras3;
  negative["config"]["initial_scale"] = -1.0;
  EXPECT_THROW_WITH(io::optimizer_from_config(negative, where), ValueError, "initial_scale");
}

TEST(OptimizerConfigs, AFileWhoseOptimizerCannotBeHonouredNamesItAndLoadsWithoutCompile) {
  testing::ScratchDir dir;
  const std::string path = dir.file("ema.keras");
  tiny_model(opt::Adam()).save(path);
  io::ZipReader zip(path);
  json config = json::parse(zip.read("config.json"));
  config["compile_config"]["optimizer"]["config"]["use_ema"] = true;
  io::ZipWriter out;
  for (const auto& name : zip.names()) out.add(name, name == "config.json" ? config.dump() : zip.read(name));
  testing::write_bytes(path, out.finish());
  EXPECT_THROW_WITH(models::load_model(path), NotImplementedError, path, "use_ema=true");
  EXPECT_FALSE(models::load_model(path, {.compile = false}).compiled());
}

TEST(OptimizerConfigs, Keras2SpellingsAreRead) {
  // "lr"; a legacy "decay" is Keras 2's lr / (1 + decay·iterations).
  opt::Optimizer sgd = io::optimizer_from_config(
      json{{"class_name", "SGD"}, {"config", {{"lr", 0.1}, {"momentum", 0.9}, {"decay", 0.01}, {"nesterov", false}}}},
      "test");
  EXPECT_FLOAT_EQ(rate_at(sgd, 0), 0.1f);
  EXPECT_FLOAT_EQ(rate_at(sgd, 100), 0.05f);
  // Keras 2's Nadam schedule_decay has no Keras 3 meaning: ignored with a warning, as Keras 3.
  ::testing::internal::CaptureStderr();
  opt::Optimizer nadam = io::optimizer_from_config(
      json{{"class_name", "Nadam"}, {"config", {{"lr", 0.002}, {"schedule_decay", 0.004}}}}, "'old.h5'");
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("'old.h5'"), std::string::npos) << err;
  EXPECT_NE(err.find("schedule_decay"), std::string::npos) << err;
  EXPECT_FLOAT_EQ(nadam.learning_rate(), 0.002f);
  // A string identifier, as a hand-written compile_config may hold.
  EXPECT_EQ(io::optimizer_from_config(json("rmsprop"), "test").class_name(), "RMSprop");
}

TEST(OptimizerConfigs, AScheduleOfOnesOwnCannotBeSaved) {
  testing::ScratchDir dir;
  opt::LearningRateSchedule mine("Halving", [](std::int64_t step) { return 0.1 / (1 << std::min<std::int64_t>(step, 20)); });
  Model m = tiny_model(opt::SGD({.learning_rate = mine}));
  EXPECT_THROW_WITH(m.save(dir.file("m.keras")), ValueError, "'Halving'", "ExponentialDecay");
}

// With STRATA_OPTIMIZER_EXPORT_DIR set, writes there what the Python check
// (make_optimizer_config_goldens.py --check DIR) loads in Keras: each Keras 3 golden
// loaded by Strata and saved again (.keras and .h5), and optimizers built here.
TEST(OptimizerConfigs, ExportsForTheKerasCheck) {
  testing::ScratchDir scratch;
  const char* env = std::getenv("STRATA_OPTIMIZER_EXPORT_DIR");
  const std::string dir = env ? env : scratch.path().string();
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, Model>> models;
  const json files = expected_files();
  for (const auto& [file, e] : files.items()) {
    if (file.starts_with("k3_") && file.ends_with(".keras"))
      models.emplace_back(file.substr(0, file.size() - 6), models::load_model(data_dir() + "/" + file));
  }
  models.emplace_back("strata_adamw", tiny_model(opt::AdamW({.weight_decay = 0.1})));
  models.emplace_back("strata_sgd_schedule",
                      tiny_model(opt::SGD({.learning_rate = sched::ExponentialDecay({.initial_learning_rate = 0.1,
                                                                                     .decay_steps = 10,
                                                                                     .decay_rate = 0.5}),
                                           .momentum = 0.9})));
  for (auto& [stem, m] : models) {
    for (const char* ext : {".keras", ".h5"}) {
      const std::string path = dir + "/" + stem + ext;
      m.save(path);
      EXPECT_EQ(io::optimizer_config(models::load_model(path).optimizer()), io::optimizer_config(m.optimizer()))
          << path;
    }
  }
  if (env) std::cout << "[ export ] " << 2 * models.size() << " files in " << dir << "\n";
}

}  // namespace
}  // namespace strata::optimizer_config_test
