// Training interrupted mid-epoch and resumed in a fresh process (BackupAndRestore and
// its checkpoint file) ends with weights bit-identical to an uninterrupted run,
// with shuffling on: a Dataset pipeline (shuffle + prefetch) and shuffled arrays, and a
// Dropout layer whose masks depend on the step.
//
// The interrupted and resumed runs are separate processes: this test binary runs itself
// with STRATA_RESUME_PHASE set, and the phases run as the test Resume.Phase.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "io/checkpoint.h"
#include "models/callbacks_backup.h"
#include "strata.h"
#include "test_data.h"

using namespace strata;
namespace fs = std::filesystem;

extern char** environ;

namespace resume_test {

namespace {

struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

Model make_model() {
  set_random_seed(42);
  auto in = Input({4});
  auto h = layers::Dropout(0.3)(layers::Dense(16, {.activation = "relu"})(in));
  Model m(in, layers::Dense(3, {.activation = "softmax"})(h));
  m.compile({.optimizer = optimizers::Adam({.learning_rate = 0.01}), .loss = "sparse_categorical_crossentropy",
             .metrics = {"accuracy"}});
  return m;
}

// Runs fit on the data kind ("dataset" or "arrays"). interrupt_at >= 0 throws after that
// many batches in total (after the backup of that batch was written).
std::vector<Tensor> train(const std::string& kind, const std::string& backup_dir, int interrupt_at,
                          int* batches_run = nullptr, std::int64_t* iterations = nullptr, int epochs = 4) {
  Model m = make_model();
  auto [x, y] = test_data::blobs(90);
  int batches = 0;
  auto interrupter = callbacks::LambdaCallback({.on_train_batch_end = [&](std::int64_t, Logs&) {
    if (++batches == interrupt_at) throw Interrupted();
  }});
  std::vector<Callback> cbs;
  if (!backup_dir.empty()) cbs.push_back(callbacks::BackupAndRestore(backup_dir, {.save_freq = std::int64_t{1}}));
  cbs.push_back(interrupter);
  if (kind == "dataset") {
    Dataset data = Dataset::from_tensors(x, y).shuffle(32, 5).batch(8).prefetch(2);
    m.fit(data, {.epochs = epochs, .verbose = 0, .callbacks = cbs});
  } else {
    m.fit(x, y, {.batch_size = 8, .epochs = epochs, .verbose = 0, .callbacks = cbs, .shuffle = true});
  }
  if (batches_run) *batches_run = batches;
  if (iterations) *iterations = m.optimizer().iterations();
  return m.get_weights();
}

void expect_bit_identical(const std::vector<Tensor>& got, const std::vector<Tensor>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i].nbytes(), want[i].nbytes());
    EXPECT_EQ(std::memcmp(got[i].raw_data(), want[i].raw_data(), got[i].nbytes()), 0) << "weight " << i;
  }
}

std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }

// 700 epochs, 8,400 batches with a backup after each: longer than 20 kills of at most
// 250 ms of training each. The AddressSanitizer run (scripts/asan.sh), where a batch takes
// about five times as long, sets fewer through STRATA_RESUME_EPOCHS (the child and the
// uninterrupted run read the same): the kills still land in training, and the two
// trainings no longer take 160 s of its suite.
const int kLongEpochs = [] {
  const char* epochs = std::getenv("STRATA_RESUME_EPOCHS");
  if (!epochs) return 700;
  char* end = nullptr;
  const long value = std::strtol(epochs, &end, 10);
  if (end == epochs || *end != '\0' || value < 1 || value > 100000) {
    std::fprintf(stderr, "STRATA_RESUME_EPOCHS='%s' is not an epoch count; the resume tests use 700\n", epochs);
    return 700;
  }
  return static_cast<int>(value);
}();

// Starts this binary's Resume.Phase in a child process (output to DIR/PHASE.log).
pid_t spawn_phase(const std::string& phase, const std::string& kind, const fs::path& dir) {
  std::vector<std::string> env{"STRATA_RESUME_PHASE=" + phase, "STRATA_RESUME_KIND=" + kind,
                               "STRATA_RESUME_DIR=" + dir.string()};
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  std::vector<char*> envp;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string exe = self_exe(), filter = "--gtest_filter=Resume.Phase";
  char* argv[] = {exe.data(), filter.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = (dir / (phase + ".log")).string();
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

int run_phase(const std::string& phase, const std::string& kind, const fs::path& dir) {
  std::string cmd = "STRATA_RESUME_PHASE=" + phase + " STRATA_RESUME_KIND=" + kind + " STRATA_RESUME_DIR=" +
                    dir.string() + " " + self_exe() + " --gtest_filter=Resume.Phase > " + (dir / (phase + ".log")).string() +
                    " 2>&1";
  return std::system(cmd.c_str());
}

}  // namespace

// A phase of the cross-process test (does nothing unless STRATA_RESUME_PHASE is set).
TEST(Resume, Phase) {
  const char* phase = std::getenv("STRATA_RESUME_PHASE");
  if (!phase) GTEST_SKIP() << "run by Resume.* in a child process";
  std::string kind = std::getenv("STRATA_RESUME_KIND");
  fs::path dir = std::getenv("STRATA_RESUME_DIR");
  if (std::string(phase) == "long") {  // killed at random points by KilledAtRandomPoints...
    auto weights = train(kind, (dir / "backup").string(), -1, nullptr, nullptr, kLongEpochs);
    Model m = make_model();
    m.set_weights(weights);
    m.save_weights((dir / "resumed.weights.h5").string());
  } else if (std::string(phase) == "interrupt") {
    // 45 batches in all (12 per epoch): stop in the middle of epoch 2.
    EXPECT_THROW(train(kind, (dir / "backup").string(), 17), Interrupted);
    EXPECT_TRUE(fs::exists(dir / "backup" / "training_state.strata"));
  } else {
    int batches = 0;
    std::int64_t iterations = 0;
    auto weights = train(kind, (dir / "backup").string(), -1, &batches, &iterations);
    // 4 epochs of 12 batches: the fresh process trains only the 31 after the backup, and
    // the restored optimizer counts all 48.
    EXPECT_EQ(batches, 48 - 17);
    EXPECT_EQ(iterations, 48);
    Model m = make_model();
    m.set_weights(weights);
    m.save_weights((dir / "resumed.weights.h5").string());
    EXPECT_FALSE(fs::exists(dir / "backup" / "training_state.strata"));  // deleted at the end
  }
}

class ResumeKinds : public ::testing::TestWithParam<std::string> {};

TEST_P(ResumeKinds, InterruptedAndResumedInAFreshProcessMatchesBitForBit) {
  const std::string kind = GetParam();
  fs::path dir = fs::temp_directory_path() / ("strata_resume_" + kind + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  ASSERT_EQ(run_phase("interrupt", kind, dir), 0) << "see " << (dir / "interrupt.log");
  ASSERT_EQ(run_phase("resume", kind, dir), 0) << "see " << (dir / "resume.log");
  auto uninterrupted = train(kind, "", -1);
  Model resumed = make_model();
  resumed.load_weights((dir / "resumed.weights.h5").string());
  expect_bit_identical(resumed.get_weights(), uninterrupted);
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Resume, ResumeKinds, ::testing::Values("dataset", "arrays"));

// kill -9 at 20 random points of a long fit (mid-batch, mid-backup, mid-anything), each
// time resuming in a fresh process from whatever backup survived: the final weights are
// bit-identical to an uninterrupted run's. The backup is written atomically, so a kill
// leaves the previous one or the next one, never a torn file.
TEST(Resume, KilledAtRandomPointsTwentyTimesResumesBitForBit) {
  fs::path dir = fs::temp_directory_path() / ("strata_kill_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::mt19937 rng(2026);  // the same kill points each run
  std::uniform_int_distribution<int> delay_ms(30, 250);
  // Kill points count from when a child is training, not from its start: a process
  // starts in milliseconds here but in far longer under a sanitizer. The first child
  // shows how long starting takes (until its first backup appears); every kill waits
  // that long plus its random delay.
  std::chrono::milliseconds startup{0};
  int kills = 0;
  for (; kills < 20; ++kills) {
    const auto spawned = std::chrono::steady_clock::now();
    const pid_t pid = spawn_phase("long", "arrays", dir);
    ASSERT_GT(pid, 0) << "cannot start a child process";
    if (kills == 0) {
      const fs::path backup = dir / "backup" / "training_state.strata";
      while (!fs::exists(backup) && std::chrono::steady_clock::now() - spawned < std::chrono::minutes(2))
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      startup = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - spawned);
    }
    std::this_thread::sleep_until(spawned + startup + std::chrono::milliseconds(delay_ms(rng)));
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      FAIL() << "the child finished training before kill " << kills + 1
             << "; raise kLongEpochs, or STRATA_RESUME_EPOCHS where it is set (" << kLongEpochs << " now; see "
             << (dir / "long.log") << ")";
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  }
  EXPECT_FALSE(fs::exists(dir / "resumed.weights.h5"));
  ASSERT_TRUE(fs::exists(dir / "backup" / "training_state.strata")) << "no kill landed during training";
  const pid_t last = spawn_phase("long", "arrays", dir);
  ASSERT_GT(last, 0);
  int status = 0;
  ::waitpid(last, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "see " << (dir / "long.log");

  auto uninterrupted = train("arrays", "", -1, nullptr, nullptr, kLongEpochs);
  Model resumed = make_model();
  resumed.load_weights((dir / "resumed.weights.h5").string());
  expect_bit_identical(resumed.get_weights(), uninterrupted);
  fs::remove_all(dir);
}

TEST(Resume, CheckpointOfAnotherModelNamesTheFirstMismatchingWeight) {
  fs::path file = fs::temp_directory_path() / ("strata_state_" + std::to_string(::getpid()));
  Model a = make_model();
  auto [x, y] = test_data::blobs(16);
  a.fit(x, y, {.batch_size = 8, .epochs = 1, .verbose = 0});
  io::save_checkpoint(file.string(), a, io::checkpoint_state(a.model().fit_state));
  set_random_seed(1);
  auto in = Input({4});
  Model b(in, layers::Dense(3, {.activation = "softmax"})(layers::Dense(8, {.activation = "relu"})(in)));
  b.compile({.optimizer = "adam", .loss = "sparse_categorical_crossentropy"});
  auto before = b.get_weights();
  try {
    io::load_checkpoint(file.string(), b);
    FAIL() << "expected a mismatch";
  } catch (const ValueError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("first mismatching model weight is 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(4, 16)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("(4, 8)"), std::string::npos) << msg;
  }
  auto after = b.get_weights();
  EXPECT_EQ(std::memcmp(before[0].raw_data(), after[0].raw_data(), before[0].nbytes()), 0);  // nothing assigned
  fs::remove(file);
}

}  // namespace resume_test
