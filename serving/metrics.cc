#include "serving/metrics.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace strata::serving {

namespace {

constexpr std::string_view kRequestCount = "/tensorflow/serving/request_count";
constexpr std::string_view kRequestLatency = "/tensorflow/serving/request_latency";
constexpr std::string_view kLoadAttemptCount = "/tensorflow/cc/saved_model/load_attempt_count";
constexpr std::string_view kProcessedBatchSize = "/tensorflow/serving/batching/processed_batch_size";

// TensorFlow's Buckets::Exponential(scale, growth, count): scale, scale·growth, ... .
std::vector<double> exponential_limits(double scale, double growth, int count) {
  std::vector<double> limits;
  for (double bound = scale; static_cast<int>(limits.size()) < count; bound *= growth) limits.push_back(bound);
  return limits;
}

// A number as absl::StrCat writes a double: at most six significant digits.
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// A sum, with every digit a double holds: six digits (a limit's format) would round a
// latency sum past a second to 1e+06 and stall Prometheus's rate() of it.
std::string exact(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// TensorFlow's exporter: a metric name keeps [a-zA-Z0-9_] and the rest becomes ':'.
std::string prometheus_name(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    if (!keep) c = ':';
  }
  return out;
}

// name="value" pairs, the value's backslashes and quotes escaped (a newline too, which
// Prometheus's format forbids raw).
std::string label_list(const std::vector<std::string>& names, const std::vector<std::string>& values) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i] + "=\"";
    for (char c : values[i]) {
      if (c == '\\' || c == '"') out += '\\';
      if (c == '\n') {
        out += "\\n";
        continue;
      }
      out += c;
    }
    out += '"';
  }
  return out;
}

}  // namespace

ServingMetrics::Metric& ServingMetrics::metric(std::string_view name) {
  auto it = metrics_.find(name);
  if (it != metrics_.end()) return it->second;
  Metric m;
  if (name == kRequestCount) {
    m.label_names = {"model_name", "status"};
  } else if (name == kRequestLatency) {
    // Scale of 10 µs, growth 1.8, 33 buckets (~20 minutes), as TensorFlow Serving's.
    m.label_names = {"model_name", "API", "entrypoint"};
    m.limits = exponential_limits(10, 1.8, 33);
  } else if (name == kLoadAttemptCount) {
    m.label_names = {"model_path", "status"};
  } else if (name == kProcessedBatchSize) {
    m.label_names = {"model_name"};
    m.limits = exponential_limits(1, 2, 15);  // 1 to 2^14 examples
  }
  return metrics_.emplace(std::string(name), std::move(m)).first->second;
}

std::vector<std::string> ServingMetrics::admitted(const Metric& m, std::vector<std::string> labels) {
  const std::size_t held = m.limits.empty() ? m.counts.size() : m.histograms.size();
  const bool known = m.limits.empty() ? m.counts.contains(labels) : m.histograms.contains(labels);
  if (!known && held >= kMaxLabelSets && !labels.empty()) labels[0] = "(other)";
  return labels;
}

void ServingMetrics::increment(Metric& m, std::vector<std::string> labels) {
  ++m.counts[admitted(m, std::move(labels))];
}

void ServingMetrics::observe(Metric& m, std::vector<std::string> labels, double value) {
  Histogram& h = m.histograms[admitted(m, std::move(labels))];
  if (h.buckets.empty()) h.buckets.assign(m.limits.size() + 1, 0);
  // Prometheus's buckets: the first whose limit is at least the value.
  const auto bucket = std::lower_bound(m.limits.begin(), m.limits.end(), value) - m.limits.begin();
  ++h.buckets[static_cast<std::size_t>(bucket)];
  h.sum += value;
}

void ServingMetrics::record_request(const std::string& model, std::string_view api, std::string_view entrypoint,
                                    int code, std::int64_t latency_micros) noexcept {
  try {
    std::lock_guard lock(mu_);
    increment(metric(kRequestCount), {model, std::string(status_code_name(code))});
    if (code == 0) {
      observe(metric(kRequestLatency), {model, std::string(api), std::string(entrypoint)},
              static_cast<double>(latency_micros));
    }
  } catch (...) {  // out of memory: the sample is dropped, the request is not failed by it
  }
}

void ServingMetrics::record_load(const std::string& model_path, bool succeeded) noexcept {
  try {
    std::lock_guard lock(mu_);
    increment(metric(kLoadAttemptCount), {model_path, succeeded ? "success" : "fail"});
  } catch (...) {
  }
}

void ServingMetrics::record_batch(const std::string& model, std::int64_t examples) noexcept {
  try {
    std::lock_guard lock(mu_);
    observe(metric(kProcessedBatchSize), {model}, static_cast<double>(examples));
  } catch (...) {
  }
}

std::string ServingMetrics::prometheus_page() const {
  std::map<std::string, Metric, std::less<>> metrics;
  {
    std::lock_guard lock(mu_);  // held for the copy only: requests record while the page is written
    metrics = metrics_;
  }
  std::string page;
  for (const auto& [name, m] : metrics) {
    const std::string prom = prometheus_name(name);
    if (m.limits.empty()) {
      page += "# TYPE " + prom + " counter\n";
      for (const auto& [labels, n] : m.counts) {
        page += prom + "{" + label_list(m.label_names, labels) + "} " + std::to_string(n) + "\n";
      }
      continue;
    }
    page += "# TYPE " + prom + " histogram\n";
    for (const auto& [labels, h] : m.histograms) {
      const std::string list = label_list(m.label_names, labels);
      std::int64_t cumulative = 0;
      for (std::size_t b = 0; b < h.buckets.size(); ++b) {
        cumulative += h.buckets[b];
        const std::string le = b < m.limits.size() ? number(m.limits[b]) : "+Inf";
        page += prom + "_bucket{" + list + (list.empty() ? "" : ",") + "le=\"" + le + "\"} " +
                std::to_string(cumulative) + "\n";
      }
      page += prom + "_sum{" + list + "} " + exact(h.sum) + "\n";
      page += prom + "_count{" + list + "} " + std::to_string(cumulative) + "\n";
    }
  }
  return page;
}

std::int64_t ServingMetrics::count(std::string_view metric_name, const std::vector<std::string>& label_values) const {
  std::lock_guard lock(mu_);
  auto it = metrics_.find(metric_name);
  if (it == metrics_.end()) return 0;
  const Metric& m = it->second;
  if (auto c = m.counts.find(label_values); c != m.counts.end()) return c->second;
  if (auto h = m.histograms.find(label_values); h != m.histograms.end()) {
    std::int64_t n = 0;
    for (std::int64_t b : h->second.buckets) n += b;
    return n;
  }
  return 0;
}

ServingMetrics& serving_metrics() {
  static ServingMetrics metrics;
  return metrics;
}

std::string_view status_code_name(int code) {
  static constexpr std::array<std::string_view, 17> kNames = {
      "OK",           "CANCELLED",          "UNKNOWN",   "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED",
      "OUT_OF_RANGE", "UNIMPLEMENTED",      "INTERNAL",  "UNAVAILABLE",      "DATA_LOSS",         "UNAUTHENTICATED"};
  return code >= 0 && code < static_cast<int>(kNames.size()) ? kNames[static_cast<std::size_t>(code)] : "UNKNOWN";
}

}  // namespace strata::serving
