// ServingMetrics: what TensorFlow Serving counts about its requests, loads and batches,
// and the page its Prometheus endpoint (--monitoring_config_file) answers with.
//
// One set per process, as TensorFlow's monitoring registry: serving_metrics(). The
// metrics keep TensorFlow's names and labels, written as its exporter writes them for
// Prometheus ('/' becomes ':', so /tensorflow/serving/request_count is
// :tensorflow:serving:request_count):
//   /tensorflow/serving/request_count{model_name, status}        counter: every Predict, by its
//                                                                  status code's name ("OK", "NOT_FOUND", ...)
//   /tensorflow/serving/request_latency{model_name, API, entrypoint}  histogram of the answered
//                                                                  ones' wall time in microseconds;
//                                                                  API "Predict", entrypoint "REST" or "GRPC"
//   /tensorflow/cc/saved_model/load_attempt_count{model_path, status}  counter: each version loaded
//                                                                  ("success") or not ("fail")
//   /tensorflow/serving/batching/processed_batch_size{model_name}  histogram of the examples in each
//                                                                  batch run (--enable_batching)
// TensorFlow Serving counts gRPC's requests only; strata-serve counts REST's too, under
// entrypoint "REST". TensorFlow keeps batch sizes as percentiles; here they are a
// histogram whose buckets are powers of two up to 2^14. A sample equal to a bucket's
// limit counts in that bucket (Prometheus's le, "less or equal"; TensorFlow's histograms
// put it in the next). Each metric keeps at most kMaxLabelSets label sets: the names in
// requests are the clients' to choose, and further ones count under model_name
// "(other)". Recording never throws: a sample that cannot be stored is dropped.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace strata::serving {

// The path TensorFlow Serving's Prometheus endpoint has when its config names none.
inline constexpr std::string_view kPrometheusPath = "/monitoring/prometheus/metrics";

class ServingMetrics {
 public:
  static constexpr std::size_t kMaxLabelSets = 1000;

  // A request of `api` for model `model` through `entrypoint`, answered with gRPC's status
  // code `code` (0: OK) after `latency_micros`; only answered requests enter the latency.
  void record_request(const std::string& model, std::string_view api, std::string_view entrypoint, int code,
                      std::int64_t latency_micros) noexcept;
  // One load of a model version's directory.
  void record_load(const std::string& model_path, bool succeeded) noexcept;
  // One batch of `examples` run for `model`.
  void record_batch(const std::string& model, std::int64_t examples) noexcept;

  // The Prometheus text page: a "# TYPE" line per metric, then its samples, metrics in
  // TensorFlow's order (by name) and samples by their labels.
  std::string prometheus_page() const;

  // The count of one counter's sample, or of one histogram's (its _count); 0 when absent.
  std::int64_t count(std::string_view metric, const std::vector<std::string>& label_values) const;

 private:
  struct Histogram {
    std::vector<std::int64_t> buckets;  // one per limit, then the one above the last
    double sum = 0;
  };
  struct Metric {
    std::vector<std::string> label_names;
    std::vector<double> limits;  // empty: a counter
    std::map<std::vector<std::string>, std::int64_t> counts;
    std::map<std::vector<std::string>, Histogram> histograms;
  };
  Metric& metric(std::string_view name);
  // `labels`, or the first replaced by "(other)" once the metric holds kMaxLabelSets.
  static std::vector<std::string> admitted(const Metric& m, std::vector<std::string> labels);
  static void increment(Metric& m, std::vector<std::string> labels);
  static void observe(Metric& m, std::vector<std::string> labels, double value);

  mutable std::mutex mu_;
  std::map<std::string, Metric, std::less<>> metrics_;
};

ServingMetrics& serving_metrics();

// The microseconds since `start`, a request's latency as the metrics take it.
inline std::int64_t micros_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count();
}

// gRPC's name of status code `code` ("OK", "INVALID_ARGUMENT", ...), as TensorFlow's
// error::Code_Name; "UNKNOWN" for a number it does not name.
std::string_view status_code_name(int code);

}  // namespace strata::serving
