// Runs a piece of work in a forked child and says how it ended, so that a crash or a hang
// of the code under test is observed and reported instead of taking the caller down. For
// the damaged-file tests and tests/io/damage_campaign.cc.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "core/error.h"

namespace strata::testing {

// How the work ended. kFinished and kStrataError are the two clean endings.
inline const std::string kFinished = "finished";
inline const std::string kStrataError = "strata::Error";

// Runs `work` in a child killed after `seconds` (a hang shows as "killed by signal 14"):
// kFinished, kStrataError, "another exception", or "killed by signal N".
inline std::string run_in_child(const std::function<void()>& work, unsigned seconds = 60) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::alarm(seconds);
    int code = 0;
    try {
      work();
    } catch (const Error&) {
      code = 1;
    } catch (...) {
      code = 2;
    }
    ::_exit(code);
  }
  if (pid < 0) return "cannot fork";
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  switch (WEXITSTATUS(status)) {
    case 0: return kFinished;
    case 1: return kStrataError;
    default: return "another exception";
  }
}

}  // namespace strata::testing
