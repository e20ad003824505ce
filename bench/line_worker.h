// A benchmark's worker process, spoken to over two pipes with one line per request and
// one per reply: the Keras worker of the suite (keras_runner.h) and the engines of the
// real-model benchmark (models.cc) are each one. The worker's first line is
// `ready <anything>` (or `error <why>` when it cannot run); each request is answered
// `ok <anything>` or `error <message>`; `quit` ends it. Any timing is the worker's own,
// so the pipe round trip is never counted as the engine's time.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace strata::bench {

struct LineWorkerCommand {
  std::string name;                // for messages: "keras worker"
  std::vector<std::string> argv;   // argv[0] is looked up on PATH
  std::vector<std::pair<std::string, std::string>> environment;  // set in the worker only
};

class LineWorker {
 public:
  // Starts the worker and waits for its ready line. Returns nullptr and sets *why_not
  // when it cannot be started or says `error ...` (the message, without the word).
  static std::unique_ptr<LineWorker> start(const LineWorkerCommand& command, std::string* why_not);
  // Only start() can make a Key, so only start() makes workers.
  class Key {
    friend class LineWorker;
    Key() = default;
  };
  LineWorker(Key, std::string name, pid_t pid, int to_worker, std::FILE* from_worker)
      : name_(std::move(name)), pid_(pid), to_worker_(to_worker), from_worker_(from_worker) {}
  ~LineWorker();  // quit(), if not done yet
  LineWorker(const LineWorker&) = delete;
  LineWorker& operator=(const LineWorker&) = delete;

  // What followed `ready ` on the worker's first line.
  const std::string& ready() const { return ready_; }
  // Sends one request and returns what followed `ok ` in its reply; throws
  // std::runtime_error on `error ...` or when the worker has gone.
  std::string request(const std::string& line);
  // Sends quit, waits for the process to end and returns its peak resident set in MB
  // over its whole life (the kernel's count, wait4's ru_maxrss); 0 when already quit.
  double quit();

 private:
  std::string read_line();

  std::string name_;
  pid_t pid_ = -1;
  int to_worker_ = -1;
  std::FILE* from_worker_ = nullptr;
  std::string ready_;
};

}  // namespace strata::bench
