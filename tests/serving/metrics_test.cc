// TensorFlow Serving's metrics (serving/metrics.h): the Prometheus page as its exporter
// writes it, and what the REST API, the model loads and the batcher record there. The
// metrics are the process's, so each test counts under model names of its own. The
// --monitoring_config_file flag and the gRPC side are in monitoring_config_test.cc.
#include "serving/metrics.h"

#include <gtest/gtest.h>

#include <string>

#include "serving/rest_handler.h"
#include "serving_test_util.h"

namespace strata::serving::metrics_test {
namespace {

using namespace testing;

constexpr const char* kCount = "/tensorflow/serving/request_count";
constexpr const char* kLatency = "/tensorflow/serving/request_latency";
constexpr const char* kLoads = "/tensorflow/cc/saved_model/load_attempt_count";
constexpr const char* kBatchSizes = "/tensorflow/serving/batching/processed_batch_size";

bool has_line(const std::string& page, const std::string& line) {
  return page.find("\n" + line + "\n") != std::string::npos || page.starts_with(line + "\n");
}

// Version 1 of the golden functional_mlp served as `name`, with the metrics page at `path`.
struct Served {
  Served(const std::string& name, std::optional<BatchingParameters> batching = std::nullopt) : name(name) {
    dir.add_version(1, "functional_mlp", ".keras");
    models = std::make_unique<ModelRegistry>(ModelManagerOptions{
        .name = name, .base_path = dir.path(), .file_system_poll_wait_seconds = 0, .batching = batching});
    handler = std::make_unique<RestHandler>(*models, RestHandlerOptions{.metrics_path = std::string(kPrometheusPath)});
  }
  RestResponse predict(const json& body) const {
    return handler->handle("POST", "/v1/models/" + name + ":predict", body.dump());
  }
  std::string name;
  ModelDir dir;
  std::unique_ptr<ModelRegistry> models;
  std::unique_ptr<RestHandler> handler;
};

json good_request() { return json{{"inputs", values_json(load_numbered(golden("functional_mlp"), "input")[0])}}; }

}  // namespace

// The page is TensorFlow's exporter's: metrics by their TensorFlow names, '/' as ':', a
// TYPE line each; counters one line per label set; histograms cumulative buckets with
// TensorFlow Serving's latency limits (10 µs, then ×1.8), +Inf, _sum and _count; label
// values escaped. A sample on a limit counts in its bucket, as Prometheus's le reads.
TEST(ServingMetrics, ThePageIsTensorFlowsPrometheusExport) {
  ServingMetrics metrics;
  metrics.record_request("m", "Predict", "REST", 0, 10);  // on a limit: in its bucket (le)
  metrics.record_request("m", "Predict", "REST", 0, 100);
  metrics.record_request("m", "Predict", "GRPC", 5, 7);  // NOT_FOUND: counted, not timed
  metrics.record_request("say \"hi\"\\", "Predict", "GRPC", 3, 1);
  metrics.record_load("/models/m/1", true);
  metrics.record_load("/models/m/2", false);
  metrics.record_batch("m", 4);
  const std::string page = metrics.prometheus_page();
  const auto at = [&](const std::string& line) { return page.find(line + "\n"); };
  const std::string rest = "{model_name=\"m\",API=\"Predict\",entrypoint=\"REST\"";
  const std::string loads = ":tensorflow:cc:saved_model:load_attempt_count";
  const std::string sizes = ":tensorflow:serving:batching:processed_batch_size";
  const std::string requests = ":tensorflow:serving:request_count";
  const std::string latency = ":tensorflow:serving:request_latency";
  for (const std::string& line : std::vector<std::string>{
           "# TYPE " + loads + " counter",
           loads + "{model_path=\"/models/m/1\",status=\"success\"} 1",
           loads + "{model_path=\"/models/m/2\",status=\"fail\"} 1",
           "# TYPE " + sizes + " histogram",
           sizes + "_bucket{model_name=\"m\",le=\"2\"} 0",
           sizes + "_bucket{model_name=\"m\",le=\"4\"} 1",
           sizes + "_bucket{model_name=\"m\",le=\"16384\"} 1",
           sizes + "_bucket{model_name=\"m\",le=\"+Inf\"} 1",
           "# TYPE " + requests + " counter",
           requests + "{model_name=\"m\",status=\"NOT_FOUND\"} 1",
           requests + "{model_name=\"m\",status=\"OK\"} 2",
           requests + "{model_name=\"say \\\"hi\\\"\\\\\",status=\"INVALID_ARGUMENT\"} 1",
           "# TYPE " + latency + " histogram",
           latency + "_bucket" + rest + ",le=\"10\"} 1",
           latency + "_bucket" + rest + ",le=\"58.32\"} 1",
           latency + "_bucket" + rest + ",le=\"104.976\"} 2",
           latency + "_bucket" + rest + ",le=\"+Inf\"} 2",
           latency + "_sum" + rest + "} 110",
           latency + "_count" + rest + "} 2"}) {
    EXPECT_TRUE(has_line(page, line)) << "no line\n  " << line << "\nin\n" << page;
  }
  // Metrics in TensorFlow's name order; the failed gRPC request has no latency sample.
  EXPECT_LT(at("# TYPE :tensorflow:cc:saved_model:load_attempt_count counter"),
            at("# TYPE :tensorflow:serving:batching:processed_batch_size histogram"));
  EXPECT_LT(at("# TYPE :tensorflow:serving:request_count counter"),
            at("# TYPE :tensorflow:serving:request_latency histogram"));
  EXPECT_EQ(page.find("entrypoint=\"GRPC\""), std::string::npos) << page;
  // 33 limits and +Inf per latency label set.
  std::size_t buckets = 0;
  for (auto p = page.find("latency_bucket"); p != std::string::npos; p = page.find("latency_bucket", p + 1)) ++buckets;
  EXPECT_EQ(buckets, 34u);
  EXPECT_EQ(metrics.count(kCount, {"m", "OK"}), 2);
  EXPECT_EQ(metrics.count(kLatency, {"m", "Predict", "REST"}), 2);
  EXPECT_EQ(status_code_name(16), "UNAUTHENTICATED");
  // A sum past a second keeps its digits (rate() of it must move).
  metrics.record_request("m", "Predict", "REST", 0, 1234567);
  const std::string again = metrics.prometheus_page();
  EXPECT_TRUE(has_line(again, latency + "_sum" + rest + "} 1234677")) << again;
  EXPECT_EQ(status_code_name(99), "UNKNOWN");
}

// The names in requests are the clients': past kMaxLabelSets label sets a metric counts
// the new ones under "(other)", so made-up model names cannot grow it without bound.
TEST(ServingMetrics, LabelSetsAreBounded) {
  ServingMetrics metrics;
  const std::size_t extra = 5;
  for (std::size_t i = 0; i < ServingMetrics::kMaxLabelSets + extra; ++i) {
    metrics.record_request("made_up_" + std::to_string(i), "Predict", "GRPC", 5, 0);
  }
  EXPECT_EQ(metrics.count(kCount, {"made_up_0", "NOT_FOUND"}), 1);
  EXPECT_EQ(metrics.count(kCount, {"(other)", "NOT_FOUND"}), static_cast<std::int64_t>(extra));
  EXPECT_EQ(metrics.count(kCount, {"made_up_" + std::to_string(ServingMetrics::kMaxLabelSets), "NOT_FOUND"}), 0);
  metrics.record_request("made_up_0", "Predict", "GRPC", 5, 0);  // a known label set still counts as itself
  EXPECT_EQ(metrics.count(kCount, {"made_up_0", "NOT_FOUND"}), 2);
}

// REST predicts are counted by status (a bad input is INVALID_ARGUMENT, a model not served
// NOT_FOUND, under the name asked for), the answered ones timed; the load of the version
// is counted; GET at the metrics path answers the page as text.
TEST(ServingMetrics, TheRestApiCountsItsPredictsAndServesThePage) {
  Served s("metrics_rest");
  const ServingMetrics& m = serving_metrics();
  // Differences: the metrics are the process's (a repeated run of this test adds to them).
  const std::int64_t ok = m.count(kCount, {"metrics_rest", "OK"});
  const std::int64_t bad = m.count(kCount, {"metrics_rest", "INVALID_ARGUMENT"});
  const std::int64_t absent = m.count(kCount, {"metrics_rest_absent", "NOT_FOUND"});
  const std::int64_t timed = m.count(kLatency, {"metrics_rest", "Predict", "REST"});
  ASSERT_EQ(s.predict(good_request()).status, 200);
  ASSERT_EQ(s.predict(good_request()).status, 200);
  ASSERT_EQ(s.predict(json{{"inputs", json::array({json::array({1.0})})}}).status, 400);
  ASSERT_EQ(s.handler->handle("POST", "/v1/models/metrics_rest_absent:predict", good_request().dump()).status, 404);
  EXPECT_EQ(m.count(kCount, {"metrics_rest", "OK"}), ok + 2);
  EXPECT_EQ(m.count(kCount, {"metrics_rest", "INVALID_ARGUMENT"}), bad + 1);
  EXPECT_EQ(m.count(kCount, {"metrics_rest_absent", "NOT_FOUND"}), absent + 1);
  EXPECT_EQ(m.count(kLatency, {"metrics_rest", "Predict", "REST"}), timed + 2);
  EXPECT_EQ(m.count(kLoads, {s.dir.path() + "/1", "success"}), 1);  // its directory is new

  const RestResponse page = s.handler->handle("GET", std::string(kPrometheusPath), "");
  ASSERT_EQ(page.status, 200) << page.body;
  EXPECT_EQ(page.content_type, "text/plain; version=0.0.4");
  EXPECT_TRUE(has_line(page.body, ":tensorflow:serving:request_count{model_name=\"metrics_rest\",status=\"OK\"} " +
                                      std::to_string(ok + 2)))
      << page.body;
  EXPECT_EQ(s.handler->handle("POST", std::string(kPrometheusPath), "").status, 400);
  // Without a metrics path the page is no endpoint: outside /v1/, as any such path.
  RestHandler plain(*s.models);
  EXPECT_EQ(plain.handle("GET", std::string(kPrometheusPath), "").status, 404);
}

// A version that fails to load is counted as "fail" under its directory.
TEST(ServingMetrics, AFailedLoadIsCountedAsFail) {
  ModelDir dir;
  dir.write_file(1, "model.keras", "not a zip");
  ModelRegistry models(ModelManagerOptions{.name = "metrics_bad", .base_path = dir.path(),
                                           .file_system_poll_wait_seconds = 0});
  EXPECT_FALSE(models.find("metrics_bad")->latest());
  EXPECT_EQ(serving_metrics().count(kLoads, {dir.path() + "/1", "fail"}), 1);
}

// With batching, each batch run is one sample of its size under the model's name.
TEST(ServingMetrics, BatchSizesAreRecordedPerModel) {
  Served s("metrics_batched",
           BatchingParameters{.max_batch_size = 64, .batch_timeout_micros = 0, .num_batch_threads = 1});
  const std::int64_t before = serving_metrics().count(kBatchSizes, {"metrics_batched"});
  ASSERT_EQ(s.predict(good_request()).status, 200);
  ASSERT_EQ(s.predict(good_request()).status, 200);
  EXPECT_EQ(serving_metrics().count(kBatchSizes, {"metrics_batched"}), before + 2);
  EXPECT_NE(serving_metrics().prometheus_page().find(
                ":tensorflow:serving:batching:processed_batch_size_count{model_name=\"metrics_batched\"}"),
            std::string::npos);
}

}  // namespace strata::serving::metrics_test
