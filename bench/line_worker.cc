// The worker process and its pipes (see line_worker.h).
#include "bench/line_worker.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <stdexcept>

namespace strata::bench {
namespace {

// A pipe's two ends, closed on destruction unless released.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe(fd) != 0) throw std::runtime_error("pipe() failed");
  }
  ~Pipe() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
  int release(int end) {
    const int f = fd[end];
    fd[end] = -1;
    return f;
  }
};

}  // namespace

std::unique_ptr<LineWorker> LineWorker::start(const LineWorkerCommand& command, std::string* why_not) {
  // A worker that dies mid-request must be an error message, not a SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  // Built before fork: the child only calls what is safe there.
  std::vector<char*> argv;
  for (const std::string& arg : command.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  Pipe to_child, from_child;
  const pid_t pid = ::fork();
  if (pid < 0) {
    *why_not = "fork failed";
    return nullptr;
  }
  if (pid == 0) {
    ::dup2(to_child.fd[0], STDIN_FILENO);
    ::dup2(from_child.fd[1], STDOUT_FILENO);
    for (int f : {to_child.fd[0], to_child.fd[1], from_child.fd[0], from_child.fd[1]}) ::close(f);
    for (const auto& [name, value] : command.environment) ::setenv(name.c_str(), value.c_str(), 1);
    ::execvp(argv[0], argv.data());
    std::_Exit(127);  // exec failed: the parent reads end-of-file
  }
  // The parent's copies of the worker's ends closed now, or a worker that never starts
  // would leave our read waiting for an end-of-file that our own write end holds off.
  ::close(to_child.release(0));
  ::close(from_child.release(1));
  std::FILE* from = ::fdopen(from_child.release(0), "r");
  auto worker = std::make_unique<LineWorker>(Key(), command.name, pid, to_child.release(1), from);
  const std::string ready = worker->read_line();
  if (ready.rfind("ready", 0) != 0) {
    std::string shown;
    for (const std::string& arg : command.argv) shown += (shown.empty() ? "" : " ") + arg;
    *why_not = ready.empty() ? shown + " did not start" : ready.substr(ready.rfind("error ", 0) == 0 ? 6 : 0);
    return nullptr;
  }
  worker->ready_ = ready.size() > 6 ? ready.substr(6) : "";
  return worker;
}

LineWorker::~LineWorker() { quit(); }

double LineWorker::quit() {
  if (to_worker_ >= 0) {
    const char quit[] = "quit\n";
    (void)!::write(to_worker_, quit, sizeof(quit) - 1);
    ::close(to_worker_);
    to_worker_ = -1;
  }
  if (from_worker_) {
    std::fclose(from_worker_);
    from_worker_ = nullptr;
  }
  if (pid_ <= 0) return 0;
  struct rusage usage {};
  ::wait4(pid_, nullptr, 0, &usage);
  pid_ = -1;
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux counts kilobytes
}

std::string LineWorker::read_line() {
  std::string line;
  for (int c; (c = std::fgetc(from_worker_)) != EOF && c != '\n';) line.push_back(static_cast<char>(c));
  return line;
}

std::string LineWorker::request(const std::string& line) {
  // Messages name the request by its first word: the rest is JSON or paths.
  const std::string shown = line.substr(0, line.find(' ')) + (line.find(' ') == std::string::npos ? "" : " ...");
  const std::string out = line + "\n";
  if (to_worker_ < 0 || ::write(to_worker_, out.data(), out.size()) != static_cast<ssize_t>(out.size())) {
    throw std::runtime_error(name_ + ": could not send '" + shown + "' (worker gone)");
  }
  const std::string reply = read_line();
  if (reply.rfind("ok", 0) != 0) {
    throw std::runtime_error(name_ + ", request '" + shown + "': " + (reply.empty() ? "no reply (worker exited)" : reply));
  }
  return reply.size() > 3 ? reply.substr(3) : "";
}

}  // namespace strata::bench
