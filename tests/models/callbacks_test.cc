// Callbacks: Keras's hook order, stop_training, and the built-in callbacks
// (keras-spec §1.8).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/callbacks.h"
#include "models/callbacks_logging.h"
#include "models/callbacks_monitor.h"
#include "strata.h"
#include "test_data.h"

using namespace strata;

namespace callbacks_test {

namespace fs = std::filesystem;

namespace {

Model classifier(optimizers::Optimizer opt = optimizers::Adam()) {
  auto in = Input({4});
  auto out = layers::Dense(3, {.activation = "softmax"})(layers::Dense(8, {.activation = "relu"})(in));
  Model m(in, out);
  m.compile({.optimizer = opt, .loss = "sparse_categorical_crossentropy", .metrics = {"accuracy"}});
  return m;
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
  void on_predict_begin(Logs&) override { events.push_back("predict_begin"); }
  void on_predict_end(Logs&) override { events.push_back("predict_end"); }
  void on_predict_batch_begin(std::int64_t b, Logs&) override { events.push_back("predict_batch_begin"); }
  void on_predict_batch_end(std::int64_t b, Logs&) override { events.push_back("predict_batch_end"); }
};

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("strata_callbacks_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A callback that puts a scripted value under `key` at each epoch end.
Callback scripted(const std::string& key, std::vector<float> values) {
  return callbacks::LambdaCallback(
      {.on_epoch_end = [key, values](int e, Logs& logs) { logs[key] = values.at(static_cast<std::size_t>(e)); }});
}

}  // namespace

TEST(Callbacks, HooksRunInKerasOrder) {
  set_random_seed(1);
  Model m = classifier();
  auto [x, y] = test_data::blobs(20);
  auto rec = std::make_shared<Recorder>();
  m.fit(x, y, {.batch_size = 8, .epochs = 2, .verbose = 0, .callbacks = {Callback(rec)}, .validation_split = 0.2});
  std::vector<std::string> expected = {"train_begin"};
  for (int e = 0; e < 2; ++e) {
    expected.push_back("epoch_begin " + std::to_string(e));
    for (int b = 0; b < 2; ++b) {
      expected.push_back("batch_begin " + std::to_string(b));
      expected.push_back("batch_end " + std::to_string(b) + " loss");
    }
    expected.insert(expected.end(), {"test_begin", "test_batch_begin 0", "test_batch_end 0", "test_end"});
    expected.push_back("epoch_end " + std::to_string(e) + " val");
  }
  expected.push_back("train_end");
  EXPECT_EQ(rec->events, expected);

  rec->events.clear();
  m.evaluate(x, y, {.batch_size = 20, .verbose = 0, .callbacks = {Callback(rec)}});
  EXPECT_EQ(rec->events, (std::vector<std::string>{"test_begin", "test_batch_begin 0", "test_batch_end 0", "test_end"}));
  rec->events.clear();
  m.predict(x, {.batch_size = 20, .callbacks = {Callback(rec)}});
  EXPECT_EQ(rec->events,
            (std::vector<std::string>{"predict_begin", "predict_batch_begin", "predict_batch_end", "predict_end"}));
}

TEST(Callbacks, StopTrainingEndsFitAfterTheBatchAndEndsTheEpoch) {
  Model m = classifier();
  auto [x, y] = test_data::blobs(40);
  auto rec = std::make_shared<Recorder>();
  auto stopper = callbacks::LambdaCallback({.on_train_batch_end = [&m](std::int64_t b, Logs&) {
    if (b == 1) m.set_stop_training(true);
  }});
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 5, .verbose = 0, .callbacks = {stopper, Callback(rec)}});
  EXPECT_EQ(h.epoch, std::vector<int>{0});
  EXPECT_EQ(m.optimizer().iterations(), 2);
  EXPECT_EQ(rec->events.back(), "train_end");
  EXPECT_EQ(rec->events[rec->events.size() - 2], "epoch_end 0");
}

TEST(EarlyStopping, StopsAfterPatienceWithoutImprovement) {
  Model m = classifier(optimizers::SGD({.learning_rate = 0.0}));  // the loss never changes
  auto [x, y] = test_data::blobs(30);
  // Unshuffled, so that the epoch's mean loss is summed in the same order every epoch.
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 10, .verbose = 0,
                           .callbacks = {callbacks::EarlyStopping({.monitor = "loss", .patience = 2})},
                           .shuffle = false});
  EXPECT_EQ(h.epoch, (std::vector<int>{0, 1, 2}));
}

TEST(EarlyStopping, ModeMaxMinDeltaBaselineAndStartFromEpoch) {
  Model m = classifier();
  auto [x, y] = test_data::blobs(30);
  // mode max: 0.5 -> 0.6 improves, 0.6 -> 0.605 is within min_delta 0.01.
  History h = m.fit(x, y, {.batch_size = 30, .epochs = 10, .verbose = 0,
                           .callbacks = {scripted("score", {0.5f, 0.6f, 0.605f, 0.7f, 0.71f, 0.72f, 0.73f, 0.74f, 0.75f,
                                                            0.76f}),
                                         callbacks::EarlyStopping(
                                             {.monitor = "score", .min_delta = 0.01, .patience = 1, .mode = "max"})}});
  EXPECT_EQ(h.epoch.size(), 3u);
  // A baseline never beaten: wait is never reset, so training stops at patience.
  h = m.fit(x, y, {.batch_size = 30, .epochs = 10, .verbose = 0,
                   .callbacks = {scripted("score", {5, 5, 5, 5, 5, 5, 5, 5, 5, 5}),
                                 callbacks::EarlyStopping(
                                     {.monitor = "score", .patience = 3, .mode = "min", .baseline = 0.5})}});
  EXPECT_EQ(h.epoch.size(), 3u);
  // start_from_epoch: the first epochs are not counted.
  h = m.fit(x, y, {.batch_size = 30, .epochs = 10, .verbose = 0,
                   .callbacks = {scripted("score", {1, 1, 1, 1, 1, 1, 1, 1, 1, 1}),
                                 callbacks::EarlyStopping({.monitor = "score", .start_from_epoch = 4})}});
  EXPECT_EQ(h.epoch.size(), 6u);
}

TEST(EarlyStopping, RestoresTheBestEpochsWeights) {
  set_random_seed(2);
  Model m = classifier(optimizers::SGD({.learning_rate = 0.1}));
  auto [x, y] = test_data::blobs(30);
  std::vector<std::vector<Tensor>> weights_at_epoch_end;
  auto snapshot = callbacks::LambdaCallback(
      {.on_epoch_end = [&](int, Logs&) { weights_at_epoch_end.push_back(m.get_weights()); }});
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 10, .verbose = 0,
                           .callbacks = {scripted("score", {3, 1, 2, 2, 2, 2, 2, 2, 2, 2}), snapshot,
                                         callbacks::EarlyStopping({.monitor = "score", .patience = 2,
                                                                   .restore_best_weights = true})}});
  ASSERT_EQ(h.epoch.size(), 4u);
  auto now = m.get_weights();
  for (std::size_t i = 0; i < now.size(); ++i) {
    for (std::int64_t j = 0; j < now[i].size(); ++j) ASSERT_EQ(now[i].item(j), weights_at_epoch_end[1][i].item(j));
  }
}

TEST(EarlyStopping, MissingMonitorKeyWarnsAndTrainingContinues) {
  Model m = classifier();
  auto [x, y] = test_data::blobs(30);
  ::testing::internal::CaptureStderr();
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 3, .verbose = 0,
                           .callbacks = {callbacks::EarlyStopping({.monitor = "val_nope"})}});
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(h.epoch.size(), 3u);
  EXPECT_NE(err.find("Early stopping conditioned on metric `val_nope` which is not available"), std::string::npos)
      << err;
  EXPECT_NE(err.find("accuracy,loss"), std::string::npos) << err;
}

TEST(ReduceLROnPlateau, ReducesAfterPatienceThenCoolsDown) {
  Model m = classifier(optimizers::SGD({.learning_rate = 0.1}));
  auto [x, y] = test_data::blobs(30);
  History h = m.fit(x, y, {.batch_size = 30, .epochs = 7, .verbose = 0,
                           .callbacks = {scripted("score", {1, 1, 1, 1, 1, 1, 1}),
                                         callbacks::ReduceLROnPlateau({.monitor = "score", .factor = 0.5,
                                                                       .patience = 2, .cooldown = 1,
                                                                       .min_lr = 0.02})}});
  // Epoch 0 sets the best; waits at 1, 2 -> reduce at 2 (cooldown 1); the cooldown ends
  // at 3, which counts again, so 3, 4 -> reduce at 4; 5, 6 -> reduce at 6, floored at
  // min_lr. The logged rate is the one the epoch trained with.
  std::vector<float> expected = {0.1f, 0.1f, 0.1f, 0.05f, 0.05f, 0.025f, 0.025f};
  ASSERT_EQ(h.history["learning_rate"].size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(h.history["learning_rate"][i], expected[i], 1e-7);
  EXPECT_NEAR(m.optimizer().learning_rate(), 0.02f, 1e-7);
}

TEST(LearningRateScheduler, SetsTheRateVariableEachEpoch) {
  Model m = classifier(optimizers::SGD({.learning_rate = 0.1}));
  auto [x, y] = test_data::blobs(30);
  auto sched = callbacks::LearningRateScheduler([](int epoch, double lr) { return epoch == 0 ? lr : lr * 0.5; });
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 3, .verbose = 0, .callbacks = {sched}});
  EXPECT_NEAR(h.history["learning_rate"][0], 0.1f, 1e-8);
  EXPECT_NEAR(h.history["learning_rate"][2], 0.025f, 1e-8);
  EXPECT_NEAR(m.optimizer().learning_rate(), 0.025f, 1e-8);
}

TEST(TerminateOnNaN, StopsAtTheFirstNonFiniteLoss) {
  Model m = classifier();
  auto [x, y] = test_data::blobs(50);
  auto poison = callbacks::LambdaCallback({.on_train_batch_end = [](std::int64_t b, Logs& logs) {
    if (b == 2) logs["loss"] = std::nanf("");
  }});
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 4, .verbose = 0,
                           .callbacks = {poison, callbacks::TerminateOnNaN()}});
  EXPECT_EQ(h.epoch.size(), 1u);
  EXPECT_EQ(m.optimizer().iterations(), 3);
  EXPECT_THROW(m.fit(x, y, {.batch_size = 10, .epochs = 1, .verbose = 0,
                            .callbacks = {poison, callbacks::TerminateOnNaN({.raise_error = true})}}),
               ValueError);
}

TEST(TimeLimit, StopsWhenTheWallClockBudgetIsSpent) {
  Model m = classifier();
  auto [x, y] = test_data::blobs(50);
  History h = m.fit(x, y, {.batch_size = 10, .epochs = 100, .verbose = 0, .callbacks = {callbacks::TimeLimit(1e-9)}});
  EXPECT_EQ(h.epoch.size(), 1u);
  EXPECT_EQ(m.optimizer().iterations(), 1);
}

TEST(ModelCheckpoint, FormatsFileNamesLikePython) {
  Logs logs = {{"val_loss", 0.12345f}, {"accuracy", 0.5f}};
  EXPECT_EQ(callbacks::format_checkpoint_path("ckpt-{epoch:02d}-{val_loss:.2f}.weights.h5", 3, logs),
            "ckpt-03-0.12.weights.h5");
  EXPECT_EQ(callbacks::format_checkpoint_path("w{epoch}.weights.h5", 12, logs), "w12.weights.h5");
  EXPECT_THROW(callbacks::format_checkpoint_path("{nope:.2f}.weights.h5", 1, logs), ValueError);
}

TEST(ModelCheckpoint, SavesWeightsEveryEpochOrOnlyTheBest) {
  fs::path dir = temp_dir("ckpt");
  set_random_seed(4);
  Model m = classifier();
  auto [x, y] = test_data::blobs(30);
  std::string pattern = (dir / "ckpt-{epoch:02d}-{score:.2f}.weights.h5").string();
  m.fit(x, y, {.batch_size = 10, .epochs = 3, .verbose = 0,
               .callbacks = {scripted("score", {0.5f, 0.25f, 0.75f}),
                             callbacks::ModelCheckpoint(pattern, {.save_weights_only = true})}});
  EXPECT_TRUE(fs::exists(dir / "ckpt-01-0.50.weights.h5"));
  EXPECT_TRUE(fs::exists(dir / "ckpt-02-0.25.weights.h5"));
  EXPECT_TRUE(fs::exists(dir / "ckpt-03-0.75.weights.h5"));

  fs::path best = dir / "best.weights.h5";
  std::vector<Tensor> weights_epoch_2;
  auto snapshot = callbacks::LambdaCallback({.on_epoch_end = [&](int e, Logs&) {
    if (e == 1) weights_epoch_2 = m.get_weights();
  }});
  m.fit(x, y, {.batch_size = 10, .epochs = 3, .verbose = 0,
               .callbacks = {scripted("score", {0.5f, 0.25f, 0.75f}), snapshot,
                             callbacks::ModelCheckpoint(best.string(), {.monitor = "score", .save_best_only = true,
                                                                        .save_weights_only = true})}});
  Model fresh = classifier();
  fresh.load_weights(best.string());
  auto loaded = fresh.get_weights();
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    for (std::int64_t j = 0; j < loaded[i].size(); ++j) ASSERT_EQ(loaded[i].item(j), weights_epoch_2[i].item(j));
  }
  EXPECT_THROW(callbacks::ModelCheckpoint((dir / "m.txt").string(), {.save_weights_only = true}), ValueError);
  EXPECT_THROW(callbacks::ModelCheckpoint((dir / "m.txt").string()), ValueError);
  fs::remove_all(dir);
}

TEST(ModelCheckpoint, SavesFullModelsThatLoadAndPredictTheSame) {
  fs::path dir = temp_dir("ckpt_full");
  set_random_seed(5);
  Model m = classifier();
  auto [x, y] = test_data::blobs(30);
  for (const char* ext : {".keras", ".h5"}) {
    std::string pattern = (dir / (std::string("model-{epoch:02d}") + ext)).string();
    m.fit(x, y, {.batch_size = 10, .epochs = 2, .verbose = 0, .callbacks = {callbacks::ModelCheckpoint(pattern)}});
    fs::path last = dir / (std::string("model-02") + ext);
    ASSERT_TRUE(fs::exists(dir / (std::string("model-01") + ext))) << ext;
    ASSERT_TRUE(fs::exists(last)) << ext;
    Model loaded = models::load_model(last.string());
    Tensor a = m.predict(x, {.verbose = 0}), b = loaded.predict(x, {.verbose = 0});
    for (std::int64_t i = 0; i < a.size(); ++i) ASSERT_EQ(a.item(i), b.item(i)) << ext << " element " << i;
  }
  fs::remove_all(dir);
}

TEST(CSVLogger, WritesKerasHeaderAndRowsAndAppends) {
  fs::path dir = temp_dir("csv");
  fs::path file = dir / "log.csv";
  Model m = classifier();
  auto [x, y] = test_data::blobs(30);
  m.fit(x, y, {.batch_size = 10, .epochs = 2, .verbose = 0, .callbacks = {callbacks::CSVLogger(file.string())}});
  std::string text = read_text(file);
  std::istringstream lines(text);
  std::string header, row;
  std::getline(lines, header);
  // No validation on the first epoch: Keras adds the val_ columns, filled with NA.
  EXPECT_EQ(header, "epoch,accuracy,loss,val_accuracy,val_loss");
  std::getline(lines, row);
  EXPECT_EQ(row.rfind("0,", 0), 0u) << row;
  EXPECT_NE(row.find(",NA,NA"), std::string::npos) << row;
  m.fit(x, y, {.batch_size = 10, .epochs = 1, .verbose = 0,
               .callbacks = {callbacks::CSVLogger(file.string(), {.append = true})}});
  text = read_text(file);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 4);
  EXPECT_EQ(text.find("epoch", 1), std::string::npos);  // one header only
  fs::remove_all(dir);
}

namespace {

// Reads TFRecords back, checking both CRCs; returns the records' payloads.
std::vector<std::string> read_records(const fs::path& file) {
  std::string bytes = read_text(file);
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::uint64_t len;
    std::uint32_t len_crc, data_crc;
    std::memcpy(&len, bytes.data() + pos, 8);
    std::memcpy(&len_crc, bytes.data() + pos + 8, 4);
    EXPECT_EQ(len_crc, callbacks::masked_crc32c(bytes.data() + pos, 8));
    std::string data = bytes.substr(pos + 12, len);
    std::memcpy(&data_crc, bytes.data() + pos + 12 + len, 4);
    EXPECT_EQ(data_crc, callbacks::masked_crc32c(data.data(), data.size()));
    out.push_back(data);
    pos += 12 + len + 4;
  }
  return out;
}

fs::path only_event_file(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path());
  EXPECT_EQ(files.size(), 1u);
  EXPECT_NE(files.at(0).filename().string().find("events.out.tfevents."), std::string::npos);
  return files.at(0);
}

}  // namespace

TEST(TensorBoard, Crc32cMatchesTheStandardCheckValue) {
  EXPECT_EQ(callbacks::crc32c("123456789", 9), 0xE3069283u);
}

// Writes log_dir/train and log_dir/validation event files. To check them with the real
// TensorBoard reader, keep them with STRATA_TENSORBOARD_DIR=/tmp/strata_tb and run
// tests/reference/read_tensorboard_events.py /tmp/strata_tb (see that file).
TEST(TensorBoard, WritesScalarEventFilesForTrainAndValidation) {
  const char* keep = std::getenv("STRATA_TENSORBOARD_DIR");
  fs::path dir = keep ? fs::path(keep) : temp_dir("tb");
  fs::remove_all(dir);
  set_random_seed(5);
  Model m = classifier();
  auto [x, y] = test_data::blobs(40);
  m.fit(x, y, {.batch_size = 10, .epochs = 3, .verbose = 0,
               .callbacks = {callbacks::TensorBoard({.log_dir = dir.string(), .update_freq = std::int64_t{2}})},
               .validation_split = 0.25});
  auto train = read_records(only_event_file(dir / "train"));
  auto val = read_records(only_event_file(dir / "validation"));
  ASSERT_FALSE(train.empty());
  EXPECT_NE(train[0].find("brain.Event:2"), std::string::npos);
  auto count = [](const std::vector<std::string>& records, const std::string& tag) {
    int n = 0;
    for (const auto& r : records) n += r.find(tag) != std::string::npos;
    return n;
  };
  EXPECT_EQ(count(train, "epoch_loss"), 3);
  EXPECT_EQ(count(train, "epoch_accuracy"), 3);
  EXPECT_EQ(count(train, "epoch_learning_rate"), 3);
  EXPECT_EQ(count(train, "batch_loss"), 4);  // 3 batches an epoch, every 2nd of 9
  EXPECT_EQ(count(val, "epoch_loss"), 3);
  EXPECT_EQ(count(val, "val_"), 0);
  if (!keep) fs::remove_all(dir);
}

TEST(Callbacks, OnBatchHooksAreTheTrainBatchHooksByDefault) {
  struct Counter : CallbackImpl {
    int begins = 0, ends = 0;
    void on_batch_begin(std::int64_t, Logs&) override { ++begins; }
    void on_batch_end(std::int64_t, Logs&) override { ++ends; }
  };
  auto counter = std::make_shared<Counter>();
  Model m = classifier();
  auto [x, y] = test_data::blobs(30);
  m.fit(x, y, {.batch_size = 10, .epochs = 2, .verbose = 0, .callbacks = {Callback(counter)}});
  EXPECT_EQ(counter->begins, 6);
  EXPECT_EQ(counter->ends, 6);
}

TEST(Callbacks, StreamingMetricsResetEveryEpochInFit) {
  // With a zero learning rate every epoch sees the same model: each epoch's metrics must
  // equal one evaluate over the same data (they would grow if not reset).
  set_random_seed(8);
  auto in = Input({4});
  Model m(in, layers::Dense(1, {.activation = "sigmoid"})(in));
  m.compile({.optimizer = optimizers::SGD({.learning_rate = 0.0}), .loss = "binary_crossentropy",
             .metrics = {"auc", "precision", "recall", "accuracy"}});
  auto [x, labels] = test_data::blobs(60);
  Tensor y(Shape{60});
  for (int i = 0; i < 60; ++i) y.data<float>()[i] = labels.data<std::int64_t>()[i] == 0 ? 1.f : 0.f;
  History h = m.fit(x, y, {.batch_size = 16, .epochs = 3, .verbose = 0});
  auto scores = m.evaluate(x, y, {.batch_size = 16, .verbose = 0});
  for (const char* key : {"auc", "precision", "recall", "accuracy"}) {
    ASSERT_EQ(h.history[key].size(), 3u) << key;
    for (float v : h.history[key]) EXPECT_NEAR(v, scores.at(key), 1e-6) << key;
  }
}

}  // namespace callbacks_test
