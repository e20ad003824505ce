// Callbacks against real Keras 3 (tests/data/callbacks_golden.json): the order of hooks in
// fit with validation, the epoch EarlyStopping stops at, and ReduceLROnPlateau's rates, for
// scripted monitor values injected by an earlier callback.
#include <gtest/gtest.h>

#include "strata.h"
#include "test_data.h"
#include "tests/training_golden.h"

using namespace strata;

namespace callbacks_golden_test {

using nlohmann::json;

namespace {

Model model(double lr = 0.1) {
  auto in = Input({4});
  Model m(in, layers::Dense(3, {.activation = "softmax"})(in));
  m.compile({.optimizer = optimizers::SGD({.learning_rate = lr}), .loss = "sparse_categorical_crossentropy",
             .metrics = {"accuracy"}});
  return m;
}

Callback scripted(std::vector<float> values) {
  return callbacks::LambdaCallback(
      {.on_epoch_end = [values](int e, Logs& logs) { logs["score"] = values.at(static_cast<std::size_t>(e)); }});
}

class Recorder : public CallbackImpl {
 public:
  std::vector<std::string> events;
  void on_train_begin(Logs&) override { events.push_back("train_begin"); }
  void on_train_end(Logs&) override { events.push_back("train_end"); }
  void on_epoch_begin(int e, Logs&) override { events.push_back("epoch_begin " + std::to_string(e)); }
  void on_epoch_end(int e, Logs& logs) override {
    events.push_back("epoch_end " + std::to_string(e) + (logs.count("val_loss") ? " val" : ""));
  }
  void on_train_batch_begin(std::int64_t b, Logs&) override { events.push_back("batch_begin " + std::to_string(b)); }
  void on_train_batch_end(std::int64_t b, Logs& logs) override {
    events.push_back("batch_end " + std::to_string(b) + (logs.count("loss") ? " loss" : ""));
  }
  void on_test_begin(Logs&) override { events.push_back("test_begin"); }
  void on_test_end(Logs&) override { events.push_back("test_end"); }
  void on_test_batch_begin(std::int64_t b, Logs&) override { events.push_back("test_batch_begin " + std::to_string(b)); }
  void on_test_batch_end(std::int64_t b, Logs&) override { events.push_back("test_batch_end " + std::to_string(b)); }
};

std::optional<double> optional(const json& c, const char* key) {
  return c.contains(key) ? std::optional<double>(c.at(key).get<double>()) : std::nullopt;
}

}  // namespace

TEST(CallbacksGolden, HookOrderMatchesKeras) {
  json golden = golden::load_golden("callbacks_golden.json");
  const auto& fit = golden.at("event_order").at("fit");
  auto [x, y] = test_data::blobs(fit.at("samples"));
  auto rec = std::make_shared<Recorder>();
  Model m = model();
  m.fit(x, y, {.batch_size = fit.at("batch_size"), .epochs = fit.at("epochs"), .verbose = 0,
               .callbacks = {Callback(rec)}, .validation_split = fit.at("validation_split")});
  EXPECT_EQ(rec->events, golden.at("event_order").at("events").get<std::vector<std::string>>());
}

TEST(CallbacksGolden, EarlyStoppingStopsWhereKerasStops) {
  json golden = golden::load_golden("callbacks_golden.json");
  auto [x, y] = test_data::blobs(20);
  for (const auto& c : golden.at("early_stopping")) {
    SCOPED_TRACE(c.at("config").dump());
    const auto& k = c.at("config");
    Model m = model();
    auto es = callbacks::EarlyStopping({.monitor = k.at("monitor"),
                                        .min_delta = k.value("min_delta", 0.0),
                                        .patience = k.value("patience", 0),
                                        .mode = k.value("mode", "auto"),
                                        .baseline = optional(k, "baseline"),
                                        .start_from_epoch = k.value("start_from_epoch", 0)});
    History h = m.fit(x, y, {.batch_size = 20, .epochs = 10, .verbose = 0,
                             .callbacks = {scripted(c.at("scores").get<std::vector<float>>()), es}});
    EXPECT_EQ(static_cast<int>(h.epoch.size()), c.at("epochs_run").get<int>());
  }
}

TEST(CallbacksGolden, ReduceLROnPlateauRatesMatchKeras) {
  json golden = golden::load_golden("callbacks_golden.json");
  auto [x, y] = test_data::blobs(20);
  for (const auto& c : golden.at("reduce_lr_on_plateau")) {
    SCOPED_TRACE(c.at("config").dump());
    const auto& k = c.at("config");
    auto scores = c.at("scores").get<std::vector<float>>();
    Model m = model();
    auto cb = callbacks::ReduceLROnPlateau({.monitor = k.at("monitor"),
                                            .factor = k.value("factor", 0.1),
                                            .patience = k.value("patience", 10),
                                            .mode = k.value("mode", "auto"),
                                            .min_delta = k.value("min_delta", 1e-4),
                                            .cooldown = k.value("cooldown", 0),
                                            .min_lr = k.value("min_lr", 0.0)});
    History h = m.fit(x, y, {.batch_size = 20, .epochs = static_cast<int>(scores.size()), .verbose = 0,
                             .callbacks = {scripted(scores), cb}});
    auto expected = c.at("learning_rate").get<std::vector<double>>();
    ASSERT_EQ(h.history["learning_rate"].size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_TRUE(golden::close_to_keras(h.history["learning_rate"][i], expected[i]))
          << "epoch " << i << ": " << h.history["learning_rate"][i] << " vs Keras " << expected[i];
    }
  }
}

}  // namespace callbacks_golden_test
