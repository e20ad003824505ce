// Strata's engine for the real-model benchmark (see strata_model_worker.h), written
// against the public API a user loading a Keras file would use: models::load_model,
// Model::predict_on_batch, io::load_npy / save_npy.
#include "bench/strata_model_worker.h"

#include <sys/resource.h>
#include <unistd.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bench/device.h"
#include "core/cpu/parallel.h"
#include "io/npy.h"
#include "io/saving.h"

namespace strata::bench {
namespace {

double peak_rss_mb() {
  struct rusage usage {};
  ::getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux counts kilobytes
}

// The warm-up before a predict request's timed calls (bench/model_worker.py's WARM_UP_SECONDS).
constexpr double kWarmUpSeconds = 0.2;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class Server {
 public:
  explicit Server(std::FILE* protocol) : protocol_(protocol) {}

  void reply(const std::string& line) {
    std::string one = line;
    std::replace(one.begin(), one.end(), '\n', ' ');
    std::fprintf(protocol_, "%s\n", one.c_str());
    std::fflush(protocol_);
  }

  // `load <model> <x1.npy>`: the clock runs from the start of load_model to the end of
  // the first prediction, so it includes building the inference program, as a user's
  // first predict does.
  void load(const std::string& model_path, const std::string& x1_path) {
    const Tensor x = io::load_npy(x1_path);
    model_.reset();
    const auto start = std::chrono::steady_clock::now();
    model_ = models::load_model(model_path, {.compile = false});
    model_->predict_on_batch(x);
    const double seconds = seconds_since(start);
    reply(format("ok %.9f %.1f", seconds, peak_rss_mb()));
  }

  // `predict <x.npy> <calls> <out.npy>`: untimed warm-up calls for at least
  // kWarmUpSeconds (at least one), as the Python workers (bench/model_worker.py says
  // why), then `calls` timed predictions.
  void predict(const std::string& x_path, int calls, const std::string& out_path) {
    if (!model_) throw std::runtime_error("predict before load");
    if (calls < 1) throw std::runtime_error("predict needs calls >= 1");
    const Tensor x = io::load_npy(x_path);
    const auto warm_up_start = std::chrono::steady_clock::now();
    Tensor out = model_->predict_on_batch(x);
    while (seconds_since(warm_up_start) < kWarmUpSeconds) out = model_->predict_on_batch(x);
    std::vector<double> seconds;
    for (int i = 0; i < calls; ++i) {
      const auto start = std::chrono::steady_clock::now();
      out = model_->predict_on_batch(x);
      seconds.push_back(seconds_since(start));
    }
    io::save_npy(out_path, out);
    std::sort(seconds.begin(), seconds.end());
    // The upper median for an even count, as the Python workers take it.
    reply(format("ok %.9f %.9f %.9f predict_on_batch", seconds[seconds.size() / 2], seconds.front(),
                 seconds.back()));
  }

 private:
  template <typename... Args>
  static std::string format(const char* pattern, Args... args) {
    char buf[256];
    std::snprintf(buf, sizeof(buf), pattern, args...);
    return buf;
  }

  std::FILE* protocol_;
  std::optional<Model> model_;
};

}  // namespace

int serve_strata_model_worker(int threads) {
  // The protocol owns the real stdout; anything else printed goes to stderr.
  std::FILE* protocol = ::fdopen(::dup(STDOUT_FILENO), "w");
  std::cout.flush();
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  Server server(protocol);
  cpu::set_num_threads(threads);
  server.reply("ready Strata (this build), Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
               std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION));
  for (std::string line; std::getline(std::cin, line);) {
    std::istringstream words(line);
    std::string request;
    words >> request;
    if (request.empty()) continue;
    if (request == "quit") break;
    try {
      if (request == "load") {
        std::string model_path, x1_path;
        words >> model_path >> x1_path;
        server.load(model_path, x1_path);
      } else if (request == "predict") {
        std::string x_path, out_path;
        int calls = 0;
        words >> x_path >> calls >> out_path;
        server.predict(x_path, calls, out_path);
      } else {
        server.reply("error unknown request '" + request + "'");
      }
    } catch (const std::exception& e) {
      // A Strata error's first line says what; the rest (a layer's context) is stderr's.
      std::cerr << e.what() << "\n";
      server.reply("error " + first_line(e.what()));
    }
  }
  return 0;
}

}  // namespace strata::bench
