// The Keras worker process and the Runner that speaks to it (see keras_runner.h).
#include "bench/keras_runner.h"

#include <sstream>

namespace strata::bench {
namespace {

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
  std::unique_ptr<LineWorker> process = LineWorker::start(
      {.name = "keras worker",
       .argv = {options.python, options.script, std::to_string(options.threads),
                std::to_string(options.inter_op_threads)},
       .environment = {{"TF_CPP_MIN_LOG_LEVEL", "2"},
                       {"KERAS_BACKEND", "tensorflow"},
                       {"CUDA_VISIBLE_DEVICES", ""}}},  // TensorFlow's CPU path, even where a GPU exists
      why_not);
  if (!process) return nullptr;
  std::istringstream words(process->ready());
  std::string tf, keras;
  words >> tf >> keras;
  auto worker = std::make_unique<KerasWorker>(Key(), std::move(process));
  worker->versions_ = "TensorFlow " + tf + ", Keras " + keras;
  return worker;
}

KerasWorker::Reply KerasWorker::request(const std::string& line) {
  std::istringstream words(process_->request(line));
  Reply r;
  words >> r.seconds >> r.value;
  std::getline(words >> std::ws, r.note);
  return r;
}

std::unique_ptr<Runner> make_keras_runner(KerasWorker& worker, const Workload& w) {
  return std::make_unique<KerasRunner>(worker, w);
}

}  // namespace strata::bench
