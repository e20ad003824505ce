// --monitoring_config_file: TensorFlow Serving's MonitoringConfig text read by protobuf's
// parser into the path of the Prometheus page, what it refuses; and strata-serve serving
// the page on its REST port, with REST's and gRPC's predicts counted. Built when CMake
// found gRPC and protobuf (STRATA_WITH_GRPC).
#ifdef STRATA_WITH_GRPC

#include "serving/monitoring_config.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/wait.h>

#include <fstream>

#include "serving/metrics.h"
#include "serving/proto/tensorflow_serving.grpc.pb.h"
#include "tests/serving/serving_test_util.h"

namespace strata::serving::monitoring_config_test {
namespace {

using namespace strata::serving::testing;
namespace tfs = tensorflow::serving;

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

}  // namespace

TEST(MonitoringConfig, PrometheusConfigGivesThePathOfThePage) {
  EXPECT_EQ(parse_monitoring_config("prometheus_config { enable: true, path: \"/metrics\" }"), "/metrics");
  // TensorFlow Serving's own path when the config names none.
  EXPECT_EQ(parse_monitoring_config("prometheus_config: { enable: true }"), std::string(kPrometheusPath));
  EXPECT_EQ(parse_monitoring_config("prometheus_config { enable: false path: '/metrics' }"), "");
  EXPECT_EQ(parse_monitoring_config(""), "");
}

TEST(MonitoringConfig, WhatItRefusesSaysWhatAndWhere) {
  EXPECT_THROW_WITH(parse_monitoring_config("prometheus_config {\n  enable: true\n  port: 9090\n}"), ValueError,
                    "line 3:7: Message type \"tensorflow.serving.PrometheusConfig\" has no field named \"port\"");
  EXPECT_THROW_WITH(parse_monitoring_config("prometheus_config { enable: true path: 'metrics' }"), ValueError,
                    "path 'metrics' does not start with '/'");
  EXPECT_THROW_WITH(parse_monitoring_config("prometheus_config { enable: true path: '/v1/metrics' }"), ValueError,
                    "is under /v1/");
  EXPECT_THROW_WITH(read_monitoring_config_file("/nonexistent/monitoring.config"), IOError,
                    "can't read the monitoring config file '/nonexistent/monitoring.config'");
}

// strata-serve --monitoring_config_file: the page on the REST port counts the load, the
// REST predict and the gRPC one (entrypoints REST and GRPC), as Prometheus scrapes it.
TEST(StrataServe, TheProgramServesPrometheusMetricsOnItsRestPort) {
#ifndef STRATA_TOOLS_DIR
  GTEST_SKIP() << "strata-serve is not built (STRATA_BUILD_TOOLS=OFF)";
#else
  ModelDir dir, files;
  dir.add_version(1, "functional_mlp", ".keras");
  const std::string config = files.path() + "/monitoring.config";
  write(config, "prometheus_config {\n  enable: true,\n  path: \"/monitoring/prometheus/metrics\"\n}\n");
  ServeProgram serve(std::string(STRATA_TOOLS_DIR) + "/strata-serve",
                     {"--port=0", "--grpc_bind=127.0.0.1", "--rest_api_port=0", "--rest_api_bind=127.0.0.1",
                      "--model_name=scraped", "--model_base_path=" + dir.path(), "--monitoring_config_file=" + config,
                      "--file_system_poll_wait_seconds=0"});
  std::vector<std::string> printed;
  for (int i = 0; i < 4; ++i) printed.push_back(serve.line());
  EXPECT_NE(printed[2].find("Prometheus metrics at http://127.0.0.1:"), std::string::npos) << printed[2];
  const int rest_port = port_after(printed[1], "127.0.0.1:"), grpc_port = port_after(printed[3], "127.0.0.1:");
  ASSERT_GT(rest_port, 0) << printed[1];
  ASSERT_GT(grpc_port, 0) << printed[3];
  const Tensor x = load_numbered(golden("functional_mlp"), "input")[0];
  httplib::Client client("127.0.0.1", rest_port);
  auto res = client.Post("/v1/models/scraped:predict", json{{"inputs", values_json(x)}}.dump(), "application/json");
  ASSERT_TRUE(res) << httplib::to_string(res.error());
  ASSERT_EQ(res->status, 200) << res->body;
  res = client.Get("/v1/models/scraped/metadata");
  ASSERT_TRUE(res && res->status == 200);
  const json inputs = json::parse(res->body)["metadata"]["signature_def"]["signature_def"]["serving_default"]["inputs"];
  ASSERT_EQ(inputs.size(), 1u) << inputs;
  {
    tfs::PredictRequest request;
    request.mutable_model_spec()->set_name("scraped");
    tensorflow::TensorProto& proto = (*request.mutable_inputs())[inputs.begin().key()];
    proto.set_dtype(tensorflow::DT_FLOAT);
    for (std::int64_t d : x.shape().dims()) proto.mutable_tensor_shape()->add_dim()->set_size(d);
    for (std::int64_t i = 0; i < x.size(); ++i) proto.add_float_val(x.data<float>()[i]);
    auto stub = tfs::PredictionService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(grpc_port), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    tfs::PredictResponse response;
    const grpc::Status status = stub->Predict(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  res = client.Get("/monitoring/prometheus/metrics");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/plain; version=0.0.4");
  const std::string& page = res->body;
  for (const std::string& line : std::vector<std::string>{
           ":tensorflow:serving:request_count{model_name=\"scraped\",status=\"OK\"} 2",
        ":tensorflow:serving:request_latency_count{model_name=\"scraped\",API=\"Predict\",entrypoint=\"REST\"} 1",
        ":tensorflow:serving:request_latency_count{model_name=\"scraped\",API=\"Predict\",entrypoint=\"GRPC\"} 1",
        ":tensorflow:cc:saved_model:load_attempt_count{model_path=\"" + dir.path() + "/1\",status=\"success\"} 1"}) {
    EXPECT_NE(page.find("\n" + line + "\n"), std::string::npos) << "no line\n  " << line << "\nin\n" << page;
  }
  const int status = serve.stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
#endif
}

}  // namespace strata::serving::monitoring_config_test

#endif  // STRATA_WITH_GRPC
