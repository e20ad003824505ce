// The Keras worker process and the Runner that speaks to it (see keras_runner.h).
#include "bench/keras_runner.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
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

class KerasRunner : public Runner {
 public:
  KerasRunner(KerasWorker& worker, const Workload& w) : worker_(worker) {
    worker_.request("setup " + w.name + " " + w.to_json());
  }

  float train_epoch() override { return timed_train_epoch().value; }
  float predict_epoch() override { return timed_predict_epoch().value; }
  float predict_one(std::int64_t) override { return worker_.request("predict_one 1").value; }

  Timed timed_train_epoch() override { return timed("train"); }
  Timed timed_predict_epoch() override { return timed("predict"); }
  double predict_one_median_us(int calls) override {
    const KerasWorker::Reply r = worker_.request("predict_one " + std::to_string(calls));
    path_ = r.note;
    return r.seconds * 1e6;
  }
  std::string note() const override { return path_.empty() ? "" : "batch-1 via " + path_; }

 private:
  Timed timed(const std::string& request) {
    const KerasWorker::Reply r = worker_.request(request);
    return {r.seconds, r.value};
  }

  KerasWorker& worker_;
  std::string path_;
};

}  // namespace

std::unique_ptr<KerasWorker> KerasWorker::start(const KerasWorkerOptions& options, std::string* why_not) {
  // A worker that dies mid-request must be an error message, not a SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
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
    ::setenv("TF_CPP_MIN_LOG_LEVEL", "2", 1);
    ::setenv("KERAS_BACKEND", "tensorflow", 1);
    ::setenv("CUDA_VISIBLE_DEVICES", "", 1);  // TensorFlow's CPU path, even where a GPU exists
    const std::string threads = std::to_string(options.threads);
    const std::string inter = std::to_string(options.inter_op_threads);
    ::execlp(options.python.c_str(), options.python.c_str(), options.script.c_str(), threads.c_str(), inter.c_str(),
             static_cast<char*>(nullptr));
    std::_Exit(127);  // exec failed: the parent reads end-of-file
  }
  // The parent's copies of the worker's ends closed now, or a worker that never starts
  // would leave our read waiting for an end-of-file that our own write end holds off.
  ::close(to_child.release(0));
  ::close(from_child.release(1));
  std::FILE* from = ::fdopen(from_child.release(0), "r");
  auto worker = std::make_unique<KerasWorker>(Key(), pid, to_child.release(1), from);
  const std::string ready = worker->read_line();
  if (ready.rfind("ready ", 0) != 0) {
    *why_not = ready.empty() ? options.python + " " + options.script + " did not start"
                             : ready.substr(ready.rfind("error ", 0) == 0 ? 6 : 0);
    return nullptr;
  }
  std::istringstream words(ready.substr(6));
  std::string tf, keras;
  words >> tf >> keras;
  worker->versions_ = "TensorFlow " + tf + ", Keras " + keras;
  return worker;
}

KerasWorker::~KerasWorker() {
  if (to_worker_ >= 0) {
    const char quit[] = "quit\n";
    (void)!::write(to_worker_, quit, sizeof(quit) - 1);
    ::close(to_worker_);
  }
  if (from_worker_) std::fclose(from_worker_);
  if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
}

std::string KerasWorker::read_line() {
  std::string line;
  for (int c; (c = std::fgetc(from_worker_)) != EOF && c != '\n';) line.push_back(static_cast<char>(c));
  return line;
}

KerasWorker::Reply KerasWorker::request(const std::string& line) {
  const std::string out = line + "\n";
  if (::write(to_worker_, out.data(), out.size()) != static_cast<ssize_t>(out.size())) {
    throw std::runtime_error("keras worker: could not send '" + line + "' (worker gone)");
  }
  const std::string reply = read_line();
  if (reply.rfind("ok ", 0) != 0) {
    throw std::runtime_error("keras worker, request '" + line.substr(0, 40) +
                             "': " + (reply.empty() ? "no reply (worker exited)" : reply));
  }
  std::istringstream words(reply.substr(3));
  Reply r;
  words >> r.seconds >> r.value;
  std::getline(words >> std::ws, r.note);
  return r;
}

std::unique_ptr<Runner> make_keras_runner(KerasWorker& worker, const Workload& w) {
  return std::make_unique<KerasRunner>(worker, w);
}

}  // namespace strata::bench
