// Keras on TensorFlow as a suite framework: one persistent Python worker
// (bench/keras_worker.py), started once, spoken to over two pipes with one line per
// request and one per reply (bench/line_worker.h), so that its repetitions interleave
// with Strata's and libtorch's in the same run:
//   setup <workload> <json>   -> ok <seconds> 0          builds the model and its data
//   train                     -> ok <seconds> <loss>     model.fit, one epoch
//   predict                   -> ok <seconds> <logit>    model.predict over the data
//   predict_one <n>           -> ok <median seconds> <logit> <path>
//   quit
// Any request may be answered `error <message>`. The worker times each request itself,
// so the pipe round trip is not counted as Keras's time.
#pragma once

#include <memory>
#include <string>

#include "bench/line_worker.h"
#include "bench/workload.h"

namespace strata::bench {

struct KerasWorkerOptions {
  std::string python = "python3";
  std::string script;  // path of keras_worker.py
  int threads = 2;
  int inter_op_threads = 2;
};

class KerasWorker {
 public:
  struct Reply {
    double seconds = 0;
    float value = 0;
    std::string note;  // anything after the value (predict_one: the batch-1 path used)
  };

  // Starts the worker and waits until TensorFlow has imported. Returns nullptr and sets
  // *why_not when python3 or TensorFlow cannot be used.
  static std::unique_ptr<KerasWorker> start(const KerasWorkerOptions& options, std::string* why_not);
  // Only start() can make a Key, so only start() makes workers.
  class Key {
    friend class KerasWorker;
    Key() = default;
  };
  KerasWorker(Key, std::unique_ptr<LineWorker> process) : process_(std::move(process)) {}
  // Destroying it sends quit and reaps the process.

  // Sends one request and reads its reply; throws std::runtime_error on `error ...`
  // or when the worker has gone.
  Reply request(const std::string& line);
  // "TensorFlow 2.21.0, Keras 3.15.1", from the worker's ready line.
  const std::string& versions() const { return versions_; }

 private:
  std::unique_ptr<LineWorker> process_;
  std::string versions_;
};

// A Runner whose model lives in the worker; the worker holds one model at a time, so
// one workload's runner is made after the previous one is done.
std::unique_ptr<Runner> make_keras_runner(KerasWorker& worker, const Workload& w);

}  // namespace strata::bench
