// One way to save safely: every writer goes through SafeFile, so a save that fails — in
// the writer, on a full disk or a file-size limit — leaves the previous file intact and
// no temporary behind.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <algorithm>
#include <functional>

#include "core/error.h"
#include "io/npy.h"
#include "io/safe_file.h"
#include "strata.h"
#include "test_util.h"

using namespace strata;
using strata::testing::ScratchDir;

namespace safe_file_test {

namespace {

// Runs `save` in a child process whose files may not exceed `limit` bytes (as on a full
// disk, writes fail with EFBIG). Returns the child's exit status: 0 when `save` threw
// strata::Error, 1 when it returned normally, 2 on any other exception, else a signal.
int save_under_file_size_limit(rlim_t limit, const std::function<void()>& save) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::signal(SIGXFSZ, SIG_IGN);  // a write past the limit fails instead of killing
    rlimit r{limit, limit};
    ::setrlimit(RLIMIT_FSIZE, &r);
    int code = 1;
    try {
      save();
    } catch (const Error&) {
      code = 0;
    } catch (...) {
      code = 2;
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

Model small_model() {
  auto in = Input({64});
  auto out = layers::Dense(256)(layers::Dense(256)(in));
  return Model(in, out);
}

}  // namespace

TEST(SafeFile, CommitReplacesTheTargetAndLeavesNoTemporary) {
  ScratchDir dir;
  const std::string path = dir.file("out.bin");
  strata::testing::write_bytes(path, "old");
  {
    io::SafeFile out(path);
    strata::testing::write_bytes(out.temp_path(), "new");
    EXPECT_EQ(strata::testing::read_bytes(path), "old") << "the target changes only at commit";
    out.commit();
  }
  EXPECT_EQ(strata::testing::read_bytes(path), "new");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.bin"});
}

TEST(SafeFile, AWriterThatThrowsLeavesThePreviousFileAndNoTemporary) {
  ScratchDir dir;
  const std::string path = dir.file("out.bin");
  strata::testing::write_bytes(path, "old");
  try {
    io::SafeFile out(path);
    strata::testing::write_bytes(out.temp_path(), "half");
    throw IOError("the writer failed");
  } catch (const IOError&) {
  }
  EXPECT_EQ(strata::testing::read_bytes(path), "old");
  EXPECT_EQ(dir.entries(), std::vector<std::string>{"out.bin"});
}

TEST(SafeFile, ACommitThatCannotRenameNamesTheTarget) {
  ScratchDir dir;
  const std::string path = dir.file("missing_folder/out.bin");
  io::SafeFile out(path);
  try {
    out.commit();
    ADD_FAILURE() << "committed a temporary file that was never written";
  } catch (const IOError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

// A full disk, simulated by a file-size limit: every saver fails with an Error, the
// previous file is intact and no temporary is left.
TEST(SafeFile, SavingOntoAFullDiskFailsClearlyAndKeepsThePreviousFile) {
  ScratchDir dir;
  Model model = small_model();  // about 330 KB of weights
  struct Case {
    std::string name;
    std::function<void(const std::string&)> save;
  };
  const std::vector<Case> cases = {
      {"model.h5", [&](const std::string& p) { model.save(p); }},
      {"model.keras", [&](const std::string& p) { model.save(p); }},
      {"model.weights.h5", [&](const std::string& p) { model.save_weights(p); }},
      {"legacy_weights.h5", [&](const std::string& p) { model.save_weights(p); }},
      {"array.npy", [&](const std::string& p) { io::save_npy(p, Tensor(Shape{256, 256})); }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = dir.file(c.name);
    c.save(path);  // a good file first
    const std::string before = strata::testing::read_bytes(path);
    ASSERT_GT(before.size(), 64u * 1024);
    EXPECT_EQ(save_under_file_size_limit(64 * 1024, [&] { c.save(path); }), 0)
        << "0: an Error; 1: no error although the file cannot fit; 2: another exception; >100: a signal";
    EXPECT_EQ(strata::testing::read_bytes(path), before) << "the previous file changed";
  }
  std::vector<std::string> expected;
  for (const auto& c : cases) expected.push_back(c.name);
  auto entries = dir.entries();
  std::sort(entries.begin(), entries.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(entries, expected) << "temporary files were left behind";
}

}  // namespace safe_file_test
