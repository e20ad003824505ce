// Runs a piece of work in a forked child and says how it ended (or what it said), so that
// a crash, a hang or memory exhausted by the code under test is observed and reported
// instead of taking the caller down. For the damaged-file tests and
// tests/io/damage_campaign.cc.
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
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

// Sanitizers reserve terabytes of address space for their shadow memory: no limit on it.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
inline constexpr bool kSanitized =
    __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer);
#else
inline constexpr bool kSanitized = false;
#endif

struct ChildLimits {
  unsigned seconds = 20;      // a hang shows as "killed by signal 14"
  std::size_t memory_mb = 0;  // address space beyond the parent's; 0: no limit, as under sanitizers
};

// Runs `work` in a forked child and returns what it returned, the message of the IOError
// it threw, "not an IOError: <message>" for another exception, or "killed by signal N".
// With `memory_mb`, memory the work would exhaust makes its allocations fail instead.
inline std::string io_error_in_child(const std::function<std::string()>& work, ChildLimits limits = {}) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    ::alarm(limits.seconds);
    if (limits.memory_mb > 0 && !kSanitized) {
      std::size_t pages = 0;
      std::ifstream("/proc/self/statm") >> pages;  // the address space in use now
      const rlim_t bytes = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{limits.memory_mb} << 20);
      const rlimit limit{bytes, bytes};
      ::setrlimit(RLIMIT_AS, &limit);
    }
    std::string result;
    try {
      result = work();
    } catch (const IOError& e) {
      result = e.what();
    } catch (const std::exception& e) {
      result = std::string("not an IOError: ") + e.what();
    }
    [[maybe_unused]] auto written = ::write(pipe_fds[1], result.data(), result.size());
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, n);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return out;
}

}  // namespace strata::testing
